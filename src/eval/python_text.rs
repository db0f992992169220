//! Whether the text being made is a Python program's: there a tensor is
//! written as PyTorch's `repr` writes it (`tensor([1., 2.])`), an object
//! as Python's `<... object at 0x...>`; cells of cudash's language show
//! cudash's display (values and a tag). `Interp::host_read` sets it for
//! the text it makes; `show`, `format` and `dataclass` read it.

thread_local! {
    /// Whether tensors are written as PyTorch's `repr` writes them (a
    /// Python program's text) rather than with cudash's tag.
    static PYTORCH_TEXT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether values are being written as a Python program reads them.
pub(crate) fn pytorch_text() -> bool {
    PYTORCH_TEXT.get()
}

/// Runs `f` with tensors written as PyTorch writes them (`on`: the text a
/// Python program reads) or with cudash's tag (cells of cudash's language).
pub(crate) fn with_pytorch_text<R>(on: bool, f: impl FnOnce() -> R) -> R {
    let before = PYTORCH_TEXT.replace(on);
    let r = f();
    PYTORCH_TEXT.set(before);
    r
}
