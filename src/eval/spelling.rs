//! PyTorch's and Python's spellings. Where cudash has the same thing under
//! another name and PyTorch's is unambiguous, it is accepted (`True`,
//! `float32`, `device="cuda:1"`; the functions and methods themselves are
//! rows of `docs.rs`, such as `synchronize` and `x.size`). The rest gets a
//! hint that shows the cudash form (`import torch`, `torch.zeros`, `F.relu`,
//! `range(3)`, `.numpy()`; Python's `:` blocks are `lang::python`'s).
//! Each help topic names its PyTorch spelling (`docs::Doc::pytorch_name`).

use super::docs;
use super::Value;
use crate::error::Error;
use crate::runtime::{DType, Device};

/// What to write instead of PyTorch's module prefix when `torch` is not imported.
pub const BUILTINS_HELP: &str = "write `import torch` first, or the builtin without the prefix: \
     `zeros(2, 3)` for `torch.zeros(2, 3)`, `synchronize()` for `torch.cuda.synchronize()`; \
     `help` lists every builtin";

/// A name PyTorch or Python writes for a value cudash has.
#[derive(Debug, Clone, Copy)]
pub enum Alias {
    Bool(bool),
    None,
    DType(DType),
}

/// Python's constants and PyTorch's dtype names (`torch.float32` is
/// `float32`, also written `f32`).
pub const VALUES: &[(&str, Alias)] = &[
    ("True", Alias::Bool(true)),
    ("False", Alias::Bool(false)),
    ("None", Alias::None),
    ("float32", Alias::DType(DType::F32)),
    ("float16", Alias::DType(DType::F16)),
    ("bfloat16", Alias::DType(DType::BF16)),
    ("float64", Alias::DType(DType::F64)),
    ("uint8", Alias::DType(DType::U8)),
    ("int8", Alias::DType(DType::I8)),
    ("int16", Alias::DType(DType::I16)),
    ("int32", Alias::DType(DType::I32)),
    ("int64", Alias::DType(DType::I64)),
];

/// The value of an accepted name (`True`, `float32`, and `__name__`,
/// which is `"__main__"`: the file or cell is the program Python runs;
/// a script's `__file__` is its absolute path, as Python 3.9 on gives it,
/// and a REPL or a notebook has none).
pub fn value(name: &str) -> Option<Value> {
    if name == "__name__" {
        return Some(Value::Str(std::sync::Arc::new("__main__".into())));
    }
    if name == "__file__" {
        return super::argv::main_file().map(|f| Value::Str(std::sync::Arc::new(f)));
    }
    if let Some(c) = super::exceptions::named(name) {
        return Some(Value::ExcClass(c));
    }
    if name == "object" {
        return Some(Value::Class(super::value::object_class()));
    }
    VALUES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, a)| match *a {
            Alias::Bool(b) => Value::bool(b),
            Alias::None => Value::None,
            Alias::DType(d) => Value::dtype(d),
        })
}

/// A device written as PyTorch's string: `"cpu"`, `"cuda"`, `"cuda:1"`.
pub fn device_string(s: &str) -> Option<Value> {
    match s {
        "cpu" => Some(Value::device(Device::Cpu)),
        "meta" => Some(Value::device(Device::Meta)),
        "cuda" => Some(Value::CurrentCuda),
        _ => {
            let index = s.strip_prefix("cuda:")?;
            // Digits only, as torch.device reads them (no sign, no spaces).
            if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            index.parse().ok().map(|i| Value::device(Device::Cuda(i)))
        }
    }
}

fn hint(message: impl Into<String>, label: &str, help: impl Into<String>) -> Error {
    Error::Spelling {
        message: message.into(),
        label: label.into(),
        help: help.into(),
        class: "NameError",
    }
}

/// The modules a PyTorch program names, which cudash's builtins replace.
const MODULES: &[&str] = &["torch", "F", "nn", "np", "numpy"];

/// A hint for a bare name cudash does not have but PyTorch or Python does.
pub fn name_hint(name: &str) -> Option<Error> {
    if MODULES.contains(&name) {
        return Some(module_hint(&[name]));
    }
    match name {
        "import" => Some(module_hint(&["torch"])),
        _ => None,
    }
}

/// A hint for `torch.zeros`, `torch.cuda.synchronize`, `F.relu`,
/// `nn.Linear`, `np.array`: `path` is what was written, from the module on.
pub fn dotted_hint(path: &[&str]) -> Option<Error> {
    MODULES.contains(path.first()?).then(|| module_hint(path))
}

fn module_hint(path: &[&str]) -> Error {
    let written = path.join(".");
    let label = "not imported";
    let last = path.last().copied().unwrap_or("");
    let root = path.first().copied().unwrap_or("");
    let import = match root {
        "nn" => "import torch.nn as nn",
        "F" => "import torch.nn.functional as F",
        _ => "import torch",
    };
    match root {
        "np" | "numpy" => hint(
            format!("cudash has no NumPy (`{written}`): tensors are its arrays"),
            "NumPy's spelling",
            "make a tensor with `torch.tensor([...])` or `torch.arange(n)`; `torch.save(x, \"x.npy\")` writes a file NumPy reads",
        ),
        _ if path.len() == 1 => hint(
            format!("`{written}` is not defined: the program has no `{import}`"),
            label,
            format!("write `{import}` before it; cudash's builtins are also PyTorch's names without the prefix (`zeros(2, 3)`)"),
        ),
        _ => {
            let form = cudash_form(last)
                .map(|f| match short_dtype(last) {
                    Some(d) => format!(" (or `{f}`, `{d}`)"),
                    None => format!(" (or `{f}`, the builtin itself)"),
                })
                .unwrap_or_default();
            let form = match last {
                "no_grad" => " (or the block `no_grad { ... }`)".to_string(),
                _ => form,
            };
            hint(
                format!("`{root}` is not defined: `{written}` needs `{import}` first"),
                label,
                format!("write `{import}` at the top{form}"),
            )
        }
    }
}

/// PyTorch's names that cudash spells otherwise: `torch.X` (and
/// `torch.cuda.X`) is written as the second.
pub const RENAMED: &[(&str, &str)] = &[
    ("Event", "event()"),
    ("Stream", "stream()"),
    ("cuda", "cuda"),
    ("float", "float32"),
    ("double", "float64"),
    ("half", "float16"),
    ("long", "int64"),
    ("short", "int16"),
    ("int", "int32"),
    ("bool", "bool"),
];

/// What cudash calls PyTorch's `torch.X` / `F.X` / `torch.cuda.X`, when it has it.
fn cudash_form(name: &str) -> Option<String> {
    if let Some((_, form)) = RENAMED.iter().find(|(n, _)| *n == name) {
        return Some(form.to_string());
    }
    if value(name).is_some() {
        return Some(name.to_string());
    }
    docs::function(name).map(|d| d.name.to_string())
}

/// cudash's short name for PyTorch's dtype `name` (`torch.float32`: `f32`).
fn short_dtype(name: &str) -> Option<String> {
    let name = cudash_form(name)?;
    match value(&name)? {
        Value::DType(d) => Some(d.to_string()),
        _ => None,
    }
}

/// A hint for a member cudash's tensors do not have but PyTorch's do.
pub fn member_hint(receiver: &str, name: &str) -> Option<Error> {
    match (receiver, name) {
        ("tensor", "append") => Some(Error::Spelling {
            message: "`.append` on a tensor: a bracketed list of numbers (`[0.5]`) is a tensor \
                      in cudash, not a Python list"
                .into(),
            label: "Python's list".into(),
            help: "start the list empty, `xs = []` (or `list([0.5])`), then `xs.append(v)`".into(),
            class: "AttributeError",
        }),
        ("tensor", "resize_") => {
            let view = name.trim_end_matches('_');
            Some(Error::Spelling {
                message: format!(
                    "`.{name}()` changes a tensor's shape in place, which cudash's tensors cannot \
                     (a tensor's shape is fixed when it is made)"
                ),
                label: "an in-place change of shape".into(),
                help: format!("take the view under the same name: `x = x.{view}(...)` (the same memory, as `.{name}` keeps it)"),
                class: "AttributeError",
            })
        }
        ("list", "append") => Some(Error::Spelling {
            message: "'tuple' object has no attribute 'append' (`(a, b)`, or a result's parts)"
                .into(),
            label: "a tuple".into(),
            help: "copy it into a Python list first: `xs = list(parts)`, then `xs.append(v)`"
                .into(),
            class: "AttributeError",
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_as_strings() {
        assert!(matches!(
            device_string("cuda:1"),
            Some(Value::Device(d)) if d.get() == Device::Cuda(1)
        ));
        assert!(matches!(device_string("cuda"), Some(Value::CurrentCuda)));
        assert!(matches!(
            device_string("cpu"),
            Some(Value::Device(d)) if d.get() == Device::Cpu
        ));
        for not in ["cuda:", "cuda:-1", "cuda: 1", "gpu", "CUDA:0", "cuda:1x"] {
            assert!(device_string(not).is_none(), "{not}");
        }
    }

    #[test]
    fn torch_paths_name_the_builtin() {
        let e = dotted_hint(&["torch", "cuda", "synchronize"]).unwrap();
        assert!(e.help().unwrap().contains("`synchronize`"), "{e}");
        assert!(e.help().unwrap().contains("`import torch`"), "{e}");
        let e = dotted_hint(&["F", "relu"]).unwrap();
        assert!(
            e.help()
                .unwrap()
                .contains("import torch.nn.functional as F"),
            "{e}"
        );
        assert!(dotted_hint(&["x", "sum"]).is_none());
    }
}
