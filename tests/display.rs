//! PyTorch-style values on screen: alignment, float modes, summarisation, tags.

mod common;

#[test]
fn float_modes_match_pytorch() {
    shows!("[1., 2., 30.]" => "[ 1.,  2., 30.]  f32[3] @cpu");
    shows!("[0.5, -1.25]" => "[ 0.5000, -1.2500]  f32[2] @cpu");
    shows!("[1e-5, 1.]" => "[1.0000e-05, 1.0000e+00]  f32[2] @cpu");
    shows!("[1e10]" => "[1.0000e+10]  f32[1] @cpu");
    shows!("[1., 0.] / 0." => "[inf, nan]  f32[2] @cpu");
    shows!("tensor(3.5)" => "3.5000  f32[] @cpu");
    shows!("ones(2, 0)" => "[]  f32[2,0] @cpu");
    // Whole numbers far apart: PyTorch's ratio rule, not `1.` (checked
    // against PyTorch 2.15: `tensor([1.0000e+00, 1.0000e+04])`).
    shows!("[1., 10000.]" => "[1.0000e+00, 1.0000e+04]  f32[2] @cpu");
    shows!("[1., 1000.]" => "[   1., 1000.]  f32[2] @cpu");
}

/// `torch.set_printoptions`: precision, threshold and edge items, a
/// profile, sci_mode forced either way; PyTorch's values for each
/// (PyTorch 2.15 printed `tensor([1.12, 2.50])`, `tensor([0, 1, 2,  ...,
/// 7, 8, 9])`, `tensor([0.0000, 1.0000])`, `tensor([1.0000e+00, 2.0000e+00])`).
#[test]
fn print_options_are_pytorchs() {
    let out = common::ok(
        "import torch\ntorch.set_printoptions(precision=2)\nprint(torch.tensor([1.12345, 2.5]))\n\
         torch.set_printoptions(threshold=5)\nprint(torch.arange(10))\n\
         torch.set_printoptions(profile=\"short\", threshold=4)\nprint(torch.arange(10.) / 3)\n\
         torch.set_printoptions(profile=\"default\")\nprint(torch.tensor([1.12345]), torch.arange(10))\n\
         torch.set_printoptions(sci_mode=False)\nprint(torch.tensor([1e-6, 1.]))\n\
         torch.set_printoptions(sci_mode=True)\nprint(torch.tensor([1., 2.]))\n\
         torch.set_printoptions(4)\nprint(torch.tensor([1e-6, 1.]))",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "[1.12, 2.50]  f32[2] @cpu",
            "[0, 1, 2,  ..., 7, 8, 9]  i64[10] @cpu",
            "[0.00, 0.33,  ..., 2.67, 3.00]  f32[10] @cpu",
            "[1.1235]  f32[1] @cpu [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]  i64[10] @cpu",
            "[0.0000, 1.0000]  f32[2] @cpu",
            "[1.0000e+00, 2.0000e+00]  f32[2] @cpu",
            "[1.0000e-06, 1.0000e+00]  f32[2] @cpu",
        ]
    );
    // A new session starts from PyTorch's defaults.
    assert_eq!(
        common::ok("print(tensor([1.12345]))"),
        "[1.1235]  f32[1] @cpu"
    );
}

#[test]
fn three_dimensions_get_blank_lines() {
    shows!("arange(8).reshape(2, 2, 2)" => "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]\ni64[2,2,2] @cpu");
}

#[test]
fn long_rows_wrap_at_80_columns() {
    let out = common::ok("arange(40)");
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    assert!(out.lines().count() > 2);
}

#[test]
fn large_tensors_are_summarised() {
    insta::assert_snapshot!(common::ok("arange(2000).reshape(40, 50)"));
    insta::assert_snapshot!(common::ok("arange(1001)"));
    let exactly = common::ok("arange(1000)");
    assert!(!exactly.contains("..."), "1000 elements are shown in full");
}

#[test]
fn every_dtype_displays_with_its_tag() {
    for (dt, want) in [
        ("bool", "[true, true]"),
        ("i32", "[1, 2]"),
        ("i64", "[1, 2]"),
        ("f16", "[1., 2.]"),
        ("bf16", "[1., 2.]"),
        ("f32", "[1., 2.]"),
        ("f64", "[1., 2.]"),
    ] {
        let out = common::ok(&format!("[1, 2].to({dt})"));
        assert_eq!(out, format!("{want}  {dt}[2] @cpu"));
    }
}

#[test]
fn half_precision_rounds_like_half() {
    shows!("[0.1].to(f16).to(f64)" => "[0.1000]  f64[1] @cpu");
    shows!("([0.1].to(f16).to(f64) * 10000).to(i64)" => "[999]  i64[1] @cpu");
    shows!("([0.1].to(bf16).to(f64) * 10000).to(i64)" => "[1000]  i64[1] @cpu");
}

#[test]
fn other_values() {
    shows!("cpu" => "cpu");
    shows!("f16" => "f16");
    shows!("\"hi\"" => "\"hi\"");
    shows!("none" => "");
    shows!("randn" => "<builtin randn(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false, generator=none)>");
    shows!("ones(2, 3).shape" => "[2, 3]");
    shows!("print(\"a\", 1, 2.5, ones(1))" => "a 1 2.5 [1.]  f32[1] @cpu");
}

/// A Python program prints what Python prints: an instance, a function, a
/// lambda and an autograd node with the address `id()` gives (as CPython's
/// reprs), a builtin as `<built-in function len>`; a cell of cudash's
/// language keeps its short forms.
#[test]
fn a_python_program_prints_pythons_reprs() {
    let out = common::script_lines_on(
        0,
        "reprs",
        "import torch
class Foo:
    pass
def f():
    pass
o = Foo()
y = torch.ones(2, requires_grad=True) * 2
print(o, hex(id(o)))
print(f, hex(id(f)))
print(lambda x: x)
print(y.grad_fn, hex(id(y.grad_fn)), y.grad_fn is y.grad_fn)
print(len)
",
    );
    let address = |line: &str, before: &str| -> (String, String) {
        let (text, id) = line.rsplit_once(' ').unwrap();
        let shown = text
            .strip_prefix(before)
            .and_then(|r| r.strip_suffix('>'))
            .unwrap_or_else(|| panic!("{line}"));
        (shown.to_string(), id.to_string())
    };
    let (a, id) = address(&out[0], "<__main__.Foo object at ");
    assert_eq!(a, id, "{out:?}");
    let (a, id) = address(&out[1], "<function f at ");
    assert_eq!(a, id, "{out:?}");
    assert!(out[2].starts_with("<function <lambda> at 0x"), "{out:?}");
    let (node, same) = out[3].rsplit_once(' ').unwrap();
    assert_eq!(same, "True");
    let (a, id) = address(node, "<MulBackward0 object at ");
    assert_eq!(a, id, "{out:?}");
    assert_eq!(out[4], "<built-in function len>");
    assert_eq!(common::ok("len"), "<builtin len(obj)>");
}

/// A Python program's DataLoader, dataset, sampler, hook handle, iterator
/// and scheduler print as Python's objects do (`<torch.utils.data.
/// dataloader.DataLoader object at 0x...>`, the address `id()` gives); a
/// cell keeps cudash's description.
#[test]
fn a_python_programs_objects_print_as_pythons() {
    let out = common::script_lines_on(
        0,
        "object_reprs",
        "import torch
from torch.utils.data import TensorDataset, DataLoader, RandomSampler
ds = TensorDataset(torch.ones(4, 2))
dl = DataLoader(ds, batch_size=2)
m = torch.nn.Linear(1, 1)
for o in [ds, dl, RandomSampler(ds), m.register_forward_hook(lambda *a: None), iter([1]),
          enumerate([1]), iter(dl), map(str, [1]),
          torch.optim.lr_scheduler.StepLR(torch.optim.SGD(m.parameters(), lr=0.1), 1)]:
    print(o, hex(id(o)))
",
    );
    let classes = [
        "torch.utils.data.dataset.TensorDataset",
        "torch.utils.data.dataloader.DataLoader",
        "torch.utils.data.sampler.RandomSampler",
        "torch.utils.hooks.RemovableHandle",
        "list_iterator",
        "enumerate",
        "torch.utils.data.dataloader._SingleProcessDataLoaderIter",
        "map",
        "torch.optim.lr_scheduler.StepLR",
    ];
    assert_eq!(out.len(), classes.len(), "{out:?}");
    for (line, class) in out.iter().zip(classes) {
        let (text, id) = line.rsplit_once(' ').unwrap();
        assert_eq!(text, format!("<{class} object at {id}>"), "{out:?}");
    }
    assert!(common::ok("TensorDataset(ones(4, 2))").starts_with("TensorDataset of 4 samples"));
}
