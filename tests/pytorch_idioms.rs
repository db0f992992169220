//! What PyTorch programs reach for beyond the everyday (`python_everyday.rs`):
//! containers of parameters and the tensor functions of model code, each
//! printing what PyTorch 2.15 printed for the same program (tensors shown
//! through `tolist()`, since cudash's own display adds the device tag).

mod common;

/// The lines `cudash --sim-devices N script name.py` printed; it must
/// succeed and print nothing on stderr.
fn printed_on(devices: u32, name: &str, src: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("cudash-idioms-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("{name}.py");
    std::fs::write(dir.join(&file), src).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", &devices.to_string(), "script", &file])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.is_empty() && o.status.success(), "{err}");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn printed(name: &str, src: &str) -> Vec<String> {
    printed_on(0, name, src)
}

/// `nn.ParameterList` and `nn.ParameterDict` in a model: registered under
/// the owner's name, shown as PyTorch's `extra_repr` shows them, trained
/// by an optimizer, indexed, iterated, extended and updated; a plain
/// dict's entries go in sorted by key, as PyTorch's `update` puts them.
#[test]
fn parameter_list_and_dict_are_pytorchs() {
    let out = printed(
        "parameter_containers",
        r#"import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.ws = nn.ParameterList([nn.Parameter(torch.ones(2, 2) * i) for i in range(3)])
        self.pd = nn.ParameterDict({"b": torch.zeros(2), "a": nn.Parameter(torch.ones(2))})
    def forward(self, x):
        for w in self.ws:
            x = x @ w
        return x + self.pd["a"] + self.pd.b
net = Net()
print(net)
print([n for n, _ in net.named_parameters()], list(net.state_dict().keys()))
net(torch.ones(1, 2)).sum().backward()
print(net.ws[1].grad.tolist(), net.pd["a"].grad.tolist(), type(net.pd["b"]).__name__)
pl = nn.ParameterList([torch.ones(1)])
pl.append(torch.zeros(2)).extend([nn.Parameter(torch.ones(3))])
print(len(pl), [p.shape[0] for p in pl], [n for n, _ in pl.named_parameters()], pl[-1].is_leaf)
print(pl[1:])
pl[0] = torch.full((2,), 5.)
print(pl[0].tolist(), pl[0].requires_grad)
pd = nn.ParameterDict()
pd["y"] = torch.ones(1)
pd.update([("x", torch.zeros(1))])
print(list(pd.keys()), len(pd), "x" in pd, [k for k in pd], pd.get("z", 3))
for k, v in pd.items():
    print(k, v.tolist())
print(pd.pop("y").tolist(), list(pd))
opt = torch.optim.SGD(pl.parameters(), lr=0.5)
(pl[0] * 2).sum().backward()
opt.step()
print(pl[0].tolist(), list(pl.state_dict().keys()))
print(nn.ParameterList([torch.ones(2)]), nn.ParameterList())
print(isinstance(pd, nn.ParameterDict), isinstance(pl, nn.Module))
"#,
    );
    assert_eq!(
        out,
        [
            "Net(",
            "  (ws): ParameterList(",
            "      (0): Parameter containing: [torch.float32 of size 2x2]",
            "      (1): Parameter containing: [torch.float32 of size 2x2]",
            "      (2): Parameter containing: [torch.float32 of size 2x2]",
            "  )",
            "  (pd): ParameterDict(",
            "      (a): Parameter containing: [torch.FloatTensor of size 2]",
            "      (b): Parameter containing: [torch.FloatTensor of size 2]",
            "  )",
            ")",
            "['ws.0', 'ws.1', 'ws.2', 'pd.a', 'pd.b'] ['ws.0', 'ws.1', 'ws.2', 'pd.a', 'pd.b']",
            "[[0.0, 0.0], [0.0, 0.0]] [1.0, 1.0] Parameter",
            "3 [1, 2, 3] ['0', '1', '2'] True",
            "ParameterList(",
            "    (0): Parameter containing: [torch.float32 of size 2]",
            "    (1): Parameter containing: [torch.float32 of size 3]",
            ")",
            "[5.0, 5.0] True",
            "['y', 'x'] 2 True ['y', 'x'] 3",
            "y [1.0]",
            "x [0.0]",
            "[1.0] ['x']",
            "[4.0, 4.0] ['0', '1', '2']",
            "ParameterList(  (0): Parameter containing: [torch.float32 of size 2]) ParameterList()",
            "True True",
        ]
    );
}

/// What PyTorch says when a parameter container is misused, and the
/// container methods of ModuleDict and ModuleList (`keys`, `pop`,
/// `update`, `extend`, `in`).
#[test]
fn container_errors_and_module_container_methods_are_pytorchs() {
    let out = printed(
        "container_errors",
        r#"import torch
import torch.nn as nn
pl = nn.ParameterList([torch.ones(2)])
for f in [lambda: pl(torch.ones(1)), lambda: pl[5], lambda: nn.ParameterDict({"a": torch.ones(1)})["zz"],
          lambda: nn.ParameterList([torch.arange(3)]), lambda: pl.extend(torch.ones(2)),
          lambda: nn.ParameterDict([("a", torch.ones(1), 3)]), lambda: nn.ParameterDict().pop("q"),
          lambda: nn.Linear(1, 1).keys(), lambda: nn.ModuleList().get("a"), lambda: nn.ModuleList()[0]]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
print(list(md.keys()), len(md), "a" in md, "z" in md)
print(md.pop("b"), list(md.keys()))
md.update([("c", nn.Sigmoid())])
print(md)
ml = nn.ModuleList([nn.ReLU()])
ml.extend([nn.Tanh(), nn.Tanh()])
print(ml, ml[1] in ml)
"#,
    );
    assert_eq!(
        out,
        [
            "RuntimeError ParameterList should not be called.",
            "IndexError index 5 is out of range",
            "AttributeError 'ParameterDict' object has no attribute 'zz'",
            "RuntimeError Only Tensors of floating point and complex dtype can require gradients",
            "TypeError ParameterList.extend should be called with an iterable, but got Tensor",
            "ValueError ParameterDict update sequence element #0 has length 3; 2 is required",
            "AttributeError 'ParameterDict' object has no attribute 'q'",
            "AttributeError 'Linear' object has no attribute 'keys'",
            "AttributeError 'ModuleList' object has no attribute 'get'",
            "IndexError index 0 is out of range",
            "['b', 'a'] 2 True False",
            "ReLU() ['a']",
            "ModuleDict(",
            "  (a): Tanh()",
            "  (c): Sigmoid()",
            ")",
            "ModuleList(",
            "  (0): ReLU()",
            "  (1-2): 2 x Tanh()",
            ") True",
        ]
    );
}

/// On a GPU the lines name the device, as PyTorch's `extra_repr` does
/// (a dict its legacy `torch.cuda.FloatTensor` type).
#[test]
fn parameter_containers_on_a_device_name_it() {
    let out = printed_on(
        1,
        "parameter_containers_cuda",
        "import torch\nimport torch.nn as nn\nprint(nn.ParameterList([torch.ones(2), torch.ones(1)]).to(\"cuda\"))\nprint(nn.ParameterDict({\"a\": torch.ones(2, 3)}).cuda())\n",
    );
    assert_eq!(
        out,
        [
            "ParameterList(",
            "    (0): Parameter containing: [torch.float32 of size 2 (cuda:0)]",
            "    (1): Parameter containing: [torch.float32 of size 1 (cuda:0)]",
            ")",
            "ParameterDict(  (a): Parameter containing: [torch.cuda.FloatTensor of size 2x3 (cuda:0)])",
        ]
    );
}

/// `parameters_to_vector` (a `cat` of views: gradients reach each
/// parameter) and `vector_to_parameters`, as torch.nn.utils gives them.
#[test]
fn parameters_to_vector_and_back_are_pytorchs() {
    let out = printed(
        "parameters_to_vector",
        r#"import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters
torch.manual_seed(0)
m = nn.Linear(2, 2)
v = parameters_to_vector(m.parameters())
print(v.shape, v.grad_fn.name(), v.grad_fn.next_functions[0][0].name())
(v * torch.arange(6.)).sum().backward()
print(m.weight.grad.tolist(), m.bias.grad.tolist())
vector_to_parameters(torch.arange(6.), m.parameters())
print(m.weight.tolist(), m.bias.tolist(), m.weight.requires_grad, m.weight.grad_fn)
for f in [lambda: vector_to_parameters([1.0], m.parameters()), lambda: vector_to_parameters(torch.ones(5), m.parameters())]:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
"#,
    );
    assert_eq!(
        out,
        [
            "torch.Size([6]) CatBackward0 ViewBackward0",
            "[[0.0, 1.0], [2.0, 3.0]] [4.0, 5.0]",
            "[[0.0, 1.0], [2.0, 3.0]] [4.0, 5.0] True None",
            "TypeError expected torch.Tensor, but got: list",
            "RuntimeError shape '[2]' is invalid for input of size 1",
        ]
    );
}
