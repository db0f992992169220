//! Saved tensors and their hooks (`torch.autograd.graph`): what a node
//! keeps for backward, `save_on_cpu` moving it off the GPU, and the pinned
//! round trip that makes it work (a non-blocking download, then an upload
//! on the same stream). PyTorch's tutorial as pasted is
//! tests/pasted/saved_tensor_hooks.py; here, what a GPU's memory shows.

mod common;

use common::warnings;

/// A forward pass keeps its activations on the GPU for backward; under
/// `save_on_cpu` it keeps none there (they wait in pinned host memory),
/// and backward, copying them back, computes the same gradients.
const SAVE_ON_CPU: &str = include_str!("../benches/gpu/save_on_cpu.py");

#[test]
fn save_on_cpu_keeps_no_activation_on_the_gpu() {
    let lines = common::script_lines_on(1, "save_on_cpu", SAVE_ON_CPU);
    // ReLU's two results of 128 x 256 floats (each also the next Linear's
    // input): 2 x 128 KiB; the loss's scalar is a 512-byte block.
    assert_eq!(
        lines,
        ["plain 262656", "save_on_cpu 512", "True"],
        "{lines:?}"
    );
}

#[test]
fn save_on_cpu_runs_on_emu_too() {
    assert_eq!(
        common::script_lines_on_emu("save_on_cpu_emu", SAVE_ON_CPU),
        ["plain 262656", "save_on_cpu 512", "True"]
    );
}

/// A non-blocking download lands in pinned memory and the host must wait
/// before reading it; an upload of it queued on the same stream runs after
/// the download, so it carries the downloaded values (what `save_on_cpu`'s
/// unpack relies on). From another stream it races the download: warned,
/// and it carries the bytes from before.
#[test]
fn an_upload_on_the_downloads_stream_waits_for_it() {
    let mut s = common::session();
    let o = s.execute(
        "A = randn(1000, device=cuda:0)\nh = A.to(cpu, non_blocking=true)\nB = h.to(cuda:0, non_blocking=true)\nC = h.to(cuda:0)\n((B == A).all() & (C == A).all()).item()",
    );
    assert!(o.error.is_none(), "{:?}", o.error);
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(o.plain_text(), "true");

    let o = s.execute(
        "A = randn(1000, device=cuda:0)\nh = A.to(cpu, non_blocking=true)\nstream s { B = h.to(cuda:0, non_blocking=true) }\nwait s\n(B == 0).all().item()",
    );
    assert!(o.error.is_none(), "{:?}", o.error);
    let w = warnings(&o);
    assert_eq!(w.len(), 1, "{w:?}");
    for part in ["`h`", "stream `s`", "`default`"] {
        assert!(w[0].contains(part), "{part} missing from: {}", w[0]);
    }
    assert_eq!(
        o.plain_text().lines().last(),
        Some("true"),
        "the racing upload saw fresh pinned memory"
    );
}

/// Factories make pinned tensors as PyTorch's do (`pin_memory=True`), only
/// on the host; `layout=` is a dense tensor's.
#[test]
fn factories_take_pin_memory_and_layout() {
    let lines = common::script_lines_on(
        1,
        "pinned_factories",
        "import torch\nprint(torch.empty(3, pin_memory=True).is_pinned(), torch.zeros(2, 2, pin_memory=True).is_pinned(), torch.randn(4, pin_memory=True).is_pinned(), torch.ones(2).is_pinned())\nprint(torch.empty(2, layout=torch.strided).shape)\ntry:\n    torch.zeros(2, device='cuda', pin_memory=True)\nexcept RuntimeError as e:\n    print(e)\n",
    );
    assert_eq!(
        lines,
        [
            "True True True False",
            "torch.Size([2])",
            "Only dense CPU tensors can be pinned"
        ]
    );
}
