//! The everyday Python of a PyTorch training script (issue 68): imports as
//! namespaces of cudash's builtins under PyTorch's names, tuples as
//! values and nested unpacking, `range`, f-strings and Python's other
//! string formatting, each as Python and PyTorch give it.

mod common;

/// The lines a program printed (each `print`'s text), without the echo.
fn printed(src: &str) -> Vec<String> {
    common::ok(src).lines().map(str::to_string).collect()
}

/// The lines a Python program (`name.py`, run as `cudash script`) printed;
/// what it wrote to stderr must be empty.
fn python_printed(name: &str, src: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("cudash-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.py"));
    std::fs::write(&file, src).unwrap();
    let out = run_python(&file, None);
    std::fs::remove_dir_all(&dir).unwrap();
    out
}

/// What `cudash script file` printed (run in `cwd` when given): each line;
/// it must print nothing on stderr and succeed.
fn run_python(file: &std::path::Path, cwd: Option<&std::path::Path>) -> Vec<String> {
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"));
    run.args(["--sim-devices", "0", "script"])
        .arg(file)
        .env("NO_COLOR", "1");
    if let Some(cwd) = cwd {
        run.current_dir(cwd);
    }
    let o = run.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.is_empty() && o.status.success(), "{err}");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn imports_bind_pytorchs_names() {
    let out = printed(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\
         from torch import optim\nfrom torch.utils.data import (DataLoader,\n    TensorDataset)\n\
         import torch.optim.lr_scheduler\nimport time, math\n\
         print(torch, nn, F, optim)\n\
         print(torch.zeros(2).shape, nn.Linear is Linear, F.relu(torch.tensor([-1., 2.])).tolist())\n\
         print(torch.float32, torch.long, torch.bool, torch.optim.lr_scheduler.StepLR is StepLR)\n\
         print(DataLoader is torch.utils.data.DataLoader, math.sqrt(16), math.pi > 3, math.floor(2.7))\n\
         print(torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\"))\n\
         t0 = time.time(); print(time.time() - t0 >= 0)",
    );
    assert_eq!(
        out,
        [
            "<module 'torch'> <module 'torch.nn'> <module 'torch.nn.functional'> <module 'torch.optim'>",
            "torch.Size([2]) True [0.0, 2.0]",
            "torch.float32 torch.int64 torch.bool True",
            "True 4.0 True 2",
            "cuda",
            "True",
        ],
    );
}

#[test]
fn no_grad_is_a_with_context() {
    let out = printed(
        "import torch\nw = torch.ones(2, requires_grad=True)\n\
         with torch.no_grad():\n    y = w * 2\n\
         print(y.requires_grad, torch.is_grad_enabled())\n\
         with torch.no_grad():\n    with torch.enable_grad():\n        z = w * 2\n\
         print(z.requires_grad)",
    );
    assert_eq!(out, ["False True", "True"]);
}

#[test]
fn what_cudash_lacks_is_an_error_that_says_so() {
    for (src, class, what) in [
        (
            "import torch\ntorch.fft",
            "AttributeError",
            "cudash has no `torch.fft`",
        ),
        (
            "from torch.nn import FractionalMaxPool2d",
            "AttributeError",
            "cudash has no `torch.nn.FractionalMaxPool2d`",
        ),
        (
            "import torchvision.ops",
            "ModuleNotFoundError",
            "cudash's torchvision has no `torchvision.ops`",
        ),
        (
            "from torchvision import tv_tensors",
            "ModuleNotFoundError",
            "cudash's torchvision has no `torchvision.tv_tensors`",
        ),
        (
            "import numpy.linalg",
            "ModuleNotFoundError",
            "cudash's NumPy has no `numpy.linalg`",
        ),
        (
            "import zipfile",
            "ModuleNotFoundError",
            "no module `zipfile`",
        ),
        (
            "from collections import UserDict",
            "AttributeError",
            "cudash has no `collections.UserDict`",
        ),
        (
            "import torch.fancy",
            "ModuleNotFoundError",
            "cudash has no `torch.fancy`",
        ),
        ("torch.zeros(2)", "NameError", "needs `import torch` first"),
    ] {
        let (ename, evalue) = common::err(src);
        assert_eq!(ename, class, "{src}: {evalue}");
        assert!(evalue.contains(what), "{src}: {evalue}");
    }
    // A near miss is named.
    let (_, report) = common::err_report("import torch\ntorch.cuda.empty_Cache()");
    assert!(
        report.contains("did you mean `torch.cuda.empty_cache`?"),
        "{report}"
    );
}

#[test]
fn tuples_are_values_and_unpack_at_any_depth() {
    let out = printed(
        "t = (1, 2)\nprint(t, type(t) if False else len(t), ())\n\
         a, b = 1, 2\na, b = b, a\nprint(a, b)\n\
         (c, d), e = (3, 4), 5\nprint(c, d, e)\n\
         pairs = [(0, (10, 11)), (1, (20, 21))]\n\
         for i, (x, y) in pairs:\n    print(i, x + y)\n\
         def two():\n    return 7, 8\n\
         p, q = two()\nprint(p * q)\n\
         print(zeros((2, 3)).shape, ones(2, 3).sum(dim=(0, 1)).item())",
    );
    assert_eq!(
        out,
        [
            "(1, 2) 2 ()",
            "2 1",
            "3 4 5",
            "0 21",
            "1 41",
            "56",
            "torch.Size([2, 3]) 6.0"
        ]
    );
}

#[test]
fn a_loader_unpacks_in_the_for_header() {
    let out = printed(
        "ds = TensorDataset(arange(6.), arange(6))\n\
         for batch, (X, y) in enumerate(DataLoader(ds, batch_size=4)):\n    print(batch, X.shape, y.tolist())",
    );
    assert_eq!(
        out,
        ["0 torch.Size([4]) [0, 1, 2, 3]", "1 torch.Size([2]) [4, 5]"]
    );
}

#[test]
fn range_counts_as_python() {
    let out = printed(
        "print(list(range(4)), list(range(2, 10, 3)), list(range(5, 0, -2)), len(range(0, 10, 3)))\n\
         for i in range(3):\n    print(i)\n\
         print(range(1, 4), list(range(3, 1)))",
    );
    assert_eq!(
        out,
        [
            "[0, 1, 2, 3] [2, 5, 8] [5, 3, 1] 4",
            "0",
            "1",
            "2",
            "range(1, 4) []"
        ]
    );
    let (ename, evalue) = common::err("range(1, 5, 0)");
    assert_eq!(
        (ename.as_str(), evalue.as_str()),
        ("ValueError", "range() arg 3 must not be zero")
    );
}

#[test]
fn fstrings_format_as_python() {
    let out = printed(
        "import torch\nloss = torch.tensor(2.302112)\ncurrent, size = 64, 60000\n\
         print(f\"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]\")\n\
         correct = 0.4567\n\
         print(f\"Accuracy: {(100*correct):>0.1f}%, Avg loss: {loss.item():>8f}\")\n\
         x = 3\nprint(f\"{x=} {x!r:>3} {'q'} {{x}} {x:{x}d}|{x*2}\")\n\
         print(f'''a\n{x}''')\n\
         print(f\"{loss}\", f\"{torch.tensor(7)}\", f\"{1e-6} {0.1 + 0.2} {True} {None}\")",
    );
    assert_eq!(
        out,
        [
            "loss: 2.302112  [   64/60000]",
            "Accuracy: 45.7%, Avg loss: 2.302112",
            "x=3   3 q {x}   3|6",
            "a",
            "3",
            "2.302112102508545 7 1e-06 0.30000000000000004 True None",
        ]
    );
}

#[test]
fn percent_format_and_concatenation_as_python() {
    let out = printed(
        "import torch\nloss = torch.tensor(0.5)\n\
         print(\"%d/%d (%.0f%%)\" % (3, 4, 75.0), \"loss %.4f\" % loss, \"%5s|\" % \"ab\")\n\
         print(\"{} and {:.2f} {name}\".format(\"a\", 3.14159, name=\"n\"))\n\
         print(\"a\" + \"b\", \"-\" * 3, \", \".join([\"x\", \"y\"]), \"A b\".lower().split())",
    );
    assert_eq!(
        out,
        [
            "3/4 (75%) loss 0.5000    ab|",
            "a and 3.14 n",
            "ab --- x, y ['a', 'b']",
        ]
    );
    let (ename, evalue) = common::err("\"loss: \" + 1.5");
    assert_eq!(ename, "TypeError");
    assert_eq!(evalue, "can only concatenate str (not \"float\") to str");
}

/// An f-string's mistake points at its column inside the string.
#[test]
fn fstring_errors_point_into_the_string() {
    for (src, at, what) in [
        ("x = f\"a {1 +} b\"", "cell:1:13", "f-string"),
        ("x = f\"a {} b\"", "cell:1:9", "empty expression"),
        ("x = f\"a {x b\"", "cell:1:9", "expecting '}'"),
        ("x = f\"a } b\"", "cell:1:9", "single '}'"),
        ("x = f\"{1!z}\"", "cell:1:9", "invalid conversion"),
    ] {
        let (_, report) = common::err_report(src);
        assert!(report.contains(at), "{src}: {report}");
        assert!(report.contains(what), "{src}: {report}");
    }
    let (ename, evalue) = common::err("f\"{zeros(2):.2f}\"");
    // PyTorch's: `object.__format__` refuses the spec.
    assert_eq!(ename, "TypeError", "{evalue}");
    assert!(evalue.contains("Tensor.__format__"), "{evalue}");
}

#[test]
fn lambdas_comprehensions_and_spread_arguments() {
    let out = printed(
        "sq = lambda x, p=2: x ** p\nprint(sq(3), sq(2, 3), (lambda: 7)())\n\
         print([i * i for i in range(5) if i % 2 == 0], [(a, b) for a in range(2) for b in range(2) if a != b])\n\
         print({k: v for k, v in zip([\"a\", \"b\"], (1, 2))}[\"b\"], sum(x for x in range(4)), sorted([3, 1, 2], reverse=True))\n\
         def f(a, b, c=0):\n    return a * 100 + b * 10 + c\n\
         args = (1, 2)\nkw = {\"c\": 3}\nprint(f(*args, **kw), f(*(4, 5)))\n\
         def count(xs):\n    return len([x for x in xs if x > 1])\n\
         print(count(range(5)), max(range(4)), min(3, 1, 2))\n\
         names = []\nnames.append(\"w\")\nprint(names, [])",
    );
    assert_eq!(
        out,
        [
            "9 8 7",
            "[0, 4, 16] [(0, 1), (1, 0)]",
            "2 6 [3, 2, 1]",
            "123 450",
            "3 3 1",
            "['w'] []",
        ]
    );
}

#[test]
fn assert_is_pythons() {
    common::ok("assert 1 + 1 == 2\nassert True, \"never\"");
    let (ename, evalue) = common::err("x = 3\nassert x < 2, f\"x is {x}\"");
    assert_eq!(
        (ename.as_str(), evalue.as_str()),
        ("AssertionError", "x is 3")
    );
    let (ename, _) = common::err("assert []");
    assert_eq!(ename, "AssertionError");
}

/// Every syntax error of a file at once, each at its own line.
#[test]
fn every_syntax_error_is_reported() {
    let (_, report) = common::err_report("x = 1 +\nprint(1)\ndef f(a b):\n    pass\nz = 3 3\n");
    for at in ["cell:1:8", "cell:3:9", "cell:5:7"] {
        assert!(report.contains(at), "{at} not in\n{report}");
    }
}

#[test]
fn try_except_finally_and_raise_as_python() {
    let out = printed(
        "import torch\n\
         try:\n    x = torch.ones(2) + torch.ones(3)\nexcept RuntimeError as e:\n    print(\"caught\", str(e)[:6])\n\
         try:\n    raise ValueError(\"bad value\")\nexcept (KeyError, ValueError) as e:\n    print(f\"got {e!r}\", e)\nelse:\n    print(\"no\")\nfinally:\n    print(\"finally\")\n\
         def risky(n):\n    try:\n        if n > 1:\n            raise KeyError(\"k\")\n        return \"ok\"\n    except KeyError:\n        return \"handled\"\n    finally:\n        print(\"cleanup\", n)\n\
         print(risky(0), risky(2))\n\
         try:\n    try:\n        undefined_name\n    except NameError:\n        print(\"inner\")\n        raise\nexcept Exception as e:\n    print(\"outer\", type(e) if False else \"NameError\")\n\
         for i in range(3):\n    try:\n        if i == 1:\n            continue\n        print(\"body\", i)\n    finally:\n        print(\"end\", i)",
    );
    assert_eq!(
        out,
        [
            "caught shapes",
            "got ValueError('bad value') bad value",
            "finally",
            "cleanup 0",
            "cleanup 2",
            "ok handled",
            "inner",
            "outer NameError",
            "body 0",
            "end 0",
            "end 1",
            "body 2",
            "end 2",
        ]
    );
    // What no handler takes goes on up, as it was raised.
    let (ename, evalue) =
        common::err("try:\n    raise KeyError(\"k\")\nexcept ValueError:\n    pass");
    // Python's `KeyError: 'k'` (a KeyError's text is its key's repr).
    assert_eq!((ename.as_str(), evalue.as_str()), ("KeyError", "'k'"));
    let (ename, _) = common::err("raise");
    assert_eq!(ename, "RuntimeError");
    let (ename, _) = common::err("try:\n    pass\nexcept 3:\n    pass\nraise ValueError");
    assert_eq!(ename, "ValueError");
    // Out of memory is PyTorch's OutOfMemoryError, a RuntimeError.
    let out = printed(
        "import torch\ntry:\n    x = torch.empty(2 ** 40, device=\"cuda\")\nexcept torch.cuda.OutOfMemoryError as e:\n    print(\"out of memory\")\nprint(torch.cuda.memory_allocated())",
    );
    assert_eq!(out, ["out of memory", "0"]);
}

#[test]
fn star_parameters_take_what_is_left() {
    let out = printed(
        "def f(*args, **kwargs):\n    return len(args), sorted(kwargs)\n\
         print(f(1, 2, a=3, b=4), f())\n\
         def g(a, *rest, scale=2):\n    return a + sum(rest) * scale\n\
         print(g(1), g(1, 2, 3), g(1, 2, scale=10))\nprint(g)",
    );
    assert_eq!(
        out,
        [
            "(2, ['a', 'b']) (0, [])",
            "1 11 21",
            "<function g(a, *rest, scale=2)>"
        ]
    );
    let (ename, _) = common::err("def h(**kw, a):\n    pass");
    assert_eq!(ename, "SyntaxError");
}

#[test]
fn global_iter_and_next_as_python() {
    let out = printed(
        "count = 0\ndef bump():\n    global count\n    count += 1\n    return count\nbump(); bump()\nprint(count)\n\
         dl = DataLoader(TensorDataset(arange(6.), arange(6)), batch_size=4)\n\
         X, y = next(iter(dl))\nprint(X.tolist(), y.tolist())\n\
         it = iter(dl)\na = next(it); b = next(it)\nprint(b[1].tolist(), next(it, \"done\"))\n\
         it2 = iter([\"x\", \"y\"])\nprint(next(it2), list(it2))",
    );
    // The cell shows each bump()'s value, as Python's REPL does.
    assert_eq!(
        out,
        [
            "1",
            "2",
            "2",
            "[0.0, 1.0, 2.0, 3.0] [0, 1, 2, 3]",
            "[4, 5] done",
            "x ['y']"
        ]
    );
    let (ename, _) = common::err("next(iter(range(0)))");
    assert_eq!(ename, "StopIteration");
}

/// A method call's fast path still finds an instance's own attribute
/// first, also one a class method added later would have hidden.
#[test]
fn an_instances_own_attribute_hides_its_classs_method() {
    let out = printed(
        "class C:\n    def f(self):\n        return 1\n\
         c = C()\nprint(c.f())\nc.f = lambda: 2\nprint(c.f())\n\
         d = C()\nd.g = lambda: 3\nC.g = lambda self: 4\nprint(d.g(), C().g())\n\
         for i in range(2):\n    print(c.f(), d.g())",
    );
    assert_eq!(out, ["1", "2", "3 4", "2 3", "2 3"]);
}

#[test]
fn print_takes_sep_and_end() {
    let out = common::ok(
        "for i in range(3):\n    print(i, end=\" \")\nprint(\"a\", \"b\", sep=\"-\")\nprint(\"x\", end=\"\")\nprint(\"y\")\nprint(\"open\", end=\"\")",
    );
    assert_eq!(out, "0 1 2 a-b\nxy\nopen");
}

/// The quickstart's device line, and a device's `type` and `index`.
#[test]
fn the_accelerator_and_a_devices_parts() {
    let out = printed(
        "import torch\nd = torch.device(\"cuda:1\")\nprint(d.type, d.index, torch.device(\"cpu\").type, torch.device(\"cpu\").index)\n\
         device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else \"cpu\"\n\
         print(f\"Using {device} device\", torch.accelerator.device_count())",
    );
    assert_eq!(out, ["cuda 1 cpu None", "Using cuda device 2"]);
    let mut cpu = common::cpu_session();
    let out = common::ok_in(
        &mut cpu,
        "import torch\nprint(torch.accelerator.is_available(), torch.accelerator.current_accelerator())",
    );
    assert_eq!(out, "False None");
}

/// `copy.deepcopy` of a state_dict and of a model (new memory, parameters
/// stay parameters), `copy.copy` of a list, `torch.equal` and
/// `torch.allclose`: each line as PyTorch 2.15 printed it.
#[test]
fn deep_copies_and_comparisons_are_pytorchs() {
    let out = printed(
        "import copy
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
best = copy.deepcopy(model.state_dict())
with torch.no_grad():
    _ = model[0].weight.add_(1.0)
print(torch.equal(best['0.weight'] + 1, model[0].weight), best['0.weight'].requires_grad)
_ = model.load_state_dict(best)
print(torch.equal(best['0.weight'], model[0].weight))
twin = copy.deepcopy(model)
with torch.no_grad():
    _ = twin[2].bias.fill_(5.0)
print(model[2].bias.item() != 5.0, twin[2].bias.item(), isinstance(twin[2].bias, nn.Parameter), twin[2].bias.requires_grad)
xs = [torch.ones(2), list(range(1, 3))]
ys = copy.deepcopy(xs)
_ = ys[0].add_(1)
ys[1].append(3)
print(xs[0].tolist(), xs[1], ys[1])
w = torch.ones(2, requires_grad=True)
try:
    copy.deepcopy(w * 2)
except RuntimeError as e:
    print('RuntimeError:', str(e)[:50])
zs = copy.copy(xs)
zs.append(9)
print(len(xs), len(zs))
inf, nan = float('inf'), float('nan')
print(torch.allclose(torch.tensor([1., 2., inf]), torch.tensor([1., 2.000001, inf])), torch.allclose(torch.tensor([nan]), torch.tensor([nan])), torch.allclose(torch.tensor([nan]), torch.tensor([nan]), equal_nan=True), torch.equal(torch.ones(2), torch.ones(3)), torch.allclose(torch.ones(2, 3), torch.ones(3)), torch.allclose(torch.tensor([1.0]), torch.tensor([1.1]), atol=0.2))
",
    );
    assert_eq!(
        out,
        [
            "True False",
            "True",
            "True 5.0 True True",
            "[1.0, 1.0] [1, 2] [1, 2, 3]",
            "RuntimeError: Only Tensors created explicitly by the user (graph",
            "2 3",
            "True False True False True True"
        ]
    );
}

/// Python's dicts are one object for every name that holds them: a
/// function fills the caller's, an attribute's dict changes in place
/// (`self.w2i[w] = i`), `update`/`pop`/`setdefault`/`clear`/`copy`, `d[k]
/// += v`, a list or dict inside a dict grown in place, a missing key a
/// KeyError, `class Vocab(object)`. Every line as Python 3.11 prints it.
#[test]
fn dicts_are_shared_and_change_in_place() {
    let out = printed(
        r#"def fill(h, k):
    h[k] = len(h)
hist = {}
alias = hist
fill(hist, "a")
fill(hist, "b")
print(hist, alias is hist, len(alias))
class Vocab(object):
    def __init__(self):
        super(Vocab, self).__init__()
        self.w2i = {}
        self.words = []
    def add(self, w):
        if w not in self.w2i:
            self.w2i[w] = len(self.words)
            self.words.append(w)
v = Vocab()
for w in "the cat the dog".split():
    v.add(w)
print(v.w2i, v.words, isinstance(v, object))
v.w2i.update({"z": 9}, y=8)
print(v.w2i.pop("z"), v.w2i.pop("q", None), v.w2i.setdefault("n", 5), v.w2i.setdefault("n", 6))
del v.w2i["n"]
c = v.w2i.copy()
c["new"] = 1
print(v.w2i, c)
counts = {}
for w in "x y x".split():
    counts[w] = counts.get(w, 0) + 1
counts["x"] += 10
print(counts, sorted(counts.items(), key=lambda p: p[1], reverse=True))
m = {"w": [], "opt": {"lr": 0.1}}
m["w"].append(2)
m["opt"]["lr"] *= 5
print(m)
try:
    counts["nope"]
except KeyError as e:
    print("KeyError", e)
counts.clear()
print(counts, isinstance(counts, dict), isinstance(3, (int, float)), isinstance(True, int), isinstance("s", list))"#,
    );
    assert_eq!(
        out,
        [
            "{'a': 0, 'b': 1} True 2",
            "{'the': 0, 'cat': 1, 'dog': 2} ['the', 'cat', 'dog'] True",
            "9 None 5 5",
            "{'the': 0, 'cat': 1, 'dog': 2, 'y': 8} {'the': 0, 'cat': 1, 'dog': 2, 'y': 8, 'new': 1}",
            "{'x': 12, 'y': 1} [('x', 12), ('y', 1)]",
            "{'w': [2], 'opt': {'lr': 0.5}}",
            "KeyError 'nope'",
            "{} True True True False",
        ]
    );
}

/// A Python list's methods, as Python's: `extend`, `insert` (clamped),
/// `pop`, `sort` (stable, by a key), `reverse`, `remove`, `index`,
/// `count`, `copy`, `clear`; the errors Python raises.
#[test]
fn lists_have_pythons_methods() {
    let out = printed(
        r#"ys = []
ys.extend(("a", "b"))
ys.insert(0, "z")
ys.insert(-1, "m")
ys.insert(99, "end")
print(ys, ys.pop(), ys.pop(0), ys)
names = ["b", "a", "c", "a"]
names.sort()
print(names, names.index("c"), names.count("a"))
names.reverse()
names.remove("a")
copy = names.copy()
copy.append("new")
print(names, copy)
pairs = [("b", 2), ("a", 2), ("c", 1)]
pairs.sort(key=lambda p: p[1])
print(pairs, sorted(pairs), sorted(pairs, key=lambda p: p[0], reverse=True))
scores = [("x", 0.5)]
scores[0] = ("y", 1.5)
print(scores)
try:
    [].pop()
except IndexError as e:
    print("IndexError", e)
try:
    names.index("q")
except ValueError as e:
    print("ValueError", e)
names.clear()
print(names, len(copy))"#,
    );
    assert_eq!(
        out,
        [
            "['a', 'm', 'b'] end z ['a', 'm', 'b']",
            "['a', 'a', 'b', 'c'] 3 2",
            "['c', 'b', 'a'] ['c', 'b', 'a', 'new']",
            "[('c', 1), ('b', 2), ('a', 2)] [('a', 2), ('b', 2), ('c', 1)] [('c', 1), ('b', 2), ('a', 2)]",
            "[('y', 1.5)]",
            "IndexError pop from empty list",
            "ValueError 'q' is not in list",
            "[] 4",
        ]
    );
}

/// A dict or list that holds itself prints as Python prints it, once
/// (`{...}`, `[...]`), rather than recursing without end.
#[test]
fn a_dict_that_holds_itself_prints_once() {
    let out = printed("d = {}\nd[\"me\"] = d\nd[\"x\"] = [1, d]\nprint(d)\nd");
    assert_eq!(out[0], "{'me': {...}, 'x': [1, {...}]}");
}

/// `open()` as a corpus reader and a log writer use it: each line as
/// Python 3.11 printed it for the same program.
#[test]
fn files_read_and_write_as_pythons() {
    let dir = std::env::temp_dir().join(format!("cudash-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("corpus.txt");
    let p = path.display();
    let out = common::ok(&format!(
        "with open('{p}', 'w', encoding='utf8') as f:\n    n = f.write('the cat sat\\non the mat\\n')\n    \
         f.writelines(['a b\\n', 'c\\n'])\n\
         words = []\n\
         with open('{p}', 'r', encoding='utf8') as f:\n    for line in f:\n        \
         words += line.split() + ['<eos>']\n\
         print(n, words, len(words))\n\
         f = open('{p}')\nprint(repr(f.readline()), repr(f.read(3)), f.readlines())\nf.close()\n\
         try:\n    f.read()\nexcept ValueError as e:\n    print('ValueError:', e)\n\
         try:\n    open('{p}.missing')\nexcept FileNotFoundError as e:\n    print(type(e).__name__)\n\
         with open('{p}', 'a') as f:\n    k = f.write('end\\n')\n\
         print(open('{p}').read().splitlines()[-2:], 'a\\r\\nb\\n\\nc'.splitlines())"
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "23 ['the', 'cat', 'sat', '<eos>', 'on', 'the', 'mat', '<eos>', 'a', 'b', '<eos>', 'c', '<eos>'] 13",
            "'the cat sat\\n' 'on ' ['the mat\\n', 'a b\\n', 'c\\n']",
            "ValueError: I/O operation on closed file.",
            "FileNotFoundError",
            "['c', 'end'] ['a', 'b', '', 'c']",
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `torch.multinomial` draws by weight (a column of weight 0 is never
/// drawn; without replacement each column once), PyTorch's errors.
#[test]
fn multinomial_draws_by_weight() {
    let out = common::ok(
        "import torch\nw = torch.tensor([[1., 2., 3., 4.], [0., 0., 1., 0.]])\n\
         c = torch.zeros(4)\n\
         for i in range(4000):\n    c[torch.multinomial(w[0], 1).item()] += 1\n\
         print([round(v / 4000, 1) for v in c.tolist()])\n\
         print(sorted(torch.multinomial(w[0], 4).tolist()), torch.multinomial(w, 1).shape, \
         torch.multinomial(w, 3, replacement=True)[1].tolist())\n\
         try:\n    torch.multinomial(w, 5)\nexcept RuntimeError as e:\n    print(e)",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "[0.1, 0.2, 0.3, 0.4]",
            "[0, 1, 2, 3] torch.Size([2, 1]) [2, 2, 2]",
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
        ]
    );
}

/// Python's set, as a vocabulary builder uses it; each line as Python 3.11
/// printed it.
#[test]
fn sets_as_pythons() {
    let out = common::ok(
        "words = ['abc', 'cab', 'dd']\n\
         print(sorted(list(set(''.join(words)))), len(set(words)), 'a' in set('abc'), 3 in set([1, 2]))\n\
         s = set()\ns.add(3)\ns.add(3)\ns.add(1)\ns.update([5, 1], 'x')\n\
         print(sorted(s, key=str), len(s))\ns.discard(99)\ns.remove(5)\n\
         try:\n    s.remove(5)\nexcept KeyError as e:\n    print('KeyError', e)\n\
         a, b = set([1, 2, 3]), set([2, 3, 4])\n\
         print(sorted(a | b), sorted(a & b), sorted(a - b), sorted(a.union([9])), \
         sorted(a.intersection(b, [3])), sorted(a.difference(b)))\n\
         print(set(), type(set()).__name__, isinstance(a, set), set([1]))\n\
         c = a.copy()\nx = c.pop()\nprint(len(c), x in a, a.issubset(a | b), a.issuperset([2]), a.isdisjoint(b), \
         sorted(a.symmetric_difference(b)))\n\
         c.clear()\nprint(len(c), len(a))\n\
         try:\n    c.pop()\nexcept KeyError as e:\n    print('KeyError', e)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "['a', 'b', 'c', 'd'] 3 True False",
            "[1, 3, 5, 'x'] 4",
            "KeyError 5",
            "[1, 2, 3, 4] [2, 3] [1] [1, 2, 3, 9] [3] [1]",
            "set() set True {1}",
            "2 True True True False [1, 4]",
            "0 3",
            "KeyError 'pop from an empty set'",
        ]
    );
}

/// `torch.randperm(n)`: each of 0..n once, int64, on the device asked for.
#[test]
fn randperm_is_a_permutation() {
    let out = common::ok(
        "import torch\np = torch.randperm(50)\nprint(sorted(p.tolist()) == list(range(50)), p.dtype, \
         p.tolist() != list(range(50)), torch.randperm(3, device='cuda').device)",
    );
    assert_eq!(out.trim(), "True torch.int64 True cuda:0");
}

#[test]
fn generators_run_as_next_asks() {
    // Each line as Python 3.11 printed it.
    let out = printed(
        "def count(n):\n    print('start')\n    for i in range(n):\n        yield i\n    print('end')\n\
         g = count(2)\nprint('made')\nprint(next(g))\nprint(next(g))\nprint(next(g, 'none'))\n\
         print(next(g, 'none'))\n\
         def pairs():\n    yield 1, 'a'\n    yield\n\
         print(list(pairs()), [x for x in count(1)], {k: v for k, v in enumerate(count(1))})\n\
         print(' '.join(str(x) for x in count(3)), sorted(count(3), reverse=True))\n\
         xs = []\nxs.extend(count(1))\nprint(xs)",
    );
    assert_eq!(
        out,
        [
            "made",
            "start",
            "0",
            "1",
            "end",
            "none",
            "none",
            "start",
            "end",
            "start",
            "end",
            "[(1, 'a'), None] [0] {0: 0}",
            "start",
            "end",
            "start",
            "end",
            "0 1 2 [2, 1, 0]",
            "start",
            "end",
            "[0]",
        ]
    );
    // Python's errors: the generator running asks itself for an item; a
    // generator that raised is finished.
    let (class, message) = common::err("def me():\n    yield next(it)\nit = me()\nnext(it)");
    assert_eq!(
        (class.as_str(), message.as_str()),
        ("ValueError", "generator already executing")
    );
    let out = printed(
        "def bad():\n    yield 1\n    raise KeyError('k')\ng = bad()\nprint(next(g))\n\
         try:\n    next(g)\nexcept KeyError as e:\n    print('KeyError', e)\nprint(next(g, 'over'))",
    );
    assert_eq!(out, ["1", "KeyError 'k'", "over"]);
    let (class, _) = common::err("yield 1");
    assert_eq!(class, "SyntaxError");
    let (class, message) = common::err("import copy\ndef g():\n    yield 1\ncopy.deepcopy(g())");
    assert_eq!(
        (class.as_str(), message.as_str()),
        ("TypeError", "cannot pickle 'generator' object")
    );
    // What is not there yet says so where it is met.
    let (_, message) = common::err(
        "import torch\ndef g():\n    with torch.autocast('cpu'):\n        yield 1\nnext(g())",
    );
    assert!(
        message.contains("a generator's `with` takes an object with `__enter__`"),
        "{message}"
    );
}

#[test]
fn a_packages_modules_import_each_other_relatively() {
    let dir = std::env::temp_dir().join(format!("cudash-relative-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(
        dir.join("pkg/__init__.py"),
        "from .a import f\nfrom . import b\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pkg/a.py"),
        "def f(x):\n    return x * 2\n_hidden = 3\nshown = 4\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pkg/b.py"),
        "from .a import *\nmem = 5\ndef g(fn):\n    return fn(mem)\n",
    )
    .unwrap();
    let main = dir.join("main.py");
    std::fs::write(
        &main,
        "from pkg import f, b\nfrom pkg.b import *\nprint(f(3), b.g(f), g(f), shown, .5, 1e-3, .25e2)\n\
         try:\n    print(_hidden)\nexcept NameError as e:\n    print('NameError', e)\n\
         class M:\n    pass\nm = M()\nm.a, (m.b, c) = 1, (2, 3)\nprint(m.a, m.b, c, sorted({'x', 'y'} | {w for w in 'xz'}))\n\
         from .pkg import f\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", "0", "script"])
        .arg(&main)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    // As Python 3.11 printed it (the last line is its error too).
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "6 10 10 4 0.5 0.001 25.0",
            "NameError name '_hidden' is not defined",
            "1 2 3 ['x', 'y', 'z']",
        ]
    );
    assert!(
        err.contains("ImportError: attempted relative import with no known parent package"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// makemore's and minGPT's configs, as a program writes them (Python's
/// indentation kept: the source starts at the margin).
const DATACLASSES: &str = r#"
from dataclasses import dataclass, asdict
from typing import Optional


@dataclass
class ModelConfig:
    block_size: int = None
    vocab_size: int = None
    n_layer: int = 4
    name: Optional[str] = 'tiny'


c = ModelConfig(vocab_size=27, block_size=16)
print(c)
print(c.n_layer, c == ModelConfig(16, 27), c == ModelConfig(16, 28))
print(asdict(c))


@dataclass
class Point:
    x: int
    y: int = 0

    def __post_init__(self):
        self.norm = self.x * self.x + self.y * self.y


p = Point(3, 4)
print(p, p.norm)


@dataclass
class Point3(Point):
    z: int = 1


print(Point3(1, 2, 3), Point3(1))
for bad in [lambda: Point(), lambda: Point(1, w=2), lambda: Point(1, 2, 3), lambda: Point(1, x=2)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)
try:
    @dataclass
    class Bad:
        xs: list = []
except ValueError as e:
    print("ValueError:", e)
"#;

#[test]
fn dataclasses_as_pythons() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        printed(DATACLASSES),
        [
            "ModelConfig(block_size=16, vocab_size=27, n_layer=4, name='tiny')",
            "4 True False",
            "{'block_size': 16, 'vocab_size': 27, 'n_layer': 4, 'name': 'tiny'}",
            "Point(x=3, y=4) 25",
            "Point3(x=1, y=2, z=3) Point3(x=1, y=0, z=1)",
            "TypeError: Point.__init__() missing 1 required positional argument: 'x'",
            "TypeError: Point.__init__() got an unexpected keyword argument 'w'",
            "TypeError: Point.__init__() takes from 2 to 3 positional arguments but 4 were given",
            "TypeError: Point.__init__() got multiple values for argument 'x'",
            "ValueError: mutable default <class 'list'> for field xs is not allowed: use default_factory",
        ]
    );
}

/// Python's chained comparisons, each operand evaluated once.
const CHAINS: &str = r#"
import torch
def f(x):
    print("f", x)
    return x
print(0 <= 1 < 3, 0 <= 5 < 3, 1 < 2 < 3 < 4, 1 == 1 == 1, 3 > 2 > 2)
print(0 < f(2) < 5, (1 < 2) < 3, (1 < 2) == True, 1 < f(0) < f(9))
x = torch.tensor(0.5)
print(0 <= x.item() <= 1, bool(0 < x < 1))
a = None
print(a is None is not False, 2 + 3 < 4 * 2 <= 8)
"#;

#[test]
fn comparisons_chain_as_pythons() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        printed(CHAINS),
        [
            "True False True True False",
            "f 2",
            "f 0",
            "True True True False",
            "True True",
            "True True",
        ]
    );
}

/// `field(default_factory=...)`: each instance its own list.
const DATACLASS_FIELDS: &str = r#"
from dataclasses import dataclass, field, asdict


@dataclass
class TrainConfig:
    name: str
    layers: list = field(default_factory=list)
    lr: float = field(default=0.1)
    tags: dict = field(default_factory=lambda: {"a": 1})


a = TrainConfig("a")
b = TrainConfig("b", list(range(1, 3)))
a.layers.append(3)
print(a, b, a.layers is b.layers)
print(asdict(b))
try:
    @dataclass
    class Bad:
        x: int = 1
        y: int
except TypeError as e:
    print("TypeError:", e)
try:
    field(default=1, default_factory=list)
except ValueError as e:
    print("ValueError:", e)
"#;

#[test]
fn dataclass_fields_with_factories() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        printed(DATACLASS_FIELDS),
        [
            "TrainConfig(name='a', layers=[3], lr=0.1, tags={'a': 1}) TrainConfig(name='b', layers=[1, 2], lr=0.1, tags={'a': 1}) False",
            "{'name': 'b', 'layers': [1, 2], 'lr': 0.1, 'tags': {'a': 1}}",
            "TypeError: non-default argument 'y' follows default argument",
            "ValueError: cannot specify both default and default_factory",
        ]
    );
    // One that holds itself shows `...` there, as Python's.
    let out = printed(
        "from dataclasses import dataclass\n@dataclass\nclass Node:\n    v: int\n    next: object = None\n\
         n = Node(1)\nn.next = n\nprint(n, [n])",
    );
    assert_eq!(out, ["Node(v=1, next=...) [Node(v=1, next=...)]"]);
    let (class, _) = common::err(
        "from dataclasses import dataclass, asdict\n@dataclass\nclass Node:\n    next: object = None\n\
         n = Node()\nn.next = n\nasdict(n)",
    );
    assert_eq!(class, "RecursionError");
}

/// Unpacking into items: the swap idiom, dict entries, a tensor's elements.
const ITEM_TARGETS: &str = r#"
import torch
xs = list(range(1, 5))
xs[0], xs[3] = xs[3], xs[0]
d = {}
d["a"], (d["b"], n) = 1, (2, 3)
t = torch.zeros(3)
t[0], t[2] = 5.0, torch.tensor(7.0)
for i in range(len(xs) - 1, 0, -1):
    j = i // 2
    xs[i], xs[j] = xs[j], xs[i]
print(xs, d, n, t.tolist())
"#;

#[test]
fn unpacking_sets_items() {
    // As Python 3.11 and PyTorch printed it.
    assert_eq!(
        printed(ITEM_TARGETS),
        ["[3, 4, 1, 2] {'a': 1, 'b': 2} 3 [5.0, 0.0, 7.0]",]
    );
}

/// A class whose `__iter__` yields: an IterableDataset's shape.
const ITER_PROTOCOL: &str = r#"
class Stream:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        for i in range(self.n):
            yield i * 10
s = Stream(3)
print(list(iter(s)))
for x in s:
    print(x)
print([x + 1 for x in s], sum(s), sorted(s, reverse=True))
for i, x in enumerate(s):
    print(i, x)
"#;

#[test]
fn instances_iterate_through_their_iter_method() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        printed(ITER_PROTOCOL),
        [
            "[0, 10, 20]",
            "0",
            "10",
            "20",
            "[1, 11, 21] 30 [20, 10, 0]",
            "0 0",
            "1 10",
            "2 20",
        ]
    );
    // Without `__iter__`, Python's TypeError names the class.
    let (class, message) = common::err("class Plain:\n    pass\nlist(Plain())");
    assert_eq!(class, "TypeError");
    assert!(
        message.starts_with("'Plain' object is not iterable"),
        "{message}"
    );
    let out = printed(
        "print(list(\"ab\"), list({\"k\": 1}))\nfrom collections import OrderedDict\n\
         d = OrderedDict([(\"a\", 1)])\nd[\"b\"] = 2\nprint(list(d.items()))",
    );
    assert_eq!(out, ["['a', 'b'] ['k']", "[('a', 1), ('b', 2)]"]);
}

/// `a = b = value`: evaluated once, then each target from the left.
const CHAINED: &str = r#"
import torch
calls = []
def make():
    calls.append(1)
    return torch.zeros(2)
h0 = c0 = make()
print(h0 is c0, len(calls))
a = b, c = (1, 2)
print(a, b, c)
class S:
    pass
s = S()
xs = [0, 0]
s.x = xs[1] = y = 5
print(s.x, xs, y)
def f():
    p = q = 3
    return p + q
print(f())
xs[0] = xs = [7, 8]
print(xs)
"#;

#[test]
fn assignments_chain_as_pythons() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        python_printed("chained", CHAINED),
        ["True 1", "(1, 2) 1 2", "5 [0, 5] 5", "6", "[7, 8]"]
    );
}

/// Nested functions read their enclosing functions' locals through shared
/// cells (late binding, after the call returned, through two levels),
/// `nonlocal` assigns them, and a decorator's wrapper keeps what it wraps.
const CLOSURES: &str = r#"
import torch
def make_counter():
    count = [0]
    def inc():
        count[0] += 1
        return count[0]
    return inc
c = make_counter()
print(c(), c(), c())
def adders():
    fs = []
    for i in range(3):
        fs.append(lambda x: x + i)
    return fs
print([f(10) for f in adders()])
def outer(a):
    def middle():
        def inner():
            return a * 2
        return inner
    return middle()()
print(outer(21))
def late():
    f = lambda: v
    v = 5
    r = f()
    v = 6
    return r, f()
print(late())
class M:
    def __init__(self):
        m = self
        self.f = lambda x: m.g(x)
    def g(self, x):
        return x + 1
print(M().f(1))
def rec(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)
    return fact(n)
print(rec(5))
def gen(k):
    def scale(x):
        return x * k
    for j in range(3):
        yield scale(j)
print(list(gen(3)))
def unbound():
    def g():
        return z
    r = g()
    z = 1
    return r
try:
    unbound()
except NameError as e:
    print(e)
def deco(fn):
    def wrapper(*args):
        print("calling", fn.__name__)
        return fn(*args)
    return wrapper
@deco
def add(a, b):
    return a + b
print(add(1, 2))
def counter():
    n = 0
    def bump():
        nonlocal n
        n += 1
        return n
    return bump
b = counter()
print(b(), b(), b())
def train():
    w = torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    losses = [opt.step(closure).item() for _ in range(2)]
    return losses, w.tolist()
print(train())
"#;

#[test]
fn closures_as_pythons() {
    // Each line as Python 3.11 / PyTorch 2.15 printed it.
    assert_eq!(
        python_printed("closures", CLOSURES),
        [
            "1 2 3",
            "[12, 12, 12]",
            "42",
            "(5, 6)",
            "2",
            "120",
            "[0, 3, 6]",
            "cannot access free variable 'z' where it is not associated with a value in enclosing scope",
            "calling add",
            "3",
            "1 2 3",
            "([2.0, 1.28000009059906], [0.6399999856948853, 0.6399999856948853])",
        ]
    );
}

/// torch.utils.data's `Subset` and `random_split`, and a dataset read by
/// index (the samples' order is cudash's own draw: only what does not
/// depend on it is printed).
const SPLITS: &str = r#"import torch
from torch.utils.data import TensorDataset, DataLoader, Subset, Dataset, random_split
from torch.utils.data.sampler import SequentialSampler
from torch.utils.data.dataset import Subset as DatasetSubset
ds = TensorDataset(torch.arange(10.), torch.arange(10) * 2)
x, y = ds[3]
print(len(ds), x.item(), y.item(), [t.item() for t in ds[-1]], type(ds[0]).__name__, len(ds.tensors))
sub = Subset(ds, [1, 3, 5, 7])
print(len(sub), [t.item() for t in sub[1]], sub.indices, sub.dataset is ds)
print([[t.tolist() for t in b] for b in DataLoader(sub, batch_size=3)])
print([[t.tolist() for t in b] for b in DataLoader(Subset(sub, [3, 0]), batch_size=2, num_workers=2)])
train, val = random_split(ds, [8, 2])
print(len(train), len(val), sorted(train.indices + val.indices) == list(range(10)))
print([len(p) for p in random_split(ds, [0.5, 0.3, 0.2])], [len(p) for p in random_split(ds, [0.34, 0.33, 0.33])])
class Squares(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return torch.tensor(float(i * i))
sq = Squares(6)
a, b = random_split(sq, [3, 3])
made = torch.cat(list(DataLoader(a, batch_size=2, num_workers=2)) + list(DataLoader(b, batch_size=4)))
print(a.dataset is sq, sorted(made.tolist()))
print(type(sub).__name__, DatasetSubset is Subset, SequentialSampler)
for bad in ([5, 4], [1.5, -0.5]):
    try:
        random_split(ds, bad)
    except ValueError as e:
        print("ValueError:", e)
try:
    ds[10]
except IndexError as e:
    print("IndexError:", e)
"#;

#[test]
fn datasets_index_and_split_as_pytorchs() {
    // Each line as Python 3.11 / PyTorch 2.15 printed it.
    assert_eq!(
        python_printed("splits", SPLITS),
        [
            "10 3.0 6 [9.0, 18] tuple 2",
            "4 [3.0, 6] [1, 3, 5, 7] True",
            "[[[1.0, 3.0, 5.0], [2, 6, 10]], [[7.0], [14]]]",
            "[[[7.0, 1.0], [14, 2]]]",
            "8 2 True",
            "[5, 3, 2] [4, 3, 3]",
            "True [0.0, 1.0, 4.0, 9.0, 16.0, 25.0]",
            "Subset True <class 'torch.utils.data.sampler.SequentialSampler'>",
            "ValueError: Sum of input lengths does not equal the length of the input dataset!",
            "ValueError: Fraction at index 0 is not between 0 and 1",
            "IndexError: index 10 is out of bounds for dimension 0 with size 10",
        ]
    );
}

/// `type(x)` and a class printed, as Python names them.
const TYPE_NAMES: &str = r#"import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
x = torch.ones(2)
print(type(x), type(nn.Parameter(x)), torch.Tensor)
print(type([1]), type((1,)), type({}), type(1), type("s"), type(range(2)))
print(type(nn.Linear(2, 2)), nn.Conv2d, nn.CrossEntropyLoss, nn.Module)
print(type(torch.device("cpu")), type(x.device))
ds = TensorDataset(torch.arange(4.), torch.arange(4))
print(type(ds), DataLoader)
b = next(iter(DataLoader(ds, batch_size=2)))
print(type(b), len(b), isinstance(b, list))
class Net(nn.Module):
    pass
print(type(Net()))
"#;

#[test]
fn types_print_as_pythons_classes() {
    // Each line as Python 3.11 / PyTorch 2.15 printed it.
    assert_eq!(
        python_printed("type_names", TYPE_NAMES),
        [
            "<class 'torch.Tensor'> <class 'torch.nn.parameter.Parameter'> <class 'torch.Tensor'>",
            "<class 'list'> <class 'tuple'> <class 'dict'> <class 'int'> <class 'str'> <class 'range'>",
            "<class 'torch.nn.modules.linear.Linear'> <class 'torch.nn.modules.conv.Conv2d'> <class 'torch.nn.modules.loss.CrossEntropyLoss'> <class 'torch.nn.modules.module.Module'>",
            "<class 'torch.device'> <class 'torch.device'>",
            "<class 'torch.utils.data.dataset.TensorDataset'> <class 'torch.utils.data.dataloader.DataLoader'>",
            "<class 'list'> 2 True",
            "<class '__main__.Net'>",
        ]
    );
}

/// Several bases (Python's MRO and `super()` along it), a class derived
/// from a layer (snli's `class Linear(Bottle, nn.Linear)`, a `Sequential`
/// made by `super().__init__(...)`), and from `Dataset`.
const BASES: &str = r#"import torch
import torch.nn as nn

class A:
    def who(self):
        return "A"
    def hello(self):
        return "A.hello"
class B(A):
    def who(self):
        return "B>" + super().who()
class C(A):
    def who(self):
        return "C>" + super().who()
    def hello(self):
        return "C.hello"
class D(B, C):
    def who(self):
        return "D>" + super().who()
d = D()
print(d.who(), d.hello(), isinstance(d, C), isinstance(d, A), True)
try:
    class Z(A, B):
        pass
except TypeError as e:
    print("TypeError:", e)

class Bottle(nn.Module):
    def forward(self, input):
        if len(input.size()) <= 2:
            return super(Bottle, self).forward(input)
        size = input.size()[:2]
        out = super(Bottle, self).forward(input.view(size[0] * size[1], -1))
        return out.view(size[0], size[1], -1)

class Linear(Bottle, nn.Linear):
    pass

lin = Linear(4, 3)
print(lin)
with torch.no_grad():
    lin.weight.copy_(torch.arange(12.).view(3, 4) / 10)
    lin.bias.fill_(0.5)
x = torch.arange(24.).view(2, 3, 4) / 8
print(lin(x).shape, lin(x[0]).shape)
print(lin(x).sum().item(), [n for n, _ in lin.named_parameters()])
print(isinstance(lin, nn.Linear), isinstance(lin, nn.Module), isinstance(lin, Bottle), isinstance(lin, nn.Conv2d))

class Scaled(nn.Linear):
    def __init__(self, n, m, scale):
        super().__init__(n, m, bias=False)
        self.scale = scale
    def forward(self, x):
        return super().forward(x) * self.scale
s = Scaled(4, 2, 3.0)
print(s)
with torch.no_grad():
    s.weight.fill_(1.0)
print(s(torch.ones(1, 4)).tolist(), len(list(s.parameters())), s.scale)

class Net(nn.Sequential):
    def __init__(self):
        super().__init__(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
net = Net()
print(net)
print(net(torch.zeros(5, 2)).shape, len(net), type(net[0]).__name__)

from torch.utils.data import Dataset, DataLoader
class Ds(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return torch.tensor([float(i)])
print(isinstance(Ds(), Dataset), [b.tolist() for b in DataLoader(Ds(), batch_size=2)])
"#;

#[test]
fn classes_take_several_bases_and_pytorchs_layers() {
    // Each line as Python 3.11 / PyTorch 2.15 printed it.
    assert_eq!(
        python_printed("bases", BASES),
        [
            "D>B>C>A C.hello True True True",
            "TypeError: Cannot create a consistent method resolution",
            "order (MRO) for bases A, B",
            "Linear(in_features=4, out_features=3, bias=True)",
            "torch.Size([2, 3, 3]) torch.Size([3, 3])",
            "67.04999542236328 ['weight', 'bias']",
            "True True True False",
            "Scaled(in_features=4, out_features=2, bias=False)",
            "[[12.0, 12.0]] 1 3.0",
            "Net(",
            "  (0): Linear(in_features=2, out_features=3, bias=True)",
            "  (1): ReLU()",
            "  (2): Linear(in_features=3, out_features=1, bias=True)",
            ")",
            "torch.Size([5, 1]) 3 Linear",
            "True [[[0.0], [1.0]], [[2.0], [3.0]]]",
        ]
    );
}

/// `torch.Generator()` given to `random_split`, `randperm`, the samplers
/// and a `DataLoader`: the same draws as PyTorch's from the same seed,
/// pass after pass (each drawing on from where the last left it).
const GENERATORS: &str = r#"import torch
from torch.utils.data import TensorDataset, DataLoader, RandomSampler, SubsetRandomSampler, random_split
g = torch.Generator().manual_seed(42)
print(g.initial_seed(), torch.Generator().initial_seed())
ds = TensorDataset(torch.arange(10))
train, val = random_split(ds, [7, 3], generator=torch.Generator().manual_seed(42))
print(train.indices, val.indices)
parts = random_split(ds, [0.5, 0.5], generator=g)
print([p.indices for p in parts])
print(torch.randperm(8, generator=torch.Generator().manual_seed(3)).tolist())
g = torch.Generator()
g.manual_seed(11)
print(list(RandomSampler(ds, generator=g)), list(RandomSampler(ds, generator=g)))
print(list(RandomSampler(ds, replacement=True, num_samples=5, generator=g)))
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=g)))
g.manual_seed(7)
loader = DataLoader(ds, batch_size=4, shuffle=True, generator=g)
print([b[0].tolist() for b in loader])
print([b[0].tolist() for b in loader])
loader = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(7), num_workers=2)
print([b[0].tolist() for b in loader])
loader = DataLoader(ds, batch_size=5, sampler=SubsetRandomSampler(list(range(10)), generator=g), generator=g)
print([b[0].tolist() for b in loader])
print(type(g).__name__)
"#;

#[test]
fn a_seeded_generator_draws_pytorchs_orders() {
    // Each line as Python 3.11 / PyTorch 2.15 printed it.
    assert_eq!(
        python_printed("generators", GENERATORS),
        [
            "42 67280421310721",
            "[2, 6, 1, 8, 4, 5, 0] [9, 3, 7]",
            "[[2, 6, 1, 8, 4], [5, 0, 9, 3, 7]]",
            "[2, 4, 3, 5, 1, 0, 6, 7]",
            "[1, 7, 2, 0, 9, 3, 5, 6, 4, 8] [8, 0, 6, 7, 2, 9, 1, 4, 5, 3]",
            "[3, 4, 0, 6, 9]",
            "[40, 30, 10, 20]",
            "[[1, 3, 5, 7], [9, 4, 6, 2], [8, 0]]",
            "[[5, 1, 6, 0], [9, 7, 8, 4], [3, 2]]",
            "[[1, 3, 5, 7], [9, 4, 6, 2], [8, 0]]",
            "[[4, 3, 2, 8, 1], [0, 6, 5, 9, 7]]",
            "Generator",
        ]
    );
}

/// A class's `__str__` and `__repr__` where a value is read as text (the
/// imagenet example's `AverageMeter` and `ProgressMeter`), and
/// `self.__dict__`.
const DUNDER_TEXT: &str = r#"class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self, name, fmt=':f'):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = '{name} {val' + self.fmt + '} ({avg' + self.fmt + '})'
        return fmtstr.format(**self.__dict__)

class ProgressMeter(object):
    def __init__(self, num_batches, meters, prefix=""):
        self.batch_fmtstr = self._get_batch_fmtstr(num_batches)
        self.meters = meters
        self.prefix = prefix

    def display(self, batch):
        entries = [self.prefix + self.batch_fmtstr.format(batch)]
        entries += [str(meter) for meter in self.meters]
        print('\t'.join(entries))

    def _get_batch_fmtstr(self, num_batches):
        num_digits = len(str(num_batches // 1))
        fmt = '{:' + str(num_digits) + 'd}'
        return '[' + fmt + '/' + fmt.format(num_batches) + ']'

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __repr__(self):
        return f"Point({self.x}, {self.y})"
    def __len__(self):
        return 2

losses = AverageMeter('Loss', ':.4e')
top1 = AverageMeter('Acc@1', ':6.2f')
progress = ProgressMeter(100, [losses, top1], prefix="Epoch: [0]")
for i in range(3):
    losses.update(0.5 / (i + 1), 4)
    top1.update(50.0 + i, 4)
    progress.display(i)
print(losses)
p = Point(1, 2)
print(p, [p, Point(3, 4)], {"a": p}, (p,))
print(f"{p} and {p!r} {str(p)}", "%s" % (p,), "{}".format(p))
class Bad:
    def __repr__(self):
        return 3
try:
    print(Bad())
except TypeError as e:
    print("TypeError:", e)
"#;

#[test]
fn str_and_repr_are_the_classs_own() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        python_printed("dunder_text", DUNDER_TEXT),
        [
            "Epoch: [0][  0/100]	Loss 5.0000e-01 (5.0000e-01)	Acc@1  50.00 ( 50.00)",
            "Epoch: [0][  1/100]	Loss 2.5000e-01 (3.7500e-01)	Acc@1  51.00 ( 50.50)",
            "Epoch: [0][  2/100]	Loss 1.6667e-01 (3.0556e-01)	Acc@1  52.00 ( 51.00)",
            "Loss 1.6667e-01 (3.0556e-01)",
            "Point(1, 2) [Point(1, 2), Point(3, 4)] {'a': Point(1, 2)} (Point(1, 2),)",
            "Point(1, 2) and Point(1, 2) Point(1, 2) Point(1, 2) Point(1, 2)",
            "TypeError: __str__ returned non-string (type int)",
        ]
    );
}

/// A program's own exception classes: raised, caught by their class or
/// one above it (Python's or the program's), their `args`, `str` and
/// `repr` as `BaseException` makes them, their own attributes.
const OWN_EXCEPTIONS: &str = r#"class TrainingError(Exception):
    pass

class ShapeMismatch(ValueError):
    def __init__(self, expected, got):
        super().__init__(f"expected {expected}, got {got}")
        self.expected = expected
        self.got = got

class Quiet(Exception):
    def __init__(self, code):
        self.code = code

class Custom(RuntimeError):
    def __str__(self):
        return "custom text"

try:
    raise TrainingError("loss is nan")
except TrainingError as e:
    print("caught", type(e).__name__, e, e.args, repr(e))
try:
    raise ShapeMismatch(3, 4)
except ValueError as e:
    print("as ValueError:", e, e.expected, e.got, isinstance(e, ShapeMismatch), isinstance(e, Exception))
try:
    raise Quiet(7)
except Exception as e:
    print(type(e).__name__, e.code, e.args, str(e))
try:
    raise TrainingError
except (KeyError, TrainingError) as e:
    print("tuple", repr(e), e.args)
try:
    raise Custom("x")
except RuntimeError as e:
    print(e, e.args)
try:
    try:
        raise TrainingError("inner")
    except TrainingError:
        raise
except Exception as e:
    print("reraised", e)
err = TrainingError("a", 2)
print(err, repr(err), isinstance(err, BaseException))
try:
    raise ValueError("plain")
except TrainingError:
    print("wrong")
except ValueError as e:
    print("plain", e)
class Sub(TrainingError):
    pass
try:
    raise Sub("sub")
except TrainingError as e:
    print("sub caught by base:", type(e).__name__, e)
"#;

#[test]
fn exception_classes_of_the_programs_own() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        python_printed("own_exceptions", OWN_EXCEPTIONS),
        [
            "caught TrainingError loss is nan ('loss is nan',) TrainingError('loss is nan')",
            "as ValueError: expected 3, got 4 3 4 True True",
            "Quiet 7 (7,) 7",
            "tuple TrainingError() ()",
            "custom text ('x',)",
            "reraised inner",
            "('a', 2) TrainingError('a', 2) True",
            "plain plain",
            "sub caught by base: Sub sub",
        ]
    );
}

/// `os.listdir`, `os.remove`, `os.path.split` and `splitext`, `os.getcwd`,
/// run in a directory of their own.
const OS_FILES: &str = r#"import os
print(sorted(os.listdir("osdir")))
for p in ["a/b/c.txt", "c.txt", "/a", "a/b/", "//x", "", "a//b"]:
    print(os.path.split(p))
for p in ["a/b.tar.gz", ".bashrc", "a/.x", "a.b/c", "x.", "..a.b", "dir/file.py"]:
    print(os.path.splitext(p))
open("osdir/tmp.txt", "w").close()
print("tmp.txt" in os.listdir("osdir"))
os.remove("osdir/tmp.txt")
print("tmp.txt" in os.listdir("osdir"))
try:
    os.remove("osdir/nothing")
except FileNotFoundError as e:
    print(e)
try:
    os.listdir("nodir")
except OSError as e:
    print(type(e).__name__, e)
print(os.getcwd() == os.path.dirname(os.path.join(os.getcwd(), "x")))
"#;

#[test]
fn os_lists_removes_and_splits_as_pythons() {
    let dir = std::env::temp_dir().join(format!("cudash-os-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("osdir/sub")).unwrap();
    std::fs::write(dir.join("osdir/a.txt"), "").unwrap();
    std::fs::write(dir.join("osdir/b.pt"), "").unwrap();
    std::fs::write(dir.join("os_files.py"), OS_FILES).unwrap();
    let out = run_python(std::path::Path::new("os_files.py"), Some(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    // Each line as Python 3.11 printed it.
    assert_eq!(
        out,
        [
            "['a.txt', 'b.pt', 'sub']",
            "('a/b', 'c.txt')",
            "('', 'c.txt')",
            "('/', 'a')",
            "('a/b', '')",
            "('//', 'x')",
            "('', '')",
            "('a', 'b')",
            "('a/b.tar', '.gz')",
            "('.bashrc', '')",
            "('a/.x', '')",
            "('a.b/c', '')",
            "('x', '.')",
            "('..a', '.b')",
            "('dir/file', '.py')",
            "True",
            "False",
            "[Errno 2] No such file or directory: 'osdir/nothing'",
            "FileNotFoundError [Errno 2] No such file or directory: 'nodir'",
            "True",
        ]
    );
}

/// `collections.Counter` and `collections.defaultdict`, as a vocabulary
/// is counted.
const COUNTERS: &str = r#"from collections import defaultdict, Counter
import collections
words = "the cat sat on the mat the end".split()
counts = Counter(words)
print(counts)
print(counts.most_common(2), counts["the"], counts["dog"], len(counts))
counts.update(["cat", "dog"])
print(counts.most_common(3), "dog" in counts)
chars = Counter("abracadabra")
print(chars, chars.most_common(1))
c = Counter()
for w in words:
    c[w] += 1
print(c == counts, c["the"], Counter())
by_len = defaultdict(list)
for w in words:
    by_len[len(w)].append(w) if False else by_len[str(len(w))].append(w)
print(by_len)
print(dict(by_len), by_len["9"], len(by_len))
freq = collections.defaultdict(int)
for ch in "hello":
    freq[ch] += 1
print(freq, sorted(freq.items()))
vocab = {w: i for i, (w, _) in enumerate(Counter(words).most_common())}
print(vocab)
print(isinstance(counts, dict), isinstance(freq, dict))
"#;

#[test]
fn counters_and_defaultdicts_as_pythons() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        python_printed("counters", COUNTERS),
        [
            "Counter({'the': 3, 'cat': 1, 'sat': 1, 'on': 1, 'mat': 1, 'end': 1})",
            "[('the', 3), ('cat', 1)] 3 0 6",
            "[('the', 3), ('cat', 2), ('sat', 1)] True",
            "Counter({'a': 5, 'b': 2, 'r': 2, 'c': 1, 'd': 1}) [('a', 5)]",
            "False 3 Counter()",
            "defaultdict(<class 'list'>, {'3': ['the', 'cat', 'sat', 'the', 'mat', 'the', 'end'], '2': ['on']})",
            "{'3': ['the', 'cat', 'sat', 'the', 'mat', 'the', 'end'], '2': ['on']} [] 3",
            "defaultdict(<class 'int'>, {'h': 1, 'e': 1, 'l': 2, 'o': 1}) [('e', 1), ('h', 1), ('l', 2), ('o', 1)]",
            "{'the': 0, 'cat': 1, 'sat': 2, 'on': 3, 'mat': 4, 'end': 5}",
            "True True",
        ]
    );
}

/// Samplers the program writes (`tests/python_everyday.rs`'s own copy of
/// what PyTorch 2.15 printed; the shuffled passes are checked by their
/// sizes and contents, cudash's cpu generator not being PyTorch's).
const SAMPLERS: &str = r#"import torch
from torch.utils.data import DataLoader, TensorDataset, Sampler, BatchSampler, RandomSampler, SequentialSampler, Subset

class EvenFirst(Sampler):
    def __init__(self, n):
        super().__init__()
        self.n = n
    def __iter__(self):
        for i in range(0, self.n, 2):
            yield i
        for i in range(1, self.n, 2):
            yield i
    def __len__(self):
        return self.n

class Shuffled(Sampler):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return iter(torch.randperm(self.n).tolist())
    def __len__(self):
        return self.n

ds = TensorDataset(torch.arange(10.0), torch.arange(10) * 10)
s = EvenFirst(10)
print(isinstance(s, Sampler), isinstance(RandomSampler(ds), Sampler), isinstance([1], Sampler))
loader = DataLoader(ds, batch_size=4, sampler=s)
print(len(loader))
for x, y in loader:
    print(x.tolist(), y.tolist())
for x, y in DataLoader(ds, batch_size=4, sampler=s, num_workers=2, drop_last=True):
    print(x.tolist(), y.tolist())
print(sorted(sum([x.tolist() for x, y in DataLoader(ds, batch_size=5, sampler=Shuffled(10))], [])))
print(len(DataLoader(ds, batch_size=3, sampler=[9, 8, 7, 1])))
for x, y in DataLoader(ds, batch_size=3, sampler=[9, 8, 7, 1]):
    print(x.tolist())
class Pairs:
    def __iter__(self):
        yield [0, 1]
        yield [5, 6, 7]
    def __len__(self):
        return 2
bl = DataLoader(ds, batch_sampler=Pairs())
print(len(bl))
for x, y in bl:
    print(x.tolist())
bs = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)
print(len(bs), list(bs))
print(list(BatchSampler(range(5), 2, False)))
print(list(BatchSampler(EvenFirst(5), 2, False)))
print([len(x) for x, y in DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), 4, False))])
for (x,) in DataLoader(TensorDataset(torch.arange(4)), batch_size=2):
    print(x.tolist())
for x, in DataLoader(TensorDataset(torch.arange(4)), batch_size=2, sampler=[3, 2]):
    print(x.tolist())
sub = Subset(ds, [3, 4, 5])
for x, y in DataLoader(sub, batch_size=2, sampler=[2, 0]):
    print(x.tolist())
print(type(bs), type(s))
for bad in [dict(batch_sampler=Pairs(), batch_size=2), dict(batch_sampler=Pairs(), shuffle=True), dict(sampler=s, shuffle=True), dict(batch_sampler=Pairs(), drop_last=True)]:
    try:
        DataLoader(ds, **bad)
    except ValueError as e:
        print("ValueError:", e)
class NoLen(Sampler):
    def __iter__(self):
        return iter([1, 2])
l = DataLoader(ds, sampler=NoLen())
for x, y in l:
    print(x.tolist())
try:
    len(l)
except TypeError as e:
    print("TypeError:", e)
try:
    BatchSampler(range(3), 0, False)
except ValueError as e:
    print("ValueError:", e)
l = DataLoader(ds, batch_size=2, sampler=torch.tensor([4, 0, 2]))
print(len(l), [b[0].tolist() for b in l])
l = DataLoader(ds, batch_size=2, sampler=range(3))
print(len(l), [b[1].tolist() for b in l])
"#;

#[test]
fn samplers_of_the_programs_own_as_pytorchs() {
    assert_eq!(
        python_printed("samplers", SAMPLERS),
        [
            "True True False",
            "3",
            "[0.0, 2.0, 4.0, 6.0] [0, 20, 40, 60]",
            "[8.0, 1.0, 3.0, 5.0] [80, 10, 30, 50]",
            "[7.0, 9.0] [70, 90]",
            "[0.0, 2.0, 4.0, 6.0] [0, 20, 40, 60]",
            "[8.0, 1.0, 3.0, 5.0] [80, 10, 30, 50]",
            "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]",
            "2",
            "[9.0, 8.0, 7.0]",
            "[1.0]",
            "2",
            "[0.0, 1.0]",
            "[5.0, 6.0, 7.0]",
            "3 [[0, 1, 2], [3, 4, 5], [6, 7, 8]]",
            "[[0, 1], [2, 3], [4]]",
            "[[0, 2], [4, 1], [3]]",
            "[4, 4, 2]",
            "[0, 1]",
            "[2, 3]",
            "[3, 2]",
            "[5.0, 3.0]",
            "<class 'torch.utils.data.sampler.BatchSampler'> <class '__main__.EvenFirst'>",
            "ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
            "ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
            "ValueError: sampler option is mutually exclusive with shuffle",
            "ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
            "[1.0]",
            "[2.0]",
            "TypeError: object of type 'NoLen' has no len()",
            "ValueError: batch_size should be a positive integer value, but got batch_size=0",
            "2 [[4.0, 0.0], [2.0]]",
            "2 [[0, 10], [20]]",
        ]
    );
}

const LOOP_TARGETS: &str = r#"for (a, b) in [(1, 2), (3, 4)]:
    print(a, b)
for (a, b), c in [((1, 2), 5)]:
    print(a, b, c)
for x, in [[7], [8]]:
    print(x)
for (x,) in [[7], [8]]:
    print(x)
for x in [[7], [8]]:
    print(x)
for i, (a, b) in enumerate([(1, 2)]):
    print(i, a, b)
print([a + b for (a, b) in [(1, 2)]])
"#;

#[test]
fn loop_targets_unpack_as_pythons() {
    // As Python 3.11 printed them: `for (x,) in` and `for x, in` unpack
    // the item into one name, `for (a, b) in` into two.
    assert_eq!(
        python_printed("loop_targets", LOOP_TARGETS),
        ["1 2", "3 4", "1 2 5", "7", "8", "7", "8", "[7]", "[8]", "0 1 2", "[3]",]
    );
}

/// Attention's inputs, outputs and gradients (data from formulas), and
/// its masks and checks.
const ATTENTION: &str = r#"import torch
import torch.nn.functional as F
def data(*shape, k=1.0):
    n = 1
    for d in shape:
        n *= d
    return (torch.arange(n, dtype=torch.float32).reshape(shape) * 0.37 * k).sin()
q = data(2, 2, 3, 4).requires_grad_()
k = data(2, 2, 5, 4, k=1.3).requires_grad_()
v = data(2, 2, 5, 6, k=0.7).requires_grad_()
out = F.scaled_dot_product_attention(q, k, v)
print(out.shape, round(out.sum().item(), 5))
print([round(x, 5) for x in out[1, 0, 2].tolist()])
(out * data(2, 2, 3, 6, k=0.3)).sum().backward()
print([round(x, 5) for x in q.grad[0, 1, 1].tolist()])
print([round(x, 5) for x in k.grad[1, 1, 4].tolist()])
print([round(x, 5) for x in v.grad[0, 0, 3].tolist()])
x = data(3, 4)
c = F.scaled_dot_product_attention(x, x, x, is_causal=True)
print([round(t, 5) for t in c[1].tolist()], [round(t, 5) for t in c[0].tolist()] == [round(t, 5) for t in x[0].tolist()])
m = torch.tensor([[True, False, True, True, False]] * 3)
a = F.scaled_dot_product_attention(q.detach(), k.detach(), v.detach(), attn_mask=m, scale=0.5)
print([round(t, 5) for t in a[0, 1, 0].tolist()])
fm = data(3, 5, k=2.0)
b = F.scaled_dot_product_attention(q.detach(), k.detach(), v.detach(), attn_mask=fm)
print([round(t, 5) for t in b[1, 1, 2].tolist()])
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=True)
except Exception as e:
    print(type(e).__name__, e)
q5 = data(1, 2, 3).requires_grad_()
m5 = torch.tensor([[False, False], [True, False]])
r = F.scaled_dot_product_attention(q5, q5, q5, attn_mask=m5)
(r * data(1, 2, 3, k=2.0)).sum().backward()
print([[round(t, 5) for t in row] for row in r[0].tolist()], [[round(t, 5) for t in row] for row in q5.grad[0].tolist()])
"#;

#[test]
fn scaled_dot_product_attention_as_pytorchs() {
    // Each line as PyTorch 2.15 printed it (to 5 decimals: its fused CPU
    // kernel rounds a few ulp apart from the math path cudash computes).
    assert_eq!(
        python_printed("attention", ATTENTION),
        [
            "torch.Size([2, 2, 3, 6]) 3.86074",
            "[0.10676, 0.10382, 0.09396, 0.07784, 0.05652, 0.03143]",
            "[-0.2311, -0.28903, -0.28138, -0.20987]",
            "[-0.07489, 0.02119, 0.11439, 0.19212]",
            "[0.19858, 0.23674, 0.27198, 0.30387, 0.33202, 0.35609]",
            "[0.67321, 0.76698, 0.75695, 0.64446] True",
            "[0.5385, 0.61634, 0.65307, 0.64624, 0.5963, 0.50658]",
            "[-0.61824, -0.64955, -0.63752, -0.58297, -0.48954, -0.36344]",
            "RuntimeError _scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True",
            "[[0.0, 0.0, 0.0], [0.0, 0.36162, 0.67429]] [[0.79657, 0.1806, -0.52984], [0.0, 0.0, 0.0]]",
        ]
    );
}

const STREAMS: &str = r#"import sys
print("a", file=sys.stderr)
sys.stdout.write("b\n")
sys.stderr.write("c\n")
sys.stdout.write("step 1")
sys.stdout.flush()
sys.stdout.write(" done\n")
print("x", "y", sep="-", file=sys.stdout)
with open("cudash-print-file.txt", "w") as f:
    print("to file", 3, file=f)
    print("more", file=f, end="")
print(open("cudash-print-file.txt").read())
print(sys.stdout)
n = sys.stderr.write("partial ")
print(n)
sys.stderr.write("end\n")
"#;

#[test]
fn sys_stdout_stderr_and_print_to_a_file_as_pythons() {
    let (out, err, ok) = common::script_streams("streams", STREAMS);
    // Each stream as Python 3.11 wrote it.
    assert_eq!(
        out,
        "b\nstep 1 done\nx-y\nto file 3\nmore\n\
         <_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>\n8\n"
    );
    assert_eq!(err, "a\nc\npartial end\n");
    assert!(ok);
}

#[test]
fn lower_case_literals_are_names_in_python() {
    // cudash's `none`, `true` and `false` are Python names in a .py file.
    assert_eq!(
        python_printed(
            "literal_names",
            "out, none = 1, None\ntrue = 'yes'\nprint(out, none, true, True, None)\n\
             import torch\nprint(torch.arange(6).narrow(0, 2, 3).tolist(), torch.arange(6).narrow(0, -2, 2).tolist())\n\
             try:\n    torch.arange(6).narrow(0, 4, 3)\nexcept RuntimeError as e:\n    print(e)\n",
        ),
        [
            "1 None yes True None",
            "[2, 3, 4] [4, 5]",
            "start (4) + length (3) exceeds dimension size (6).",
        ]
    );
}

const FACTS: &str = r#"import torch
x = torch.arange(24.).reshape(2, 3, 4)
print(x.dim(), x.ndimension(), x.nelement(), x.element_size(), x.half().element_size(), x.is_floating_point(), x.long().is_floating_point())
t = x.transpose(0, 2)
print(x.is_contiguous(), t.is_contiguous(), x.stride(), t.stride(), t.stride(1), x[1, 1:].storage_offset(), x[:, 2].stride())
print(x.swapaxes(0, 1).shape, x.swapdims(2, 0).shape, x.movedim(0, -1).shape, x.movedim((0, 1), (2, 0)).shape, x.movedim(-1, 0).stride())
print(x.unflatten(2, (2, 2)).shape, x.unflatten(1, (-1, 1)).shape)
print(torch.tensor([-2., 3.]).square().tolist(), torch.tensor([-2., 3.]).clamp_min(0).tolist(), torch.tensor([-2., 3.]).clamp_max(0).tolist())
print(torch.arange(3).type_as(x).dtype, torch.transpose(x, 0, 1).shape, torch.reshape(x, (6, 4)).shape, torch.unsqueeze(x, 0).shape, torch.squeeze(x[:1]).shape)
print(torch.flatten(x, 1).shape, torch.chunk(x, 2, 2)[0].shape, [p.shape for p in torch.split(x, 1)], torch.clone(x).sum().item(), torch.t(x[0]).shape)
print(torch.narrow(x, 2, 1, 2).shape, torch.permute(x, (2, 0, 1)).shape, torch.square(torch.tensor(3.)).item(), torch.numel(x), torch.is_floating_point(x))
print(torch.swapaxes(x, 0, 2).shape, torch.movedim(x, 1, 0).shape, torch.unflatten(x, 0, (1, 2)).shape, torch.flip(x, (0,))[0, 0, 0].item())
a = torch.ones(2, 3, requires_grad=True)
print(a.square().grad_fn.name(), a.movedim(0, 1).grad_fn.name(), a.unflatten(1, (3, 1)).grad_fn.name(), a.swapaxes(0, 1).grad_fn.name(), torch.transpose(input=a, dim0=0, dim1=1).grad_fn.name())
"#;

#[test]
fn a_tensors_facts_and_torch_functions_of_its_methods_as_pytorchs() {
    // dim/stride/storage_offset/is_contiguous, the methods PyTorch has under
    // other names, and `torch.X(x, ...)` for a method `x.X(...)`: each line
    // as PyTorch 2.15 printed it.
    assert_eq!(
        python_printed("facts", FACTS),
        [
            "3 3 24 4 2 True False",
            "True False (12, 4, 1) (1, 4, 12) 4 16 (12, 1)",
            "torch.Size([3, 2, 4]) torch.Size([4, 3, 2]) torch.Size([3, 4, 2]) torch.Size([3, 4, 2]) (1, 12, 4)",
            "torch.Size([2, 3, 2, 2]) torch.Size([2, 3, 1, 4])",
            "[4.0, 9.0] [0.0, 3.0] [-2.0, 0.0]",
            "torch.float32 torch.Size([3, 2, 4]) torch.Size([6, 4]) torch.Size([1, 2, 3, 4]) torch.Size([3, 4])",
            "torch.Size([2, 12]) torch.Size([2, 3, 2]) [torch.Size([1, 3, 4]), torch.Size([1, 3, 4])] 276.0 torch.Size([4, 3])",
            "torch.Size([2, 3, 2]) torch.Size([4, 2, 3]) 9.0 24 True",
            "torch.Size([4, 3, 2]) torch.Size([3, 2, 4]) torch.Size([1, 2, 3, 4]) 12.0",
            "PowBackward0 PermuteBackward0 ViewBackward0 TransposeBackward0 TransposeBackward0",
        ]
    );
}

const SET_GRAD_ENABLED: &str = r#"import torch
w = torch.ones(2, requires_grad=True)
for phase in ["train", "val"]:
    with torch.set_grad_enabled(phase == "train"):
        y = w * 2
        print(phase, y.requires_grad, torch.is_grad_enabled())
    print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((w * 2).requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(True):
    print((w * 2).requires_grad)
print(torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.no_grad():
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
"#;

#[test]
fn set_grad_enabled_as_pytorchs() {
    // A call sets the mode at once; its `with` block ends in the mode
    // before the call (the transfer-learning tutorial's train/val phases).
    assert_eq!(
        python_printed("set_grad_enabled", SET_GRAD_ENABLED),
        [
            "train True True",
            "True",
            "val False False",
            "True",
            "False False",
            "True",
            "False",
            "False",
            "True"
        ]
    );
}

/// `glob.glob` over a directory of the test's own (the NLP tutorials'
/// `glob.glob('data/names/*.txt')`), and `string`'s constants.
const GLOB: &str = r#"import glob, os, string
print(sorted(glob.glob('data/names/*.txt')))
print(sorted(glob.glob('data/**/*.txt', recursive=True)))
print(sorted(glob.glob('data/**/*.txt')))
print(sorted(glob.glob('data/names/[EF]*.txt')), glob.glob('data/names/nothing*'), glob.glob('data/names/notes.md'))
print(sorted(glob.glob('data/*')), sorted(glob.glob('./data/names/?rench.txt')))
for filename in sorted(glob.glob('data/names/*.txt')):
    print(os.path.splitext(os.path.basename(filename))[0])
print(string.ascii_letters + " .,;'", len(string.printable), string.punctuation, string.digits)
"#;

#[test]
fn glob_and_string_as_pythons() {
    let dir = std::env::temp_dir().join(format!("cudash-glob-{}", std::process::id()));
    for d in ["data/names", "data/sub/deep"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    for f in [
        "data/names/English.txt",
        "data/names/French.txt",
        "data/names/.hidden.txt",
        "data/names/notes.md",
        "data/sub/deep/x.txt",
        "data/sub/y.txt",
    ] {
        std::fs::write(dir.join(f), "").unwrap();
    }
    std::fs::write(dir.join("g.py"), GLOB).unwrap();
    let out = run_python(std::path::Path::new("g.py"), Some(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    // Each line as Python 3.11 printed it.
    assert_eq!(
        out,
        [
            r#"['data/names/English.txt', 'data/names/French.txt']"#,
            r#"['data/names/English.txt', 'data/names/French.txt', 'data/sub/deep/x.txt', 'data/sub/y.txt']"#,
            r#"['data/names/English.txt', 'data/names/French.txt', 'data/sub/y.txt']"#,
            r#"['data/names/English.txt', 'data/names/French.txt'] [] ['data/names/notes.md']"#,
            r#"['data/names', 'data/sub'] ['./data/names/French.txt']"#,
            r#"English"#,
            r#"French"#,
            r##"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ .,;' 100 !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~ 0123456789"##,
        ]
    );
}

/// `add_bias_kv` and `add_zero_attn`: one more key and value (learnt, or
/// zeros), the masks a column wider, through both paths, batched or not.
const BIAS_KV: &str = r#"import torch, torch.nn as nn
def fill(m):
    with torch.no_grad():
        for k, (name, p) in enumerate(m.named_parameters()):
            p.copy_(torch.sin(torch.arange(p.numel()) * 0.37 + k).view_as(p) * 0.3)
def data(*shape, k=0):
    n = 1
    for s in shape:
        n *= s
    return torch.cos(torch.arange(n) * 0.23 + k).view(*shape)
def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.flatten().tolist()][:8])
for kv, zero in [(True, False), (False, True), (True, True)]:
    attn = nn.MultiheadAttention(8, 2, add_bias_kv=kv, add_zero_attn=zero)
    print([n for n, _ in attn.named_parameters()], attn.add_zero_attn, attn.bias_k is None)
    fill(attn)
    x = data(5, 3, 8).requires_grad_()
    mask = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
    kpm = torch.tensor([[False] * 5, [False, False, False, True, True], [False] * 5])
    out, w = attn(x, x, x, attn_mask=mask, key_padding_mask=kpm)
    show("out", out); show("w", w[1])
    out2, _ = attn(x, x, x, need_weights=False)
    show("sdpa", out2)
    (out.sum() + out2.sum()).backward()
    show("x.grad", x.grad)
    if kv:
        show("bias_k.grad", attn.bias_k.grad)
    u, uw = attn(data(4, 8), data(6, 8, k=1), data(6, 8, k=2))
    show("unbatched", uw)
"#;

#[test]
fn multihead_attention_extra_keys_as_pytorchs() {
    // Each line as PyTorch 2.15 printed it.
    assert_eq!(
        python_printed("bias_kv", BIAS_KV),
        [
            r#"['in_proj_weight', 'in_proj_bias', 'bias_k', 'bias_v', 'out_proj.weight', 'out_proj.bias'] False False"#,
            r#"out [5, 3, 8] [-0.2355, -0.304, -0.0763, -0.14, 0.1537, 0.0625, 0.3406, 0.1937]"#,
            r#"w [5, 6] [0.2831, 0.0, 0.0, 0.0, 0.0, 0.7169, 0.1371, 0.4733]"#,
            r#"sdpa [5, 3, 8] [-0.4983, -0.0209, -0.3704, 0.1554, -0.1333, 0.3317, 0.0981, 0.4015]"#,
            r#"x.grad [5, 3, 8] [-0.0017, 0.0064, 0.0136, 0.019, 0.0218, 0.0217, 0.0186, 0.013]"#,
            r#"bias_k.grad [1, 1, 8] [0.1127, 0.1464, 0.1166, 0.1446, -0.0858, -0.0027, -0.0205, 0.0735]"#,
            r#"unbatched [4, 7] [0.0931, 0.1667, 0.1718, 0.1214, 0.1119, 0.1908, 0.1443, 0.1767]"#,
            r#"['in_proj_weight', 'in_proj_bias', 'out_proj.weight', 'out_proj.bias'] True True"#,
            r#"out [5, 3, 8] [0.0335, -0.0776, -0.1412, -0.2923, -0.2311, -0.3718, -0.1762, -0.2862]"#,
            r#"w [5, 6] [0.2794, 0.0, 0.0, 0.0, 0.0, 0.7206, 0.1369, 0.4716]"#,
            r#"sdpa [5, 3, 8] [0.062, -0.1354, -0.056, -0.402, -0.1004, -0.5192, -0.017, -0.4519]"#,
            r#"x.grad [5, 3, 8] [0.0308, 0.0311, 0.0271, 0.0195, 0.0092, -0.0023, -0.0135, -0.0229]"#,
            r#"unbatched [4, 7] [0.0932, 0.169, 0.1725, 0.1211, 0.1131, 0.1929, 0.1381, 0.1764]"#,
            r#"['in_proj_weight', 'in_proj_bias', 'bias_k', 'bias_v', 'out_proj.weight', 'out_proj.bias'] True False"#,
            r#"out [5, 3, 8] [-0.2563, -0.2792, -0.1042, -0.1099, 0.1224, 0.094, 0.3099, 0.2224]"#,
            r#"w [5, 7] [0.165, 0.0, 0.0, 0.0, 0.0, 0.4141, 0.4209, 0.1002]"#,
            r#"sdpa [5, 3, 8] [-0.4719, -0.048, -0.3435, 0.1295, -0.1094, 0.3105, 0.1159, 0.3877]"#,
            r#"x.grad [5, 3, 8] [-0.0016, 0.0032, 0.0076, 0.0109, 0.0128, 0.0129, 0.0113, 0.0082]"#,
            r#"bias_k.grad [1, 1, 8] [0.0995, 0.0693, 0.0978, 0.074, -0.0625, -0.0143, -0.0049, 0.05]"#,
            r#"unbatched [4, 8] [0.0815, 0.1473, 0.1508, 0.106, 0.0987, 0.1682, 0.1269, 0.1206]"#,
        ]
    );
}

/// `fmt % mapping`: `%(key)s` takes the mapping's value (logging's formats).
const PERCENT_KEYS: &str = r#"d = {"name": "root", "levelname": "INFO", "n": 3, "x": 2.5}
print("%(levelname)s:%(name)s:%(n)d" % d)
print("%(x)8.3f|%(name)-6s|%(n)03d" % d)
print("%s-%5.2f" % ("a", 3.14159))
print("%s" % {"a": 1})
print("%(n)s %%" % d)
try:
    print("%(zz)s" % d)
except KeyError as e:
    print("KeyError", e)
try:
    print("%(n)s" % (1,))
except TypeError as e:
    print("TypeError", e)
"#;

#[test]
fn percent_format_by_key_as_pythons() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        python_printed("percent_keys", PERCENT_KEYS),
        [
            r#"INFO:root:3"#,
            r#"   2.500|root  |003"#,
            r#"a- 3.14"#,
            r#"{'a': 1}"#,
            r#"3 %"#,
            r#"KeyError 'zz'"#,
            r#"TypeError format requires a mapping"#,
        ]
    );
}

/// Python's `logging` (cudash's own, written in Python: src/eval/stdlib/):
/// the root's last resort and basicConfig, loggers by dotted name, levels,
/// handlers to a stream and a file, formats, propagate, disable.
const LOGGING: &str = r#"import logging
import sys
logging.info("not shown: the root is at WARNING")
logging.warning("careful %s %d", "x", 3)
logging.error("bad")
log = logging.getLogger(__name__)
print(log.name, log.level, log.getEffectiveLevel(), log.parent is logging.root, logging.getLevelName(20), logging.getLevelName("INFO"))
log.setLevel(logging.DEBUG)
log.debug("debug from %s", log.name)
child = logging.getLogger("train.step")
parent = logging.getLogger("train")
print(child.parent.name, parent.parent.name, child.getEffectiveLevel())
h = logging.StreamHandler(sys.stdout)
h.setFormatter(logging.Formatter("[%(levelname)-8s] %(name)s: %(message)s"))
parent.addHandler(h)
parent.setLevel("INFO")
child.info("epoch %d loss %.4f", 1, 0.12345)
parent.propagate = False
child.warning("only on stdout now")
print(parent.hasHandlers(), logging.getLogger("nowhere").hasHandlers(), repr(parent), repr(logging.root))
fh = logging.FileHandler("log1.txt", mode="w")
fh.setLevel(logging.ERROR)
fh.setFormatter(logging.Formatter("%(name)s|%(levelno)d|%(message)s"))
parent.addHandler(fh)
child.error("to both")
child.info("stdout only")
fh.close()
print(open("log1.txt").read().strip())
logging.disable(logging.WARNING)
child.warning("disabled")
logging.disable(logging.NOTSET)
try:
    logging.Formatter("%(lineno)d %(message)s")
except ValueError as e:
    print("ValueError", "lineno" in str(e))
try:
    parent.setLevel("LOUD")
except ValueError as e:
    print(e)
"#;

#[test]
fn logging_as_pythons() {
    let (out, err, ok) = common::script_streams("log_lines", LOGGING);
    // Both streams as Python 3.11 wrote them, but for the line
    // "ValueError True": CPython's records know the caller's line, cudash's
    // refuse a format that asks for it.
    assert_eq!(
        out,
        "__main__ 0 30 True INFO 20\n\
         train root 30\n\
         [INFO    ] train.step: epoch 1 loss 0.1235\n\
         [WARNING ] train.step: only on stdout now\n\
         True True <Logger train (INFO)> <RootLogger root (WARNING)>\n\
         [ERROR   ] train.step: to both\n\
         [INFO    ] train.step: stdout only\n\
         train.step|40|to both\n\
         ValueError True\n\
         Unknown level: 'LOUD'\n\
         "
    );
    assert_eq!(
        err,
        "WARNING:root:careful x 3\n\
         ERROR:root:bad\n\
         DEBUG:__main__:debug from __main__\n\
         INFO:train.step:epoch 1 loss 0.1235\n\
         "
    );
    assert!(ok);
}

/// A DataLoader worker's log lines (its `sys.stderr`) reach the session's
/// stderr, as a worker process's do, when its batch is handed out.
const WORKER_LOG: &str = r#"import logging
import torch
from torch.utils.data import Dataset, DataLoader
log = logging.getLogger("data")
class Squares(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        log.warning("item %d", i)
        return torch.tensor(float(i * i))
for b in DataLoader(Squares(), batch_size=2, num_workers=2):
    print(b.tolist())
"#;

#[test]
fn a_workers_log_lines_reach_stderr() {
    let (out, err, ok) = common::script_streams("worker_log", WORKER_LOG);
    assert_eq!(out, "[0.0, 1.0]\n[4.0, 9.0]\n");
    // PyTorch's two processes write in either order; cudash shows a batch's
    // lines with it.
    assert_eq!(err, "item 0\nitem 1\nitem 2\nitem 3\n");
    assert!(ok);
}

/// Operator methods of a program's class: `__add__`, `__rmul__`,
/// `__truediv__`, `__eq__` (and `!=` from it), `__lt__` (and `>` mirrored),
/// `__iadd__` for `+=` on a name and on a dict item.
const OPERATORS: &str = r#"class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def __sub__(self, o):
        return Vec(self.x - o.x, self.y - o.y)
    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)
    def __rmul__(self, k):
        return self * k
    def __truediv__(self, k):
        return Vec(self.x / k, self.y / k)
    def __eq__(self, o):
        return isinstance(o, Vec) and self.x == o.x and self.y == o.y
    def __lt__(self, o):
        return (self.x, self.y) < (o.x, o.y)
    def __repr__(self):
        return f"Vec({self.x}, {self.y})"

class Meter:
    def __init__(self):
        self.total = 0
    def __iadd__(self, v):
        self.total += v
        return self
a, b = Vec(1, 2), Vec(3, 4)
print(a + b, b - a, a * 3, 2 * a, b / 2, a == Vec(1, 2), a != b, a != Vec(1, 2), a < b, b > a)
m = Meter()
m += 5
m += 2.5
print(m.total)
acc = Vec(0, 0)
for v in [a, b]:
    acc += v
print(acc)
d = {"v": a}
d["v"] += b
print(d["v"])
try:
    a @ b
except TypeError as e:
    print("TypeError")
"#;

#[test]
fn operator_methods_as_pythons() {
    // Each line as Python 3.11 printed it.
    assert_eq!(
        python_printed("operators", OPERATORS),
        [
            r#"Vec(4, 6) Vec(2, 2) Vec(3, 6) Vec(2, 4) Vec(1.5, 2.0) True True False True True"#,
            r#"7.5"#,
            r#"Vec(4, 6)"#,
            r#"Vec(4, 6)"#,
            r#"TypeError"#,
        ]
    );
}

const TORCH_INFO: &str = r#"
import torch
a = torch.tensor([[0, 2], [0, 0], [1, 1]])
print(a.any(dim=1).tolist(), a.all(dim=0).tolist(), a.all(dim=1, keepdim=True).tolist(), torch.any(a, dim=0).tolist(), a.bool().all().item())
w = torch.where(a > 0)
print(len(w), [t.tolist() for t in w])
c = torch.zeros(2)
d = c
print(id(c) == id(d), id(c) == id(torch.zeros(2)), type(id(c)).__name__)
f = torch.finfo(torch.float32)
print(f.eps, f.max, f.min, f.tiny, f.bits, torch.finfo(torch.float16).eps, torch.finfo(torch.bfloat16).max, torch.finfo().eps, torch.finfo(torch.float64).eps)
i = torch.iinfo(torch.int64)
print(i.max, i.min, i.bits, torch.iinfo(torch.int32).max)
print(torch.get_default_dtype(), torch.Size([2, 3]), torch.Size([2, 3]) == (2, 3), torch.broadcast_shapes((2, 1), (1, 3), (3,)))
x, y = torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))
print(x.shape, y.shape)
try:
    torch.finfo(torch.int64)
except TypeError as e:
    print("TypeError:", e)
"#;

/// `any`/`all` along a dim, `torch.where(cond)`, `id`, `torch.finfo` and
/// `iinfo`, `torch.Size`, the broadcast helpers: each line as PyTorch 2.15
/// printed it.
#[test]
fn torch_info_as_pytorchs() {
    assert_eq!(
        python_printed("torch_info", TORCH_INFO),
        [
            "[True, False, True] [False, False] [[False], [False], [True]] [True, True] False",
            "2 [[0, 2, 2], [1, 0, 1]]",
            "True False int",
            "1.1920928955078125e-07 3.4028234663852886e+38 -3.4028234663852886e+38 1.1754943508222875e-38 32 0.0009765625 3.3895313892515355e+38 1.1920928955078125e-07 2.220446049250313e-16",
            "9223372036854775807 -9223372036854775808 64 2147483647",
            "torch.float32 torch.Size([2, 3]) True torch.Size([2, 3])",
            "torch.Size([2, 3]) torch.Size([2, 3])",
            "TypeError: torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'",
        ]
    );
}

const PLATEAU: &str = r#"
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau
w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=1.0)
s = ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=0.1)
for i, loss in enumerate([5.0, 4.0, 4.0, 4.0, 4.0, 3.9999, 4.1, 4.2, 4.3, 4.4, 4.5, 4.6, 4.7, 4.8]):
    opt.step()
    s.step(torch.tensor(loss))
    print(i, s.get_last_lr(), opt.param_groups[0]["lr"], s.num_bad_epochs if hasattr(s, "num_bad_epochs") else None, s.last_epoch)
s2 = torch.optim.lr_scheduler.ReduceLROnPlateau(torch.optim.Adam([w], lr=0.01), mode="max", threshold=0.1, threshold_mode="abs", patience=0)
for acc in [0.5, 0.55, 0.7, 0.75, 0.9]:
    s2.step(acc)
    print(s2.get_last_lr())
try:
    ReduceLROnPlateau(opt, factor=1.5)
except ValueError as e:
    print("ValueError:", e)
"#;

/// ReduceLROnPlateau: patience, factor, cooldown, min_lr, mode "max" with
/// an absolute threshold, a tensor metric; each line as PyTorch 2.15 printed it.
#[test]
fn reduce_lr_on_plateau_as_pytorchs() {
    assert_eq!(
        python_printed("plateau", PLATEAU),
        [
            r#"0 [1.0] 1.0 0 1"#,
            r#"1 [1.0] 1.0 0 2"#,
            r#"2 [1.0] 1.0 1 3"#,
            r#"3 [1.0] 1.0 2 4"#,
            r#"4 [0.5] 0.5 0 5"#,
            r#"5 [0.5] 0.5 0 6"#,
            r#"6 [0.5] 0.5 1 7"#,
            r#"7 [0.5] 0.5 2 8"#,
            r#"8 [0.25] 0.25 0 9"#,
            r#"9 [0.25] 0.25 0 10"#,
            r#"10 [0.25] 0.25 1 11"#,
            r#"11 [0.25] 0.25 2 12"#,
            r#"12 [0.125] 0.125 0 13"#,
            r#"13 [0.125] 0.125 0 14"#,
            r#"[0.01]"#,
            r#"[0.001]"#,
            r#"[0.001]"#,
            r#"[0.0001]"#,
            r#"[0.0001]"#,
            r#"ValueError: Factor should be < 1.0."#,
        ]
    );
}

/// `lambda *args, **kwargs`, as a wrapper's short form writes it.
#[test]
fn a_lambda_takes_star_args() {
    assert_eq!(
        python_printed(
            "lambda_star",
            "f = lambda *a, **k: (len(a), sorted(k))\nprint(f(1, 2, x=3))\ng = lambda x, *rest: x + sum(rest)\nprint(g(1, 2, 3), (lambda: 5)())\n",
        ),
        ["(2, ['x'])", "6 5"]
    );
}

/// The schedulers of a warm-up and a restart (`LinearLR`, `ConstantLR`,
/// `PolynomialLR`, `MultiplicativeLR`, `CosineAnnealingWarmRestarts`) and
/// their combinations (`SequentialLR`, `ChainedScheduler`), as PyTorch
/// 2.15 printed them: every scheduler's `base_lrs` are the groups'
/// `initial_lr`, set by the first one made.
#[test]
fn warm_up_and_restart_schedulers_as_pytorchs() {
    assert_eq!(
        python_printed("schedulers", SCHEDULERS),
        [
            r#"linear [[0.04375], [0.0625], [0.08125], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1]]"#,
            r#"linear down [[0.082, 0.41], [0.064, 0.32], [0.046, 0.23], [0.028, 0.14], [0.01, 0.05], [0.01, 0.05], [0.01, 0.05], [0.01, 0.05], [0.01, 0.05], [0.01, 0.05], [0.01, 0.05], [0.01, 0.05]]"#,
            r#"constant [[0.05], [0.05], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1], [0.1]]"#,
            r#"poly [[0.0694444444], [0.0444444444], [0.025], [0.0111111111], [0.0027777778], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]"#,
            r#"mult [[0.09], [0.081], [0.0729], [0.06561], [0.032805], [0.0164025], [0.00820125], [0.004100625], [0.0020503125], [0.0010251563], [0.0005125781], [0.0002562891]]"#,
            r#"warm restarts [[0.0775], [0.0325], [0.1], [0.0939711432], [0.0775], [0.055], [0.0325], [0.0160288568], [0.1], [0.0984666622], [0.0939711432], [0.0868198052], [0.0775], [0.066646857], [0.055], [0.043353143]]"#,
            r#"warm restarts 1 [[0.0853553391, 0.4267766953], [0.05, 0.25], [0.0146446609, 0.0732233047], [0.1, 0.5], [0.0853553391, 0.4267766953], [0.05, 0.25], [0.0146446609, 0.0732233047], [0.1, 0.5], [0.0853553391, 0.4267766953], [0.05, 0.25], [0.0146446609, 0.0732233047], [0.1, 0.5]]"#,
            r#"seq warm cos [[0.04], [0.07], [0.1], [0.0933682575], [0.07525], [0.0505], [0.02575], [0.0076317425], [0.001], [0.0076317425], [0.02575], [0.0505]]"#,
            r#"seq three [[0.05, 0.25], [0.1, 0.5], [0.08, 0.4], [0.064, 0.32], [0.0512, 0.256], [0.1, 0.5], [0.1, 0.5], [0.05, 0.25], [0.05, 0.25], [0.025, 0.125], [0.025, 0.125], [0.0125, 0.0625]]"#,
            r#"seq lambda [[0.0666666667], [0.1], [0.1], [0.1], [0.05], [0.05], [0.025], [0.025], [0.025], [0.025], [0.025], [0.025]]"#,
            r#"chained [[0.009], [0.0081], [0.0729], [0.06561], [0.059049], [0.0531441], [0.04782969], [0.043046721], [0.0387420489], [0.034867844], [0.0313810596], [0.0282429536]]"#,
            r#"chained opt [[0.075, 0.375], [0.1, 0.5], [0.05, 0.25], [0.05, 0.25], [0.05, 0.25], [0.025, 0.125], [0.025, 0.125], [0.025, 0.125], [0.0125, 0.0625], [0.0125, 0.0625], [0.0125, 0.0625], [0.00625, 0.03125]]"#,
        ]
    );
}

const SCHEDULERS: &str = r#"import math
import torch
from torch.optim.lr_scheduler import (LinearLR, ConstantLR, PolynomialLR, MultiplicativeLR, CosineAnnealingWarmRestarts,
                                      SequentialLR, ChainedScheduler, CosineAnnealingLR, ExponentialLR, StepLR, LambdaLR, MultiStepLR)
def run(name, make, n=12, groups=1):
    w = torch.zeros(2, requires_grad=True)
    v = torch.zeros(2, requires_grad=True)
    params = [{"params": [w]}, {"params": [v], "lr": 0.5}] if groups == 2 else [w]
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    s = make(opt)
    out = []
    for e in range(n):
        opt.step()
        s.step()
        out.append([round(x, 10) for x in s.get_last_lr()])
    print(name, out)
run("linear", lambda o: LinearLR(o, start_factor=0.25, total_iters=4))
run("linear down", lambda o: LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=5), groups=2)
run("constant", lambda o: ConstantLR(o, factor=0.5, total_iters=3))
run("poly", lambda o: PolynomialLR(o, total_iters=6, power=2.0))
run("mult", lambda o: MultiplicativeLR(o, lambda e: 0.9 if e < 5 else 0.5))
run("warm restarts", lambda o: CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01), n=16)
run("warm restarts 1", lambda o: CosineAnnealingWarmRestarts(o, T_0=4), groups=2)
run("seq warm cos", lambda o: SequentialLR(o, [LinearLR(o, start_factor=0.1, total_iters=3), CosineAnnealingLR(o, T_max=6, eta_min=0.001)], milestones=[3]))
run("seq three", lambda o: SequentialLR(o, [ConstantLR(o, factor=0.5, total_iters=2), ExponentialLR(o, gamma=0.8), StepLR(o, step_size=2, gamma=0.5)], milestones=[2, 6]), groups=2)
run("seq lambda", lambda o: SequentialLR(o, [LambdaLR(o, lambda e: (e + 1) / 3), MultiStepLR(o, milestones=[2, 4], gamma=0.5)], milestones=[3]))
run("chained", lambda o: ChainedScheduler([ConstantLR(o, factor=0.1, total_iters=3), ExponentialLR(o, gamma=0.9)]))
run("chained opt", lambda o: ChainedScheduler([LinearLR(o, start_factor=0.5, total_iters=2), StepLR(o, step_size=3, gamma=0.5)], optimizer=o), groups=2)
"#;

/// A CPU tensor's random numbers are PyTorch's own for the seed, also
/// from a program's `torch.Generator` (each draw advancing it): normal,
/// integer, multinomial without replacement (the exponential trick),
/// exponential, `random_`, `torch.normal` of tensors, Bernoulli, half
/// precision's uniform and bfloat16's Box–Muller block, `uniform_` with
/// bounds. Every expected line is what PyTorch 2.15 printed.
#[test]
fn random_numbers_on_the_cpu_are_pytorchs() {
    let out = python_printed(
        "cpu_random",
        "import torch\n\
         g = torch.Generator().manual_seed(2147483647)\n\
         print(torch.randn(3, generator=g).tolist(), torch.randint(0, 100, (4,), generator=g).tolist())\n\
         p = torch.tensor([0.1, 0.2, 0.3, 0.4])\n\
         print(torch.multinomial(p, 1, generator=g).tolist(), torch.multinomial(p, 3, generator=g).tolist())\n\
         torch.manual_seed(3)\n\
         print(torch.empty(4).exponential_(2.0).tolist(), torch.empty(5, dtype=torch.int64).random_(0, 7).tolist())\n\
         print(torch.normal(torch.zeros(3), torch.ones(3)).tolist(), torch.empty(2).bernoulli_(0.5).tolist())\n\
         print(torch.rand(3, dtype=torch.float16).tolist(), torch.randn(16, dtype=torch.bfloat16)[:3].tolist())\n\
         print(torch.empty(3).uniform_(-2, 3, generator=torch.Generator().manual_seed(7)).tolist())\n",
    );
    assert_eq!(
        out,
        [
            "[-0.9800073504447937, -1.6578478813171387, -0.05716622993350029] [47, 7, 61, 75]",
            "[1] [3, 1, 2]",
            "[0.017351727932691574, 0.1689547896385193, 0.7412153482437134, 0.09614172577857971] [5, 0, 6, 6, 0]",
            "[0.35698026418685913, 1.4566794633865356, -3.062739610671997] [0.0, 1.0]",
            "[0.187744140625, 0.292724609375, 0.599609375] [-0.345703125, 0.494140625, -0.07763671875]",
            "[0.6746127009391785, -1.0059840679168701, 1.2960584163665771]",
        ]
    );
}

/// A CPU generator given for a CUDA tensor is PyTorch's error; the
/// session goes on.
#[test]
fn a_cpu_generator_for_a_cuda_tensor_is_refused() {
    let out = common::ok(
        "import torch\n\
         try:\n    torch.randn(2, device=\"cuda\", generator=torch.Generator())\n\
         except RuntimeError as e:\n    print(e)\n\
         try:\n    torch.ones(3, device=\"cuda\").normal_(generator=torch.Generator())\n\
         except RuntimeError as e:\n    print(e)\n\
         print(torch.randn(2, device=\"cuda\").shape)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "Expected a 'cuda' device type for generator but found 'cpu'",
            "Expected a 'cuda' device type for generator but found 'cpu'",
            "torch.Size([2])",
        ]
    );
}

/// `itertools` beside `count`, `math.prod`, `enumerate` of a string and a
/// dict, `zero_grad(set_to_none=False)`, a list of pairs as a dataset and
/// a split of a `range`, as Python and PyTorch give them.
#[test]
fn itertools_and_sequences_as_datasets() {
    let out = python_printed(
        "itertools",
        "import torch, math, itertools\n\
         import torch.nn as nn\n\
         from itertools import chain, islice, product, combinations, permutations, zip_longest, count, repeat\n\
         print(list(enumerate(\"ab\", start=1)), list(enumerate({\"a\": 1})))\n\
         print(list(chain([1], (2, 3), \"ab\")), list(islice(count(5), 3)), list(islice(\"abcdef\", 1, 5, 2)))\n\
         def gen():\n    i = 0\n    while True:\n        yield i\n        i += 1\n\
         print(list(islice(gen(), 4)), list(product([0, 1], repeat=2)), list(combinations(\"abc\", 2)))\n\
         print(list(permutations([1, 2, 3], 2)), list(zip_longest([1, 2], \"a\", fillvalue=0)), list(repeat(\"x\", 3)))\n\
         print(next(chain([7], [8])), math.prod([2, 3, 4]), math.prod([]), math.prod([1.5, 2]))\n\
         m1, m2 = nn.Linear(2, 2), nn.Linear(2, 1)\n\
         opt = torch.optim.SGD(itertools.chain(m1.parameters(), m2.parameters()), lr=0.1)\n\
         m2(m1(torch.ones(1, 2))).sum().backward()\n\
         opt.zero_grad(set_to_none=False)\n\
         print(len(opt.param_groups[0][\"params\"]), m1.weight.grad.tolist())\n\
         loader = torch.utils.data.DataLoader([(torch.ones(2) * i, i) for i in range(4)], batch_size=2)\n\
         for x, y in loader:\n    print(x.tolist(), y.tolist())\n\
         a, b = torch.utils.data.random_split(range(10), [8, 2], generator=torch.Generator().manual_seed(0))\n\
         print(list(a), list(b), len(a))\n",
    );
    assert_eq!(
        out,
        [
            "[(1, 'a'), (2, 'b')] [(0, 'a')]",
            "[1, 2, 3, 'a', 'b'] [5, 6, 7] ['b', 'd']",
            "[0, 1, 2, 3] [(0, 0), (0, 1), (1, 0), (1, 1)] [('a', 'b'), ('a', 'c'), ('b', 'c')]",
            "[(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)] [(1, 'a'), (2, 0)] ['x', 'x', 'x']",
            "7 24 1 3.0",
            "4 [[0.0, 0.0], [0.0, 0.0]]",
            "[[0.0, 0.0], [1.0, 1.0]] [0, 1]",
            "[[2.0, 2.0], [3.0, 3.0]] [2, 3]",
            "[4, 1, 7, 5, 3, 9, 0, 8] [6, 2] 8",
        ]
    );
}

/// `nn.Sequential(OrderedDict(...))` names its layers by the dict's keys;
/// `torch.backends.mps` says there is no Apple GPU (the quickstart's
/// device line), and `torch.__version__` is the PyTorch cudash follows.
#[test]
fn a_sequential_of_named_layers_and_the_device_line() {
    let out = python_printed(
        "named_sequential",
        "import torch\nfrom collections import OrderedDict\nfrom torch import nn\n\
         m = nn.Sequential(OrderedDict([(\"fc1\", nn.Linear(2, 3)), (\"act\", nn.ReLU())]))\n\
         print(m)\nprint(m.fc1.out_features, [n for n, _ in m.named_parameters()])\n\
         device = (\"cuda\" if torch.cuda.is_available() else \"mps\" if torch.backends.mps.is_available() else \"cpu\")\n\
         print(f\"Using {device} device\", torch.__version__.split(\".\")[0])\n",
    );
    assert_eq!(
        out,
        [
            "Sequential(",
            "  (fc1): Linear(in_features=2, out_features=3, bias=True)",
            "  (act): ReLU()",
            ")",
            "3 ['fc1.weight', 'fc1.bias']",
            "Using cpu device 2",
        ]
    );
}

/// Class weights (`weight=`) of `cross_entropy`, `nll_loss` and their
/// modules (a `weight` buffer, in `state_dict`): the loss, the gradient,
/// an ignored row, `reduction="none"` and PyTorch's refusal of a weight of
/// the wrong length; every line as PyTorch 2.15 printed it.
#[test]
fn class_weights_of_the_cross_entropies_are_pytorchs() {
    let out = python_printed(
        "class_weights",
        r#"import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([[0.2, 1.0, -0.5], [0.3, -0.1, 0.8]], requires_grad=True)
t = torch.tensor([1, 2])
w = torch.tensor([1.0, 2.0, 0.5])
l = nn.CrossEntropyLoss(weight=w)(x, t); l.backward(); print(l.item(), x.grad.tolist())
print(F.cross_entropy(x, t, weight=w, reduction="sum").item())
print(nn.NLLLoss(weight=w)(F.log_softmax(x, 1), t).item())
print(F.nll_loss(F.log_softmax(x, 1), torch.tensor([1, -100]), weight=w).item())
print(F.cross_entropy(x, t, weight=w, reduction="none").tolist())
m = nn.CrossEntropyLoss(weight=w)
print(list(m.state_dict().keys()), m)
try:
    F.cross_entropy(x, t, weight=torch.ones(2))
except RuntimeError as e:
    print(e)
"#,
    );
    assert_eq!(
        out,
        [
            "0.5513712763786316 [[0.214930921792984, -0.3216624855995178, 0.10673153400421143], [0.06025835871696472, 0.04039238393306732, -0.10065075755119324]]",
            "1.3784282207489014",
            "0.5513712763786316",
            "0.5142951011657715",
            "[1.028590202331543, 0.3498380184173584]",
            "['weight'] CrossEntropyLoss()",
            "weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: [2]",
        ]
    );
}

/// `nn.RMSNorm` and `F.rms_norm` as PyTorch composes them: the repr, the
/// weight in `state_dict`, the values and gradients, several normalized
/// dims, half precision computed in float (`eps` float's epsilon), and the
/// refusal of a shape that does not end the input's; every line as
/// PyTorch 2.15 printed it.
#[test]
fn rms_norm_is_pytorchs() {
    let out = python_printed(
        "rms_norm",
        r#"import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 3, 4, requires_grad=True)
m = nn.RMSNorm(4)
print(m, nn.RMSNorm([3, 4], eps=1e-6, elementwise_affine=False), list(m.state_dict().keys()))
y = m(x)
(y * torch.arange(24.).reshape(2, 3, 4)).sum().backward()
print(y.grad_fn.name(), y[0, 0].tolist(), x.grad[0, 0].tolist())
print(F.rms_norm(x, (3, 4), eps=1e-5)[1, 2].tolist())
h = torch.randn(2, 4, dtype=torch.float16, requires_grad=True)
z = F.rms_norm(h, (4,))
print(z.grad_fn.name(), z.dtype, z.tolist())
try:
    F.rms_norm(x, (5,))
except RuntimeError as e:
    print(e)
"#,
    );
    assert_eq!(
        out,
        [
            "RMSNorm((4,), eps=None, elementwise_affine=True) RMSNorm((3, 4), eps=1e-06, elementwise_affine=False) ['weight']",
            "MulBackward0 [-1.3346019983291626, -1.3660399913787842, -0.2970428466796875, -0.5143320560455322] [-1.3855499029159546, -0.23276007175445557, 2.0624735355377197, 3.0223171710968018]",
            "[0.5737379789352417, -0.38320162892341614, -0.7807550430297852, -2.1499667167663574]",
            "ToCopyBackward0 torch.float16 [[0.383056640625, 1.505859375, 0.9716796875, 0.80126953125], [0.1937255859375, 1.2763671875, -1.302734375, -0.798828125]]",
            "Given normalized_shape=[5], expected input with shape [*5], but got input of size[2, 3, 4]",
        ]
    );
}

/// `geometric_`, `log_normal_` and `cauchy_`: PyTorch's refusals, its CPU
/// draws for the seed (and from a `generator=`), its nodes; every line as
/// PyTorch 2.15 printed it.
#[test]
fn geometric_log_normal_and_cauchy_draws_are_pytorchs() {
    let out = python_printed(
        "distributions",
        r#"import torch
for f in [lambda: torch.empty(2).geometric_(0), lambda: torch.empty(2).log_normal_(1, 0), lambda: torch.empty(2).cauchy_(0, 0), lambda: torch.empty(2, dtype=torch.int64).log_normal_(), lambda: torch.empty(2, dtype=torch.int64).cauchy_(), lambda: torch.empty(2, dtype=torch.int64).geometric_(0.5).shape]:
    try: print(f())
    except Exception as e: print(type(e).__name__, e)
torch.manual_seed(0)
print(torch.empty(5).geometric_(0.3).tolist(), torch.empty(3).log_normal_(1.0, 2.0).tolist(), torch.empty(3).cauchy_(0.5, 2.0).tolist())
print((torch.ones(3, requires_grad=True) * 1).geometric_(0.5).grad_fn.name(), (torch.ones(3, requires_grad=True)*1).log_normal_().grad_fn.name(), (torch.ones(3, requires_grad=True)*1).cauchy_().grad_fn.name())
print(torch.empty(3, dtype=torch.float64).cauchy_(generator=torch.Generator().manual_seed(3)).tolist())
"#,
    );
    assert_eq!(
        out,
        [
            "RuntimeError geometric_ expects p to be in (0, 1), but got p=0",
            "RuntimeError log_normal_ expects std > 0.0, but found std=0",
            "RuntimeError cauchy_ expects sigma > 0.0, but found sigma=0",
            "NotImplementedError \"log_normal_cpu\" not implemented for 'Long'",
            "RuntimeError Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified long int",
            "torch.Size([2])",
            "[1.0, 1.0, 3.0, 1.0, 2.0] [3.74627685546875, 0.8082350492477417, 0.5677192807197571] [-1.069189190864563, 0.20168296992778778, -2.722665548324585]",
            "GeometricBackward0 LogNormalBackward0 CauchyBackward0",
            "[-9.296612423680983, -0.7922140324321124, 1.1554372916421074]",
        ]
    );
}

/// `torch.tensor` of a list of 0-d tensors (`torch.tensor([loss_a,
/// loss_b])`): their numbers, as PyTorch reads them.
#[test]
fn a_tensor_of_one_number_tensors() {
    let out = python_printed(
        "scalar_tensors",
        "import torch\na, b = torch.tensor(1.5), torch.tensor(2.25)\n\
         print(torch.tensor([a, b]).tolist(), torch.tensor([torch.tensor(3), torch.tensor(4)]).dtype, torch.tensor([[a], [b]]).shape)\n",
    );
    assert_eq!(out, ["[1.5, 2.25] torch.int64 torch.Size([2, 1])"]);
}

/// `torch.isclose`: a bool per element, infinities and (with
/// `equal_nan`) NaNs as PyTorch's; the lines PyTorch 2.15 printed.
#[test]
fn isclose_is_pytorchs() {
    let out = python_printed(
        "isclose",
        r#"import torch
print(torch.isclose(torch.tensor([1., 2., float("nan"), float("inf")]), torch.tensor([1., 2.1, float("nan"), float("inf")])).tolist())
print(torch.isclose(torch.tensor([1., float("nan")]), torch.tensor([1.000001, float("nan")]), equal_nan=True).tolist(), torch.isclose(torch.tensor([1., 3.]), torch.tensor([1.05, 3.]), atol=0.1).tolist())
"#,
    );
    assert_eq!(
        out,
        ["[True, False, False, True]", "[True, True] [True, True]",]
    );
}

/// `torch.compile(model)` (nanoGPT compiles by default) gives the model
/// back, run eagerly, and says so: PyTorch's fused kernels would take
/// other time and memory. `use_deterministic_algorithms` is kept.
#[test]
fn torch_compile_runs_eagerly_and_says_so() {
    let out = common::ok(
        "import torch\nimport torch.nn as nn\nm = nn.Linear(2, 1)\ncm = torch.compile(m, mode=\"max-autotune\")\n\
         print(cm is m, cm(torch.ones(1, 2)).shape)\n\
         torch.use_deterministic_algorithms(True)\nprint(torch.are_deterministic_algorithms_enabled())",
    );
    assert!(
        out.contains("torch.compile: cudash runs the model eagerly"),
        "{out}"
    );
    assert!(out.contains("True torch.Size([1, 1])\nTrue"), "{out}");
}

/// The 1-d pools, the adaptive max pools, `ceil_mode`, and one image or
/// one row without a batch (pools and convolutions): the shapes, nodes,
/// values and gradients PyTorch 2.15 printed (averages' gradients to five
/// places: PyTorch adds an input's shares in the windows' order, cudash's
/// col2im in the kernel offsets').
#[test]
fn pools_in_one_and_two_dims_and_unbatched_images_are_pytorchs() {
    let out = python_printed(
        "pools",
        r#"import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 3, 8, requires_grad=True)
for m in [nn.MaxPool1d(3, stride=2, padding=1), nn.AvgPool1d(3, stride=1, padding=1), nn.AdaptiveAvgPool1d(1), nn.AdaptiveMaxPool1d(2)]:
    y = m(x)
    y.pow(2).sum().backward()
    print(m, list(y.shape), y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(), round(y.sum().item(), 4), [round(v, 5) for v in x.grad[0, 0, :3].tolist()])
    x.grad = None
print(F.max_pool1d(x[0], 2).tolist(), F.avg_pool1d(x[1], 4, 2).tolist())
i = torch.randn(2, 4, 6, requires_grad=True)
for m in [nn.AdaptiveMaxPool2d((2, 3)), nn.AdaptiveAvgPool2d(1), nn.MaxPool2d(2), nn.AvgPool2d((2, 3))]:
    y = m(i)
    y.pow(2).sum().backward()
    print(m, list(y.shape), y.grad_fn.name(), i.grad[1, 0].tolist())
    i.grad = None
c = nn.Conv2d(2, 3, 3, padding=1)
y = c(i)
y.sum().backward()
print(list(y.shape), y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(), round(c.weight.grad.sum().item(), 4))
m = nn.MaxPool2d(3, stride=2, ceil_mode=True)
y = m(i)
y.sum().backward()
print(m, list(y.shape), i.grad[0, 3].tolist(), F.max_pool1d(torch.arange(5.).reshape(1, 5), 2, ceil_mode=True).tolist())
for f in [lambda: F.max_pool1d(torch.ones(2, 2, 2, 2), 2)]:
    try: print(f())
    except Exception as e: print(type(e).__name__)
"#,
    );
    assert_eq!(
        out,
        [
            "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False) [2, 3, 4] SqueezeBackward1 MaxPool2DWithIndicesBackward0 17.0554 [-2.25168, 0.0, -0.50116]",
            "AvgPool1d(kernel_size=(3,), stride=(1,), padding=(1,)) [2, 3, 8] SqueezeBackward1 AvgPool2DBackward0 2.7814 [-1.06822, -1.4764, -0.93363]",
            "AdaptiveAvgPool1d(output_size=1) [2, 3, 1] SqueezeBackward1 MeanBackward1 0.1552 [-0.12041, -0.12041, -0.12041]",
            "AdaptiveMaxPool1d(output_size=2) [2, 3, 2] SqueezeBackward1 AdaptiveMaxPool2DBackward0 11.1527 [0.0, 0.0, -0.50116]",
            "[[-1.1258398294448853, -0.2505785822868347, 0.8487103581428528, -0.31601276993751526], [0.32227492332458496, 0.34998318552970886, 1.237657904624939, 1.1167771816253662], [-1.3526537418365479, 0.7935083508491516, 0.5988394618034363, 1.85300612449646]] [[0.04369327798485756, 0.7464454174041748, 0.7695804834365845], [-0.20656314492225647, 0.0769612044095993, 0.4085139334201813], [0.11324353516101837, 0.6469764113426208, -0.05762919783592224]]",
            "AdaptiveMaxPool2d(output_size=(2, 3)) [2, 2, 3] AdaptiveMaxPool2DBackward0 [0.0, 0.0, 0.0, 0.0, 0.0, 2.229879140853882]",
            "AdaptiveAvgPool2d(output_size=1) [2, 1, 1] MeanBackward1 [-0.006883860100060701, -0.006883860100060701, -0.006883860100060701, -0.006883860100060701, -0.006883860100060701, -0.006883860100060701]",
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False) [2, 2, 3] MaxPool2DWithIndicesBackward0 [0.0, 0.0, 0.0, 0.0, 0.0, 2.229879140853882]",
            "AvgPool2d(kernel_size=(2, 3), stride=(2, 3), padding=0) [2, 2, 2] AvgPool2DBackward0 [-0.11595388501882553, -0.11595388501882553, -0.11595388501882553, -0.03344975784420967, -0.03344975784420967, -0.03344975784420967]",
            "[3, 4, 6] SqueezeBackward1 ConvolutionBackward0 143.0443",
            "MaxPool2d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=True) [2, 2, 3] [0.2554505467414856, 0.3335723876953125, 0.3335723876953125, 1.3335723876953125, 0.3335723876953125, 0.4454631805419922] [[1.0, 3.0, 4.0]]",
            "RuntimeError",
        ]
    );
}

/// `erfinv` (float, half and double, in place, `ErfinvBackward0`) and
/// `nn.init.trunc_normal_` in both of PyTorch 2.15's ways (normals drawn
/// again; uniform candidates by rejection), seeded and from a generator:
/// every line as PyTorch printed it.
#[test]
fn erfinv_and_trunc_normal_are_pytorchs() {
    let out = python_printed(
        "erfinv",
        r#"import torch
import torch.nn as nn
x = torch.tensor([0.3, -0.9, 0.99999, 0.5], requires_grad=True)
z = x.erfinv()
z.sum().backward()
print(z.grad_fn.name(), z.tolist(), x.grad.tolist())
print(torch.tensor([0.5, -0.25, 0.95], dtype=torch.float16).erfinv().tolist(), torch.tensor([0.5, 0.99], dtype=torch.bfloat16).erfinv().tolist())
t = torch.tensor([0.5, 2.0, -1.0])
t.erfinv_()
print(t.tolist(), torch.erfinv(torch.tensor([0, 1])).tolist(), round(torch.erfinv(torch.tensor(0.7, dtype=torch.float64)).item(), 12))
torch.manual_seed(0)
w = torch.empty(2, 3)
print(nn.init.trunc_normal_(w, std=0.02) is w, w.tolist())
v = nn.init.trunc_normal_(torch.empty(1000), mean=0.0, std=1.0, a=-0.5, b=0.5)
print(v[:3].tolist(), v.min().item(), v.max().item())
u = nn.init.trunc_normal_(torch.empty(500), a=1.5, b=3.0)
print(u[:3].tolist(), u.min().item(), u.max().item())
print(nn.init.trunc_normal_(torch.empty(4), generator=torch.Generator().manual_seed(7)).tolist())
print(nn.init.trunc_normal_(torch.empty(4, dtype=torch.float16), std=2.0, a=-1, b=1).tolist())
"#,
    );
    assert_eq!(
        out,
        [
            "ErfinvBackward0 [0.27246272563934326, -1.1630871295928955, 3.1232056617736816, 0.4769362807273865] [0.9545204043388367, 3.428042411804199, 15269.78515625, 1.1125849485397339]",
            "[0.47705078125, -0.225341796875, 1.38671875] [0.4765625, 1.78125]",
            "[0.4769362807273865, nan, -inf] [0.0, inf] 0.732869077959",
            "True [[0.03081992268562317, -0.00586857832968235, -0.04357578605413437], [0.011368625797331333, -0.021690446883440018, -0.027971908450126648]]",
            "[-0.08853142708539963, -0.44349661469459534, -0.41979026794433594] -0.4996815323829651 0.49965083599090576",
            "[1.600935697555542, 2.0341765880584717, 1.6680346727371216] 1.5008078813552856 2.9893836975097656",
            "[-0.1467950940132141, 0.7861412763595581, 0.9468216300010681, -1.1143440008163452]",
            "[0.681640625, -0.529296875, -0.32861328125, 0.15771484375]",
        ]
    );
}

/// `*xs` spread into lists and tuples, a starred name taking the rest of
/// an unpacking (`first, *rest = xs`, in `for` too), and unpacking of any
/// iterable (an object's `__iter__`, a generator, a string, `zip`), with
/// Python's messages when the counts do not fit: as Python printed it.
#[test]
fn starred_unpacking_and_spread_items_are_pythons() {
    let out = python_printed(
        "starred",
        r#"import torch
a = [1, 2]
b = [*a, 3]
print(b, (*a, 5), [*range(3), *"ab"])
first, *rest = [1, 2, 3, 4]
print(first, rest)
*init, last = (1, 2, 3)
print(init, last)
x, *mid, y = range(5)
print(x, mid, y)
p, *q = [7]
print(p, q)
t = torch.zeros(2, 3, 4)
print((*t.shape[:-1], 2, 2), t.view(*t.shape[:-1], 2, 2).shape)
class P:
    def __init__(self): self.v = [10, 20]
    def __iter__(self): return iter(self.v)
m, n = P()
print(m, n)
g, h = (i * i for i in range(2))
print(g, h)
c, d = "xy"
print(c, d)
k, v = zip([1, 2], [3, 4])
print(k, v)
for (i, *j) in [(1, 2, 3)]:
    print(i, j)
try:
    e, *f = []
except ValueError as err:
    print(err)
try:
    e, f = [1, 2, 3]
except ValueError as err:
    print(err)
"#,
    );
    assert_eq!(
        out,
        [
            "[1, 2, 3] (1, 2, 5) [0, 1, 2, 'a', 'b']",
            "1 [2, 3, 4]",
            "[1, 2] 3",
            "0 [1, 2, 3] 4",
            "7 []",
            "(2, 3, 2, 2) torch.Size([2, 3, 2, 2])",
            "10 20",
            "0 1",
            "x y",
            "(1, 3) (2, 4)",
            "1 [2, 3]",
            "not enough values to unpack (expected at least 1, got 0)",
            "too many values to unpack (expected 2)",
        ]
    );
}

/// `collections.namedtuple` (fields by name and by place, defaults,
/// `_fields`, `_asdict`, `_replace`, a tuple's reading and unpacking), and
/// PyTorch's `torch.return_types` of `max(dim)`, `sort`, `topk`, `min`:
/// named tuples of values and indices, as PyTorch printed them.
#[test]
fn named_tuples_and_pytorchs_return_types_are_pythons() {
    let out = python_printed(
        "namedtuple",
        r#"import collections
from collections import namedtuple
import torch
P = namedtuple("P", ["x", "y"])
p = P(1, y=2)
print(p, p.x, p[1], p[-1], len(p), list(p), p == P(1, 2), p == (1, 2), P._fields, isinstance(p, tuple))
a, b = p
print(a, b, p[:1], p._asdict(), p._replace(x=3), type(p).__name__)
Q = collections.namedtuple("Q", "a, b c", defaults=[5, 6])
print(Q(1), Q(1, 2, 3), max(P(3, 9)), sum(P(1, 2)), tuple(P(4, 5)), *P(7, 8))
V = namedtuple("VggOutputs", ['relu1_2', 'relu2_2'])
out = V(torch.ones(1), torch.zeros(1))
print(out.relu2_2.tolist(), out[0].shape)
try:
    P(1)
except TypeError:
    print("TypeError")
x = torch.tensor([[1., 5.], [3., 2.]])
r = x.max(dim=1)
v, i = r
print(type(r).__name__, str(type(r)), len(r), isinstance(r, tuple), r.values.tolist(), r[1].tolist(), v.tolist(), [t.tolist() for t in r])
s = torch.sort(torch.tensor([2., 1., 3.]), descending=True)
t = torch.topk(torch.tensor([2., 1., 3.]), 2)
print(type(s).__name__, s.indices.tolist(), type(t).__name__, t[0].tolist(), type(torch.min(x, 0)).__name__)
"#,
    );
    assert_eq!(
        out,
        [
            "P(x=1, y=2) 1 2 2 2 [1, 2] True True ('x', 'y') True",
            "1 2 (1,) {'x': 1, 'y': 2} P(x=3, y=2) P",
            "Q(a=1, b=5, c=6) Q(a=1, b=2, c=3) 9 3 (4, 5) 7 8",
            "[0.0] torch.Size([1])",
            "TypeError",
            "max <class 'torch.return_types.max'> 2 True [5.0, 3.0] [1, 0] [5.0, 3.0] [[5.0, 3.0], [1, 0]]",
            "sort [2, 0, 1] topk [3.0, 2.0] min",
        ]
    );
}

/// `pad_sequence` (batch first or not, a padding value, padded at the
/// start; `CopySlices` and the gradients), `torch.as_tensor` (a tensor
/// itself, no copy) and `torch.no_grad()` called on a function: as
/// PyTorch printed them.
#[test]
fn pad_sequence_as_tensor_and_no_grad_of_a_function_are_pytorchs() {
    let out = python_printed(
        "pad_sequence",
        r#"import torch
from torch.nn.utils.rnn import pad_sequence
import torch.nn.utils.rnn as rnn_utils
a = torch.ones(2, 3, requires_grad=True); b = torch.ones(1, 3, requires_grad=True) * 2
p = pad_sequence([a, b], batch_first=True)
print(p.tolist(), p.grad_fn.name(), p.grad_fn.next_functions[0][0].name(), p.grad_fn.next_functions[1][0].name())
(p * torch.arange(6.).reshape(2, 1, 3)).sum().backward()
print(a.grad.tolist())
print(pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], padding_value=-1).tolist())
print(rnn_utils.pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], batch_first=True, padding_side="left").tolist())
q = pad_sequence([torch.ones(2), torch.ones(3)])
print(q.shape, q.dtype, q.grad_fn)
x = torch.ones(2)
print(torch.as_tensor(x) is x, torch.as_tensor(x, dtype=torch.float64).dtype, torch.as_tensor([1, 2]).tolist(), torch.as_tensor([1., 2.], device="cpu").dtype)
print(torch.no_grad()(lambda: (torch.ones(1, requires_grad=True) * 2).requires_grad)())
"#,
    );
    assert_eq!(
        out,
        [
            "[[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]] torch::autograd::CopySlices torch::autograd::CopySlices MulBackward0",
            "[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]",
            "[[1, 4], [2, -1], [3, -1]]",
            "[[1, 2, 3], [0, 0, 4]]",
            "torch.Size([3, 2]) torch.float32 None",
            "True torch.float64 [1, 2] torch.float32",
            "False",
        ]
    );
}

/// `WeightedRandomSampler`: PyTorch's indices for the seed (with and
/// without replacement, from a generator, in a loader), the session's
/// generator advanced as PyTorch's, and its refusals.
#[test]
fn weighted_random_sampler_deals_pytorchs_indices() {
    let out = python_printed(
        "weighted",
        r#"import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler
torch.manual_seed(0)
s = WeightedRandomSampler([0.1, 0.9, 0.4, 0.0], num_samples=8)
print(list(s), len(s), list(s))
s2 = WeightedRandomSampler(torch.tensor([1., 2., 3., 4.]), 3, replacement=False)
print(list(s2))
g = torch.Generator().manual_seed(5)
print(list(WeightedRandomSampler([1, 1, 1, 1], 5, generator=g)))
ds = TensorDataset(torch.arange(4.))
for (x,) in DataLoader(ds, batch_size=3, sampler=WeightedRandomSampler([1., 0., 0., 3.], 6)):
    print(x.tolist())
print(torch.randn(2).tolist())
for bad in [lambda: WeightedRandomSampler([1., 2.], 0), lambda: WeightedRandomSampler([1., 2.], 3, replacement=1), lambda: WeightedRandomSampler(torch.ones(2, 2), 2)]:
    try: bad()
    except Exception as e: print(type(e).__name__, e)
"#,
    );
    assert_eq!(
        out,
        [
            "[2, 1, 1, 2, 1, 2, 1, 1] 8 [1, 1, 1, 1, 1, 1, 1, 1]",
            "[1, 2, 3]",
            "[2, 1, 1, 1, 1]",
            "[3.0, 0.0, 3.0]",
            "[0.0, 3.0, 3.0]",
            "[-0.6859184503555298, -1.5051417350769043]",
            "ValueError num_samples should be a positive integer value, but got num_samples=0",
            "ValueError replacement should be a boolean value, but got replacement=1",
            "ValueError weights should be a 1d sequence but given weights have shape (2, 2)",
        ]
    );
}

/// `torch.linalg.norm` and `torch.linalg.vector_norm` (`from torch import
/// linalg as LA`): every element's 2-norm, one dim's ord-norm, `"fro"`,
/// `LinalgVectorNormBackward0` and its gradient, as PyTorch printed them;
/// a matrix norm of an `ord` over two dims is refused.
#[test]
fn linalg_norms_are_pytorchs() {
    let out = python_printed(
        "linalg",
        r#"import torch
from torch import linalg as LA
x = torch.tensor([[3., 4.], [1., -1.]], requires_grad=True)
print(torch.linalg.norm(x).item(), LA.vector_norm(x, dim=1).tolist(), torch.linalg.norm(x, dim=1, ord=1).tolist(), torch.linalg.norm(torch.tensor([3., 4.]), ord=float("inf")).item())
y = torch.linalg.vector_norm(x, ord=3, dim=0, keepdim=True)
y.sum().backward()
print(y.grad_fn.name(), y.shape, x.grad.tolist())
print(torch.linalg.norm(x, "fro").item())
"#,
    );
    assert_eq!(
        out,
        [
            "5.196152210235596 [5.0, 1.4142135381698608] [7.0, 2.0] 4.0",
            "LinalgVectorNormBackward0 torch.Size([1, 2]) [[0.9760463237762451, 0.9897171258926392], [0.10844959318637848, -0.06185732036828995]]",
            "5.196152210235596",
        ]
    );
    let (class, message) = common::err("import torch\ntorch.linalg.norm(torch.ones(2, 2), ord=2)");
    assert_eq!(class, "ValueError");
    assert!(message.contains("matrix norms"), "{message}");
}

/// `torch.unique` and `x.unique` (inverse, counts, floats, bools, empty),
/// as PyTorch printed them; on a simulated GPU the same values.
#[test]
fn unique_is_pytorchs_on_the_host_and_a_device() {
    let src = r#"import torch, sys
dev = sys.argv[1] if len(sys.argv) > 1 else "cpu"
x = torch.tensor([[3, 1, 3], [2, 1, 5]], device=dev)
print(torch.unique(x).tolist(), x.unique(return_counts=True)[1].tolist())
v, inv, cnt = torch.unique(x, return_inverse=True, return_counts=True)
print(v.tolist(), inv.tolist(), cnt.tolist(), inv.dtype, cnt.dtype, v.dtype)
f = torch.tensor([0.5, -1.0, 0.5, 2.0, -1.0], device=dev)
vals, inv = f.unique(return_inverse=True)
print(vals.tolist(), inv.tolist(), vals[inv].tolist())
print(torch.unique(torch.tensor([], device=dev)).tolist(), [t.tolist() for t in torch.unique(torch.tensor([7], device=dev), return_counts=True)])
labels = torch.tensor([0, 2, 2, 1, 2, 0], device=dev)
classes, counts = labels.unique(return_counts=True)
print(classes.tolist(), counts.tolist(), (1.0 / counts.float()).tolist())
print(torch.unique(torch.tensor([True, False, True], device=dev)).tolist())
"#;
    let dir = std::env::temp_dir().join(format!("cudash-unique-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("unique.py");
    std::fs::write(&file, src).unwrap();
    let host = run_python(&file, None);
    assert_eq!(
        host,
        [
            "[1, 2, 3, 5] [2, 1, 2, 1]",
            "[1, 2, 3, 5] [[2, 0, 2], [1, 0, 3]] [2, 1, 2, 1] torch.int64 torch.int64 torch.int64",
            "[-1.0, 0.5, 2.0] [1, 0, 1, 2, 0] [0.5, -1.0, 0.5, 2.0, -1.0]",
            "[] [[7], [1]]",
            "[0, 1, 2] [2, 1, 3] [0.5, 1.0, 0.3333333432674408]",
            "[False, True]",
        ]
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", "1", "script"])
        .arg(&file)
        .arg("cuda")
        .output()
        .unwrap();
    let device: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(device, host);
}

/// `torch.distributions` (cudash's own module, in Python): `Categorical`
/// by probs and by logits, `Normal` (`sample`, `rsample`'s gradient),
/// `Bernoulli`, their checks, and a REINFORCE loop (a policy's
/// `Categorical`, `log_prob`, returns, Adam) whose losses are PyTorch's:
/// every line as PyTorch printed it.
#[test]
fn distributions_and_a_policy_gradient_are_pytorchs() {
    let out = python_printed(
        "torch_distributions",
        r#"import torch
from torch.distributions import Categorical, Normal, Bernoulli
torch.manual_seed(0)
probs = torch.tensor([0.2, 0.3, 0.5], requires_grad=True)
m = Categorical(probs)
print(m, m.probs.tolist(), m.logits.tolist())
a = m.sample()
print(a.item(), a.shape, m.sample((4,)).tolist())
lp = m.log_prob(a)
print(lp.item(), lp.grad_fn.name())
(-lp * 2.0).backward()
print(probs.grad.tolist())
print(m.entropy().item(), m.mode.item())
c = Categorical(logits=torch.tensor([[1., 2., 3.], [0., 0., 0.]]))
print(c, c.sample().tolist(), c.log_prob(torch.tensor([2, 0])).tolist(), c.entropy().tolist(), c.batch_shape)
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(n, n.sample().tolist(), n.log_prob(torch.tensor([0.5, 0.5])).tolist(), n.entropy().tolist())
mu = torch.tensor(0.5, requires_grad=True)
r = Normal(mu, 1.0).rsample((3,))
r.sum().backward()
print(r.tolist(), mu.grad.item())
b = Bernoulli(torch.tensor([0.3, 0.9]))
print(b, b.sample().tolist(), b.log_prob(torch.tensor([1., 0.])).tolist(), b.entropy().tolist())
for bad in [lambda: Categorical(torch.tensor([-1., 2.])), lambda: Categorical(), lambda: m.log_prob(torch.tensor(3)), lambda: Normal(0., -1.)]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", str(e).split("\n")[0])
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(1)
policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
state = torch.tensor([0.1, -0.2, 0.3, 0.0])
for episode in range(5):
    log_probs, rewards = [], []
    for t in range(4):
        m = Categorical(F.softmax(policy(state), dim=-1))
        action = m.sample()
        log_probs.append(m.log_prob(action))
        rewards.append(1.0 if action.item() == 1 else 0.0)
    returns = torch.tensor([sum(rewards[i:]) for i in range(4)])
    loss = torch.cat([(-lp * r).unsqueeze(0) for lp, r in zip(log_probs, returns)]).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(episode, sum(rewards), round(loss.item(), 5))
"#,
    );
    assert_eq!(
        out,
        [
            "Categorical(probs: torch.Size([3]), logits: torch.Size([3])) [0.20000000298023224, 0.30000001192092896, 0.5] [-1.6094379425048828, -1.2039728164672852, -0.6931471824645996]",
            "2 torch.Size([]) [2, 2, 2, 0]",
            "-0.6931471824645996 SqueezeBackward1",
            "[2.0, 2.0, -2.0]",
            "1.0296530723571777 2",
            "Categorical(probs: torch.Size([2, 3]), logits: torch.Size([2, 3])) [2, 1] [-0.4076058864593506, -1.0986123085021973] [0.8323954939842224, 1.0986123085021973] torch.Size([2])",
            "Normal(loc: torch.Size([2]), scale: torch.Size([2])) [-0.8264687061309814, -0.5898733139038086] [-1.0439385175704956, -1.6433357000350952] [1.4189385175704956, 2.1120858192443848]",
            "[-0.4528351426124573, 0.8717213869094849, 0.9087157249450684] 3.0",
            "Bernoulli(probs: torch.Size([2]), logits: torch.Size([2])) [0.0, 1.0] [-1.2039728164672852, -2.3025848865509033] [0.6108643412590027, 0.32508301734924316]",
            "ValueError Expected parameter probs (Tensor of shape (2,)) of distribution Categorical(probs: torch.Size([2])) to satisfy the constraint Simplex(), but found invalid values:",
            "ValueError Either `probs` or `logits` must be specified, but not both.",
            "ValueError Expected value argument (Tensor of shape ()) to be within the support (IntegerInterval(lower_bound=0, upper_bound=2)) of the distribution Categorical(probs: torch.Size([3]), logits: torch.Size([3])), but found invalid values:",
            "ValueError Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, scale: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:",
            "0 1.0 1.98179",
            "1 2.0 4.78142",
            "2 1.0 2.47232",
            "3 1.0 2.43336",
            "4 1.0 2.39436",
        ]
    );
}

/// `import torch.distributions` keeps `torch` (reading
/// `torch.distributions` as cudash's module), `import torch.distributions
/// as D` binds the module, and `torch.distributions.Normal` after `import
/// torch` imports it on first use.
#[test]
fn torch_distributions_is_reached_every_way_python_imports_it() {
    let out = python_printed(
        "distribution_imports",
        "import torch\nimport torch.distributions\nimport torch.distributions as D\nprint(torch.zeros(1).tolist(), torch.distributions.Normal(0., 1.), D.Categorical(torch.tensor([0.5, 0.5])))\n",
    );
    assert_eq!(
        out,
        ["[0.0] Normal(loc: 0.0, scale: 1.0) Categorical(probs: torch.Size([2]))"]
    );
}

/// The method forms `x.allclose(y)`, `x.isclose(y)`, `x.equal(y)`.
#[test]
fn closeness_methods_are_pytorchs() {
    let out = python_printed(
        "closeness_methods",
        "import torch\nx = torch.tensor([1., 2.])\nprint(x.allclose(x + 1e-7), x.isclose(torch.tensor([1., 2.5])).tolist(), x.equal(x), x.allclose(x+1, atol=2))\n",
    );
    assert_eq!(out, ["True [True, False] True True"]);
}

/// `torch.meshgrid` with `indexing="ij"` and `"xy"`, of several tensors or
/// one list: the grids, their nodes (`ExpandBackward0` over
/// `ViewBackward0`), a gradient through one, as PyTorch printed them.
#[test]
fn meshgrid_is_pytorchs() {
    let out = python_printed(
        "meshgrid",
        r#"import torch
x = torch.tensor([1., 2.], requires_grad=True); y = torch.tensor([3., 4., 5.])
a, b = torch.meshgrid(x, y, indexing="ij")
print(a.tolist(), b.tolist(), a.grad_fn.name(), a.grad_fn.next_functions[0][0].name(), b.grad_fn)
a2, b2 = torch.meshgrid(x, y, indexing="xy")
print(a2.tolist(), b2.tolist(), a2.grad_fn.name(), a2.is_contiguous())
(a2 * torch.arange(6.).reshape(3, 2)).sum().backward()
print(x.grad.tolist())
print([t.shape for t in torch.meshgrid(torch.arange(2), torch.arange(3), torch.arange(4), indexing="ij")])
print([t.tolist() for t in torch.meshgrid([torch.arange(2), torch.arange(2)], indexing="ij")])
"#,
    );
    assert_eq!(
        out,
        [
            "[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]] [[3.0, 4.0, 5.0], [3.0, 4.0, 5.0]] ExpandBackward0 ViewBackward0 None",
            "[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]] [[3.0, 3.0], [4.0, 4.0], [5.0, 5.0]] ExpandBackward0 False",
            "[6.0, 9.0]",
            "[torch.Size([2, 3, 4]), torch.Size([2, 3, 4]), torch.Size([2, 3, 4])]",
            "[[[0, 0], [1, 1]], [[0, 1], [0, 1]]]",
        ]
    );
}

/// `a, b = d` takes a dict's keys (Python's), and `load_state_dict` gives
/// PyTorch's `_IncompatibleKeys` named tuple, shown as PyTorch shows it.
#[test]
fn dict_unpacking_and_load_state_dicts_result_are_pythons() {
    let out = python_printed(
        "load_state_dict_result",
        "import torch\nimport torch.nn as nn\na, b = {\"x\": 1, \"y\": 2}\nprint(a, b)\nm = nn.Linear(2, 1)\nprint(m.load_state_dict(m.state_dict()))\nr = m.load_state_dict({\"weight\": torch.ones(1, 2)}, strict=False)\nprint(r)\nmissing, unexpected = r\nprint(missing, unexpected, r.missing_keys)\n",
    );
    assert_eq!(
        out,
        [
            "x y",
            "<All keys matched successfully>",
            "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])",
            "['bias'] [] ['bias']",
        ]
    );
}

/// `nn.CosineSimilarity(dim, eps)`: `F.cosine_similarity` as a module, its
/// values, node and gradient as PyTorch printed them.
#[test]
fn cosine_similarity_module_is_pytorchs() {
    let out = python_printed(
        "cosine_module",
        "import torch\nimport torch.nn as nn\ncos = nn.CosineSimilarity(dim=1, eps=1e-6)\na = torch.tensor([[1., 2., 3.], [0., 1., 0.]], requires_grad=True)\nb = torch.tensor([[1., 0., 1.], [0., 2., 0.]])\ny = cos(a, b)\ny.sum().backward()\nprint(cos, nn.CosineSimilarity(), y.tolist(), y.grad_fn.name(), a.grad.tolist())\nprint(nn.CosineSimilarity(dim=0)(torch.tensor([1., 0.]), torch.tensor([1., 1.])).item())\n",
    );
    assert_eq!(
        out,
        [
            "CosineSimilarity() CosineSimilarity() [0.7559289336204529, 1.0] SumBackward1 [[0.13498730957508087, -0.1079898402094841, 0.026997476816177368], [0.0, 0.0, 0.0]]",
            "0.7071067690849304",
        ]
    );
}

/// `inspect.signature` of a function (kinds, defaults, keyword-only after
/// `*args`), a class (its `__init__`), a bound method, a dataclass and
/// cudash's builtins under PyTorch's names (nanoGPT asks AdamW for
/// `fused`); `isclass`/`isfunction`/`ismethod`. Expected lines: Python's.
#[test]
fn inspect_gives_signatures_as_python() {
    let out = common::script_lines_on(
        0,
        "inspect_signature",
        r#"import inspect
import torch
import torch.nn as nn
from dataclasses import dataclass

def f(a, b=2, *args, c, d=4, **kw):
    pass

class A:
    def __init__(self, x, y=1):
        pass
    def m(self, z, w="s"):
        pass

@dataclass
class Config:
    n_layer: int = 12
    bias: bool = True

sig = inspect.signature(f)
print(str(sig))
print(list(sig.parameters))
p = sig.parameters["d"]
print(p.name, p.default, p.kind == inspect.Parameter.KEYWORD_ONLY, sig.parameters["b"].kind == p.POSITIONAL_OR_KEYWORD)
print(sig.parameters["a"].default is inspect.Parameter.empty)
print(inspect.signature(A), inspect.signature(A(1).m))
print(list(inspect.signature(Config).parameters), inspect.signature(Config).parameters["n_layer"].default)
print('fused' in inspect.signature(torch.optim.AdamW).parameters)
print(inspect.signature(torch.optim.AdamW).parameters["betas"].default, inspect.signature(torch.optim.AdamW).parameters["lr"].default)
print(inspect.isclass(A), inspect.isclass(f), inspect.isfunction(f), inspect.ismethod(A(1).m), inspect.isfunction(A(1).m), inspect.isclass(nn.Linear))
print('bias' in inspect.signature(nn.Linear).parameters)
"#,
    );
    assert_eq!(
        out,
        [
            "(a, b=2, *args, c, d=4, **kw)",
            "['a', 'b', 'args', 'c', 'd', 'kw']",
            "d 4 True True",
            "True",
            "(x, y=1) (z, w='s')",
            "['n_layer', 'bias'] 12",
            "True",
            "(0.9, 0.999) 0.001",
            "True False True True False True",
            "True"
        ]
    );
}

/// `str(self)` inside a class's `__repr__` calls its `__str__`, as Python's
/// (it did not end: each text asked for the other).
#[test]
fn repr_may_call_str_of_itself() {
    let out = common::script_lines_on(
        0,
        "repr_calls_str",
        r#"class P:
    def __init__(self, name):
        self.name = name
    def __str__(self):
        return "*" + self.name
    def __repr__(self):
        return '<P "' + str(self) + '">'
p = P("a")
print(str(p))
print(repr(p))
print([p])
print(p)
print(f"{p}")
"#,
    );
    assert_eq!(out, ["*a", "<P \"*a\">", "[<P \"*a\">]", "*a", "*a"]);
}

/// A weight tied to two modules (nanoGPT's `wte.weight = lm_head.weight`)
/// stays one tensor through `.to("cuda")`, with no warning that it is held
/// elsewhere (both holders are the model's).
#[test]
fn a_tied_weight_moves_without_a_warning() {
    let out = common::script_lines_on(
        1,
        "tied_weight",
        r#"import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.head = nn.Linear(3, 5, bias=False)
        self.emb.weight = self.head.weight
m = M().to('cuda')
print(m.emb.weight is m.head.weight, m.emb.weight.device, len(list(m.parameters())))
"#,
    );
    assert_eq!(out, ["True cuda:0 1"]);
}

/// A generator yields inside `try` (its handlers, `else` and `finally`
/// run as the body is resumed; `return`, `break` and `continue` leave
/// through `finally`; a bare `raise` in a handler) and inside `with` (an
/// object's `__enter__`/`__exit__`, which may swallow the error, a file,
/// `torch.no_grad()` kept while suspended, as Python's). Expected lines:
/// Python's.
#[test]
fn generators_yield_inside_try_and_with() {
    let out = common::script_lines_on(
        0,
        "generator_try_with",
        r#"def g():
    print("before")
    try:
        yield 1
        yield 2
    finally:
        print("cleanup")
    print("after")
print(list(g()))

def h():
    for i in range(4):
        try:
            if i == 1:
                raise ValueError("one")
            if i == 3:
                break
            yield i
        except ValueError as e:
            print("caught", e)
            yield -1
        else:
            print("else", i)
        finally:
            print("finally", i)
    yield 99
print(list(h()))

def r():
    try:
        yield "a"
        return
    finally:
        print("finally on return")
    yield "never"
print(list(r()))

def c():
    for i in range(3):
        try:
            if i == 1:
                continue
            yield i
        finally:
            print("f", i)
print(list(c()))

class Ctx:
    def __init__(self, name, swallow=False):
        self.name = name
        self.swallow = swallow
    def __enter__(self):
        print("enter", self.name)
        return self.name.upper()
    def __exit__(self, typ, val, tb):
        print("exit", self.name, typ is None, val)
        return self.swallow

def w():
    with Ctx("a") as x:
        yield x
        with Ctx("b", swallow=True):
            yield "inner"
            raise KeyError("k")
        yield "after b"
    yield "done"
print(list(w()))

def bad():
    try:
        yield 1
        raise RuntimeError("boom")
    except KeyError:
        print("wrong handler")
    finally:
        print("finally bad")
try:
    print(list(bad()))
except RuntimeError as e:
    print("outer caught", e)

def reraise():
    try:
        yield 1
        raise ValueError("v")
    except ValueError:
        print("handling")
        raise
try:
    list(reraise())
except ValueError as e:
    print("re-raised", e)

import torch
def nograd():
    with torch.no_grad():
        yield torch.is_grad_enabled()
    yield torch.is_grad_enabled()
print(list(nograd()), torch.is_grad_enabled())

with open("lines.txt", "w") as f:
    f.write("x\ny\nz\n")
def read_lines(path):
    with open(path) as f:
        for line in f:
            yield line.strip()
print(list(read_lines("lines.txt")))

def nested():
    try:
        try:
            yield 1
            raise ValueError("in")
        finally:
            print("inner finally")
    except ValueError as e:
        print("outer except", e)
        yield 2
    finally:
        print("outer finally")
print(list(nested()))
"#,
    );
    assert_eq!(
        out,
        [
            "before",
            "cleanup",
            "after",
            "[1, 2]",
            "else 0",
            "finally 0",
            "caught one",
            "finally 1",
            "else 2",
            "finally 2",
            "finally 3",
            "[0, -1, 2, 99]",
            "finally on return",
            "['a']",
            "f 0",
            "f 1",
            "f 2",
            "[0, 2]",
            "enter a",
            "enter b",
            "exit b False 'k'",
            "exit a True None",
            "['A', 'inner', 'after b', 'done']",
            "finally bad",
            "outer caught boom",
            "handling",
            "re-raised v",
            "[False, True] True",
            "['x', 'y', 'z']",
            "inner finally",
            "outer except in",
            "outer finally",
            "[1, 2]"
        ]
    );
}

/// A generator only a `for` loop holds is closed when the loop is left
/// early (`break`, `return`, an error): its `finally` runs then, as
/// CPython's; one a variable holds goes on. Expected lines: Python's.
#[test]
fn a_loop_left_early_closes_its_generator() {
    let out = common::script_lines_on(
        0,
        "generator_close",
        r#"def gen(name):
    try:
        for i in range(5):
            yield i
    finally:
        print("closed", name)

for x in gen("temp"):
    if x == 1:
        break
print("after loop 1")

g = gen("held")
for x in g:
    if x == 1:
        break
print("after loop 2", next(g), list(g))

def f():
    for i, x in enumerate(gen("in f")):
        if i == 2:
            return x
print("f gave", f())

try:
    for x in gen("error"):
        if x == 2:
            raise ValueError("stop")
except ValueError:
    print("caught")

for x in gen("full"):
    pass
print("end")
"#,
    );
    assert_eq!(
        out,
        [
            "closed temp",
            "after loop 1",
            "closed held",
            "after loop 2 2 [3, 4]",
            "closed in f",
            "f gave 2",
            "closed error",
            "caught",
            "closed full",
            "end"
        ]
    );
}

/// `contextlib`: `@contextmanager` (entered, left, an error of the block
/// raised at its `yield` and swallowed or not, as a decorator, a
/// generator that does not stop), `nullcontext`, `suppress`; a
/// generator's `throw` and `close`. Expected lines: Python's.
#[test]
fn contextlib_runs_its_generators_as_python() {
    let out = common::script_lines_on(
        0,
        "contextlib_managers",
        r#"import time
from contextlib import contextmanager, nullcontext, suppress
import contextlib
import torch

@contextmanager
def tag(name):
    print("enter", name)
    try:
        yield name.upper()
    finally:
        print("leave", name)

with tag("a") as t:
    print("inside", t)

try:
    with tag("b"):
        raise ValueError("bad")
except ValueError as e:
    print("propagated", e)

@contextmanager
def swallow():
    try:
        yield
    except KeyError as e:
        print("swallowed", e)

with swallow():
    raise KeyError("k")
print("went on")

@contextmanager
def evaluating(model):
    was = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was)

m = torch.nn.Linear(2, 2)
with evaluating(m):
    print("training?", m.training)
print("training after?", m.training)

@contextmanager
def no_grad_here():
    with torch.no_grad():
        yield
with no_grad_here():
    print("grad", torch.is_grad_enabled())
print("grad", torch.is_grad_enabled())

ctx = nullcontext()
with ctx:
    print("null")
with nullcontext(5) as five:
    print(five)
with suppress(FileNotFoundError, KeyError):
    {}["missing"]
print("suppressed")

@tag("deco")
def work(x):
    print("work", x)
    return x * 2
print(work(3))

@contextmanager
def bad():
    yield 1
    yield 2
try:
    with bad():
        pass
except RuntimeError as e:
    print("RuntimeError", e)

def g():
    try:
        yield 1
        yield 2
    except ValueError as e:
        print("gen caught", e)
        yield 3
it = g()
print(next(it), it.throw(ValueError("x")))
it.close()
print(list(it))
with contextlib.nullcontext():
    print("module spelling")
"#,
    );
    assert_eq!(
        out,
        [
            "enter a",
            "inside A",
            "leave a",
            "enter b",
            "leave b",
            "propagated bad",
            "swallowed 'k'",
            "went on",
            "training? False",
            "training after? True",
            "grad False",
            "grad True",
            "null",
            "5",
            "suppressed",
            "enter deco",
            "work 3",
            "leave deco",
            "6",
            "RuntimeError generator didn't stop",
            "gen caught x",
            "1 3",
            "[]",
            "module spelling"
        ]
    );
}

/// Python's numbers divided by zero raise ZeroDivisionError in Python's
/// words (an ArithmeticError), where a tensor's division gives inf or nan.
/// Expected lines: Python's.
#[test]
fn numbers_divided_by_zero_raise_zero_division_error() {
    let out = common::script_lines_on(
        0,
        "zero_division",
        r#"for f in [lambda: 1 / 0, lambda: 1 // 0, lambda: 1 % 0, lambda: 1.0 / 0, lambda: 1.0 // 0, lambda: 1.0 % 0, lambda: 0 ** -1, lambda: 0.0 ** -1.5]:
    try:
        f()
    except ZeroDivisionError as e:
        print(type(e).__name__, e)
    except ArithmeticError as e:
        print("arith", e)
try:
    x = 5 / 0
except ArithmeticError:
    print("ArithmeticError catches it")
print(2 ** -1, 0 ** 0, 0.0 ** 0, 7 // 2, -7 % 3, 1e308 * 10)
"#,
    );
    assert_eq!(
        out,
        [
            "ZeroDivisionError division by zero",
            "ZeroDivisionError integer division or modulo by zero",
            "ZeroDivisionError integer modulo by zero",
            "ZeroDivisionError float division by zero",
            "ZeroDivisionError float floor division by zero",
            "ZeroDivisionError float modulo",
            "ZeroDivisionError 0.0 cannot be raised to a negative power",
            "ZeroDivisionError 0.0 cannot be raised to a negative power",
            "ArithmeticError catches it",
            "0.5 1 1.0 3 2 inf"
        ]
    );
}

/// The edges of generators with blocks: `continue`/`break` through a
/// `with` inside a `try` inside `while`; closing a generator closes the
/// one its loop iterates (`GeneratorExit` raised in it, as Python's);
/// `throw` out of and into nested handlers. Expected lines: Python's.
#[test]
fn generator_blocks_at_their_edges() {
    let out = common::script_lines_on(
        0,
        "generator_edges",
        r#"class C:
    def __init__(self, n): self.n = n
    def __enter__(self): print("in", self.n); return self
    def __exit__(self, t, v, tb): print("out", self.n, t.__name__ if t else None); return False

def a():
    i = 0
    while True:
        i += 1
        try:
            with C(i):
                if i == 2:
                    continue
                if i == 4:
                    break
                yield i
        finally:
            print("fin", i)
    yield "end"
print(list(a()))

def b():
    try:
        yield 1
    except GeneratorExit:
        print("never here in cudash or python? python: yes")
        raise
    finally:
        print("b finally")

def c():
    for x in b():
        yield x * 10
for v in c():
    print("got", v)
    break
print("after c")

def d():
    try:
        yield 1
        yield 2
    finally:
        print("d finally")
it = d()
next(it)
try:
    it.throw(KeyError("kk"))
except KeyError as e:
    print("thrown out", e)
print(list(it))

def e():
    try:
        try:
            yield 1
        except ValueError:
            raise KeyError("converted")
    except KeyError as k:
        yield ("caught", str(k))
g = e()
print(next(g), g.throw(ValueError("v")))

def f():
    with C("f"):
        yield 1
        1 / 0
try:
    for _ in f():
        pass
except ZeroDivisionError as z:
    print("zde", z)

def h():
    for i in range(3):
        try:
            yield i
        except ValueError:
            print("h caught at", i)
gh = h()
print(next(gh), gh.throw(ValueError()), next(gh))
"#,
    );
    assert_eq!(
        out,
        [
            "in 1",
            "out 1 None",
            "fin 1",
            "in 2",
            "out 2 None",
            "fin 2",
            "in 3",
            "out 3 None",
            "fin 3",
            "in 4",
            "out 4 None",
            "fin 4",
            "[1, 3, 'end']",
            "got 10",
            "never here in cudash or python? python: yes",
            "b finally",
            "after c",
            "d finally",
            "thrown out 'kk'",
            "[]",
            "1 ('caught', \"'converted'\")",
            "in f",
            "out f ZeroDivisionError",
            "zde division by zero",
            "h caught at 0",
            "0 1 2"
        ]
    );
}

/// A `*` alone in a `def` or a `lambda`: the parameters after it take
/// keywords only (a positional one too many is Python's TypeError);
/// `inspect.signature` shows it. Expected lines: Python's.
#[test]
fn a_bare_star_makes_keyword_only_parameters() {
    let out = common::script_lines_on(
        0,
        "keyword_only",
        r#"def f(a, *, b=2, c):
    return a + b + c
print(f(1, c=3), f(1, b=10, c=3))
try:
    f(1, 2, 3)
except TypeError as e:
    print("TypeError")
def g(x, *, scale=1.0, **kw):
    return x * scale, sorted(kw)
print(g(2, scale=3.0, extra=1))
class M:
    def __init__(self, n, *, bias=True):
        self.n, self.bias = n, bias
m = M(3, bias=False)
print(m.n, m.bias)
import inspect
print(inspect.signature(f))
h = lambda x, *, y=1: x + y
print(h(1, y=5))
"#,
    );
    assert_eq!(
        out,
        [
            "6 14",
            "TypeError",
            "(6.0, ['extra'])",
            "3 False",
            "(a, *, b=2, c)",
            "6"
        ]
    );
}

/// Python's everyday semantics that were missing: `for k in d` over a
/// dict's keys, strings ordered by code point (`<`, `max`, `min` of two
/// strings), dicts and sets equal by content, set comparisons and `^`.
/// Expected lines: Python's.
#[test]
fn dicts_iterate_strings_order_and_containers_compare_as_python() {
    let out = common::script_lines_on(
        0,
        "python_semantics",
        r#"d = {"b": 2, "a": 1}
for k in d:
    print(k, d[k])
for i, k in enumerate(d):
    print(i, k)
print("a" < "b", "b" > "a", "ab" <= "ab", "B" < "a", "apple" < "apples", max(["pear", "fig"]), min("xy", "ab"))
print({0: "a"} == {0: "a"}, {"a": [1]} == {"a": [1]}, {"a": 1, "b": 2} == {"b": 2, "a": 1}, {1: 2} != {1: 3}, {} == {})
s = {1, 2, 3}
print({2, 1, 3} == s, {2, 3} <= s, {2, 3} < s, s >= {1}, s > s, sorted(s ^ {3, 4}))
print(max(3, 7.5, 2), min([4, 1, 9]), max([(1, "b"), (1, "c")]), sorted(["b", "a", "C"]))
words = ["to", "be", "or", "not"]
print(sorted(words, key=len), [w for w in words if w > "n"])
"#,
    );
    assert_eq!(
        out,
        [
            "b 2",
            "a 1",
            "0 b",
            "1 a",
            "True True True True True pear ab",
            "True True True True True",
            "True True True True False [1, 2, 4]",
            "7.5 1 (1, 'c') ['C', 'a', 'b']",
            "['to', 'be', 'or', 'not'] ['to', 'or', 'not']"
        ]
    );
}

/// In a Python program a method read without a call is a value bound to
/// its receiver (`add = xs.append`, `key=d.get`, `"a b".split`);
/// `max`/`min` take `key=` and any number of values; `callable()`.
/// Expected lines: Python's.
#[test]
fn bound_methods_key_functions_and_callable_as_python() {
    let out = common::script_lines_on(
        0,
        "bound_methods",
        r#"xs = []
add = xs.append
for i in range(3):
    add(i * i)
print(xs)
d = {"a": 3, "b": 7, "c": 5}
g = d.get
print(g("a"), g("z", 0), max(d, key=d.get), min(d, key=lambda k: d[k]), max(["aa", "b", "ccc"], key=len))
print(min(3, 1, 2, key=lambda x: -x), max(1, 2, 3, 4), sorted(d, key=d.get))
split = "a b c".split
print(split(), callable(add), callable(len), callable(3), callable(lambda: 0), callable(str))
class K:
    def __call__(self):
        return 1
print(callable(K()), callable(K), callable("s"))
"#,
    );
    assert_eq!(
        out,
        [
            "[0, 1, 4]",
            "3 0 b a ccc",
            "3 4 ['a', 'c', 'b']",
            "['a', 'b', 'c'] True True False True True",
            "True True False"
        ]
    );
}

/// `json.dumps(obj, default=f)`: what JSON has no form for is written as
/// `f(value)` (an object's `__dict__`, `str`, a set as a list); without it,
/// Python's TypeError. Expected lines: Python's.
#[test]
fn json_dumps_takes_a_default() {
    let out = common::script_lines_on(
        0,
        "json_default",
        r#"import json
import torch
from dataclasses import dataclass, asdict
class Cfg:
    def __init__(self):
        self.lr = 0.1
        self.name = "run"
print(json.dumps({"cfg": Cfg(), "n": 3}, default=lambda o: o.__dict__))
print(json.dumps({"d": torch.float32}, default=str))
print(json.dumps([1, {2, 3}], default=list))
try:
    json.dumps({"t": torch.ones(1)})
except TypeError as e:
    print("TypeError", e)
"#,
    );
    assert_eq!(
        out,
        [
            "{\"cfg\": {\"lr\": 0.1, \"name\": \"run\"}, \"n\": 3}",
            "{\"d\": \"torch.float32\"}",
            "[1, [2, 3]]",
            "TypeError Object of type Tensor is not JSON serializable",
        ]
    );
}

/// `functools` (`partial`, `reduce`, `lru_cache` with `cache_info`, `cache`,
/// `wraps`), `collections.deque` with `maxlen` (a replay buffer, `in` through
/// its `__contains__`), and itertools' `accumulate`, `cycle`, `groupby`,
/// `takewhile`, `dropwhile`, `starmap`, `compress`. Expected lines: Python's.
#[test]
fn functools_deque_and_more_itertools_as_python() {
    let out = common::script_lines_on(
        0,
        "functools_deque_and_more_itertools_as_python",
        r#"import random
from collections import deque
from functools import partial, reduce, lru_cache, wraps, cache
from itertools import accumulate, cycle, groupby, takewhile, dropwhile, starmap, compress, islice
def scale(x, factor=1, shift=0):
    return x * factor + shift
p = partial(scale, factor=3)
print(p(2), p(2, shift=1), partial(pow, 2)(5), reduce(lambda a, b: a * b, [1, 2, 3, 4]), reduce(lambda a, b: a + b, [], 10))
@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(30), fib.cache_info())
@cache
def sq(x):
    return x * x
print(sq(4), sq(4), sq.cache_info().hits)
def logged(f):
    @wraps(f)
    def inner(*a, **k):
        return f(*a, **k)
    return inner
@logged
def add(a, b):
    return a + b
print(add(2, 3))
memory = deque([], maxlen=3)
for i in range(5):
    memory.append((i, i * i))
print(memory, len(memory), memory[0], list(memory))
random.seed(1)
print(random.sample(list(memory), 2))
d = deque([1, 2, 3])
d.appendleft(0); d.rotate(1)
print(d, d.popleft(), d.pop(), 2 in d)
print(list(accumulate([1, 2, 3, 4])), list(accumulate([1, 2, 3], lambda a, b: a * b, initial=10)))
print(list(islice(cycle("ab"), 5)), [(k, list(g)) for k, g in groupby("aabbbc")], [(k, len(list(g))) for k, g in groupby([1, 3, 2, 4], key=lambda x: x % 2)])
print(list(takewhile(lambda x: x < 3, [1, 2, 3, 1])), list(dropwhile(lambda x: x < 3, [1, 2, 3, 1])), list(starmap(pow, [(2, 3), (3, 2)])), list(compress("abcd", [1, 0, 1, 0])))
"#,
    );
    assert_eq!(
        out,
        [
            "6 7 32 24 10",
            "832040 CacheInfo(hits=28, misses=31, maxsize=None, currsize=31)",
            "16 16 1",
            "5",
            "deque([(2, 4), (3, 9), (4, 16)], maxlen=3) 3 (2, 4) [(2, 4), (3, 9), (4, 16)]",
            "[(2, 4), (4, 16)]",
            "deque([0, 1]) 3 2 False",
            "[1, 3, 6, 10] [10, 10, 20, 60]",
            "['a', 'b', 'a', 'b', 'a'] [('a', ['a', 'a']), ('b', ['b', 'b', 'b']), ('c', ['c'])] [(1, 2), (0, 2)]",
            "[1, 2] [3, 1] [8, 9] ['a', 'c']"
        ]
    );
}

/// String methods: `center`/`ljust`/`rjust` (Python's odd-space rule),
/// `title`, `capitalize`, `swapcase`, `zfill`, `isalnum`/`isupper`/`islower`,
/// `index`, `rfind`, `partition`/`rpartition`. Expected lines: Python's.
#[test]
fn more_string_methods_as_python() {
    let out = common::script_lines_on(
        0,
        "more_string_methods_as_python",
        r#"for w in ["ab", "abc", "", "x"]:
    print(repr(w.center(6, "*")), repr(w.center(5)), repr(w.ljust(4, ".")), repr(w.rjust(4)))
print("hello world-wide 3rd".title(), "hELLO".capitalize(), "AbC".swapcase(), "-42".zfill(6), "7".zfill(3))
print("abc1".isalnum(), "ABC".isupper(), "AbC".isupper(), "abc".islower(), "123".islower())
print("a-b-c".partition("-"), "a-b-c".rpartition("-"), "abc".partition("x"), "abc".rpartition("x"))
print("banana".index("n"), "banana".rfind("an"), "banana".rfind("z"))
try:
    "abc".index("z")
except ValueError as e:
    print("ValueError", e)
"#,
    );
    assert_eq!(
        out,
        [
            "'**ab**' '  ab ' 'ab..' '  ab'",
            "'*abc**' ' abc ' 'abc.' ' abc'",
            "'******' '     ' '....' '    '",
            "'**x***' '  x  ' 'x...' '   x'",
            "Hello World-Wide 3Rd Hello aBc -00042 007",
            "True True False True False",
            "('a', '-', 'b-c') ('a-b', '-', 'c') ('abc', '', '') ('', '', 'abc')",
            "2 3 -1",
            "ValueError substring not found"
        ]
    );
}

/// Python's builtins and `math` that programs reach for: `int(s, base)`,
/// `pow(b, e, mod)`, `divmod`, `chr`/`ord`, `frozenset`, `bin`/`hex`/`oct`,
/// `max`/`min` `default=`, `startswith` of a tuple, `math.isclose`/`gcd`/
/// `factorial`/`comb`/`hypot`/`trunc`; a method of the program's class takes
/// a list itself (it appends to the caller's), and `d.setdefault(k, [])`
/// keeps the list. Expected lines: Python's.
#[test]
fn python_builtins_int_bases_pow_mod_divmod_and_more() {
    let out = common::script_lines_on(
        0,
        "python_builtins_int_bases_pow_mod_divmod_and_more",
        r#"print(int("0x1f", 16), int("0x1f", 0), int("-101", 2), int("z", 36), int("  42 "), pow(3, 4, 5), pow(-3, 3, 7), pow(2, 10, -7), divmod(-7, 2), divmod(7.5, 2), chr(65), ord("é"), sorted(frozenset("cab")), max([], default=None), min([3], default=0))
try:
    int("12", 2)
except ValueError as e:
    print(e)
print(bin(5), bin(-5), hex(255), oct(8), "abc".startswith(("x", "a")), "abc".endswith(("b",)), "abc".endswith(("c", "z")))
import math
print(math.isclose(0.1 + 0.2, 0.3), math.gcd(12, 18), math.factorial(6), math.comb(10, 3), math.hypot(3, 4), math.trunc(-2.7))
class A:
    def f(self, x):
        x.append(3)
        return x
xs = [1]
print(A().f(xs), xs)
d = {}
d.setdefault("x", []).append(1)
print(d)
"#,
    );
    assert_eq!(
        out,
        [
            "31 31 -5 35 42 1 1 -5 (-4, 1) (3.0, 1.5) A 233 ['a', 'b', 'c'] None 3",
            "invalid literal for int() with base 2: '12'",
            "0b101 -0b101 0xff 0o10 True False True",
            "True 6 720 120 5.0 -2",
            "[1, 3] [1, 3]",
            "{'x': [1]}"
        ]
    );
}

/// `math`'s `isclose` (its tolerances), `gcd`, `factorial`, `comb`, `atan2`,
/// `hypot`, `asin`, `acos`, `sinh`, `cosh`, `degrees`, `radians`, `trunc`.
/// Expected lines: Python's.
#[test]
fn math_module_functions_as_python() {
    let out = common::script_lines_on(
        0,
        "math_module_functions_as_python",
        r#"import math
print(math.isclose(0.1 + 0.2, 0.3), math.isclose(1.0, 1.1), math.isclose(1.0, 1.05, rel_tol=0.1), math.isclose(0.0, 1e-12, abs_tol=1e-9))
print(math.gcd(12, 18), math.gcd(0, 5), math.gcd(-4, 6), math.factorial(10), math.comb(10, 3), math.comb(3, 5))
print(math.atan2(1, 1), math.hypot(3, 4), math.asin(1.0), math.acos(1.0), math.sinh(0.5), math.cosh(0.5), math.degrees(math.pi), math.radians(180), math.trunc(-2.7))
"#,
    );
    assert_eq!(
        out,
        [
            "True False True True",
            "6 5 2 3628800 120 0",
            "0.7853981633974483 5.0 1.5707963267948966 0.0 0.5210953054937474 1.1276259652063807 180.0 3.141592653589793 -2"
        ]
    );
}

/// Python's number literals: `0x1f`, `0o17`, `0b101` and underscores
/// between digits (`1_000_000`); string escapes `\x41`, `\u00e9`,
/// `\U0001F600` (an unknown one keeps its backslash). Expected lines:
/// Python's.
#[test]
fn radix_and_grouped_number_literals_as_python() {
    let out = common::script_lines_on(
        0,
        "number_literals",
        r#"print(0x1f, 0o17, 0b101, 0xFF_FF, 1_000_000, 1_0.5, 3e2, 0, 10)
x = 0x10 + 0b1
print(x, [i for i in range(0b11)], 0X1F, 0B11)
print("\x41\u00e9\U0001F600", len("\U0001F600"), r"\d+", "a\\b", "\d")
"#,
    );
    assert_eq!(
        out,
        [
            "31 15 5 65535 1000000 10.5 300.0 0 10",
            "17 [0, 1, 2] 31 3",
            "Aé😀 1 \\d+ a\\b \\d"
        ]
    );
}

/// Python's `else:` after `for` and `while`: run when the loop ends
/// without `break` (not for a nested loop's `break`, also through `try`
/// and in a generator). CPython 3.11's lines.
#[test]
fn loops_else_runs_when_no_break_ended_the_loop() {
    let got = common::script_lines_on(
        0,
        "loop_else",
        r#"def find(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            print("found at", i)
            break
    else:
        print("not found")
    return "done"

print(find([1, 2, 3], 2), find([1, 2, 3], 5), find([], 1))
n = 0
while n < 3:
    n += 1
else:
    print("while ended", n)
for i in range(3):
    for j in range(3):
        if j == 1:
            break
    else:
        print("inner never")
    if i == 2:
        break
else:
    print("outer never")
print("i", i)
for k in range(2):
    try:
        if k == 1:
            break
    finally:
        print("finally", k)
else:
    print("no")
def gen():
    for v in range(4):
        if v == 9:
            break
        yield v
    else:
        yield "else"
print(list(gen()))
for q in []:
    pass
else:
    print("empty else")
"#,
    );
    let want: Vec<&str> = r#"found at 1
not found
not found
done done done
while ended 3
i 2
finally 0
finally 1
[0, 1, 2, 3, 'else']
empty else
"#
    .lines()
    .collect();
    assert_eq!(got, want);
}

/// Python's modules PyTorch's examples import beside torch (`tempfile`
/// in the DDP example, `urllib.parse`), `str.find`/`rfind`/`index`/`count`
/// with bounds, `random.choice` of a string, `os.rmdir`, `os.getpid`.
/// CPython 3.11's lines.
#[test]
fn tempfile_urllib_parse_and_string_search_bounds_as_pythons() {
    let got = common::script_lines_on(
        0,
        "tempfile_urllib",
        r#"from urllib.parse import urlparse, urlunparse
import tempfile, os
for u in ["file:///tmp/ddp_example", "https://user@host.com:8080/a/b;p?q=1&r=2#frag", "relative/path?x", "tcp://127.0.0.1:29500"]:
    r = urlparse(u)
    print(r, r.scheme, r.netloc, urlunparse(r) == u)
d = tempfile.mkdtemp(prefix="cudash-")
print(os.path.isdir(d), os.path.basename(d).startswith("cudash-"), os.path.isdir(tempfile.gettempdir()))
with tempfile.TemporaryDirectory() as t:
    open(os.path.join(t, "f.txt"), "w").write("x")
    print(os.path.exists(os.path.join(t, "f.txt")))
print(os.path.exists(t))
os.rmdir(d)
print(os.path.exists(d), os.getpid() > 0)
s = "abcabcab"
print(s.find("b", 2), s.find("b", 2, 4), s.find("c", -3), s.rfind("a", 0, 5), s.index("c", 3), s.count("ab", 1), s.find("zz", 1), "héllo".find("l", 3))
import random
random.seed(1)
print(random.choice("xyz"), random.choice("abcdef"))
"#,
    );
    let want: Vec<&str> = r#"ParseResult(scheme='file', netloc='', path='/tmp/ddp_example', params='', query='', fragment='') file  True
ParseResult(scheme='https', netloc='user@host.com:8080', path='/a/b', params='p', query='q=1&r=2', fragment='frag') https user@host.com:8080 True
ParseResult(scheme='', netloc='', path='relative/path', params='', query='x', fragment='')   True
ParseResult(scheme='tcp', netloc='127.0.0.1:29500', path='', params='', query='', fragment='') tcp 127.0.0.1:29500 True
True True True
True
False
False True
4 -1 5 3 5 2 -1 3
x e
"#
        .lines()
        .collect();
    assert_eq!(got, want);
}

/// nanoGPT's way to override a script's settings: `globals()` lists them,
/// `exec` runs a config file and an override loop in the module's
/// variables, `ast.literal_eval` reads each value, `globals()[name] = v`
/// sets it, `type(a) == type(b)` checks it. CPython 3.11's lines.
#[test]
fn globals_exec_and_literal_eval_override_settings_as_pythons() {
    let got = common::script_lines_on(
        0,
        "config_override",
        r#"from ast import literal_eval

# Settings at the top of a training script, overridable as nanoGPT's are.
batch_size = 12
learning_rate = 6e-4
compile = True
dataset = "openwebtext"
_private = 1
config_keys = sorted(k for k, v in globals().items() if not k.startswith("_") and isinstance(v, (int, float, bool, str)))
print(config_keys)

with open("small.py", "w") as f:
    f.write("batch_size = 4\ndataset = 'shakespeare'\n")
overrides = ["small.py", "--compile=False", "--learning_rate=1e-3"]
apply = """
for item in overrides:
    if not item.startswith("--"):
        exec(open(item).read())
        continue
    name, text = item[2:].split("=")
    try:
        value = literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    assert type(value) == type(globals()[name]), name
    globals()[name] = value
    print("set", name, "=", value)
"""
exec(apply)
config = {k: globals()[k] for k in config_keys}
print(config)
print(literal_eval("[1, -2.5, 'a', (True, None), {'k': 3}]"), literal_eval(" 7 "))
for bad in ["x + 1", "open('f')", "[1,"]:
    try:
        literal_eval(bad)
    except (ValueError, SyntaxError) as e:
        print(type(e).__name__)
exec("made_here = 2 ** 5")
print(made_here, "made_here" in globals(), type(3) == int, type(True) == bool)
"#,
    );
    let want: Vec<&str> = r#"['batch_size', 'compile', 'dataset', 'learning_rate']
set compile = False
set learning_rate = 0.001
{'batch_size': 4, 'compile': False, 'dataset': 'shakespeare', 'learning_rate': 0.001}
[1, -2.5, 'a', (True, None), {'k': 3}] 7
ValueError
ValueError
SyntaxError
32 True True True
"#
    .lines()
    .collect();
    assert_eq!(got, want);
}

/// An error inside functions shows, under its report, the calls it left,
/// innermost first, each at its place with its text (Python's traceback
/// read upwards): a model's `forward` called through `model(x)` from
/// `train`, called from the top level; an error inside cudash's own NumPy
/// names the program's line that called into it.
#[test]
fn an_error_in_a_function_shows_the_calls_it_left() {
    let (out, err, ok) = common::script_streams(
        "calls",
        r#"import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)
    def forward(self, x):
        return self.fc(x.view(-1, 3))

def train(model):
    for i in range(2):
        out = model(torch.ones(2, 4))

train(Net())
"#,
    );
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("calls.py:7:24"), "{err}");
    assert!(
        err.ends_with(
            "called from:\n  calls.py:11:15 in train: out = model(torch.ones(2, 4))\n  calls.py:13:1: train(Net())\n"
        ),
        "{err}"
    );
    let (_, err, ok) = common::script_streams(
        "calls_np",
        "import numpy as np\n\ndef load():\n    return np.memmap('missing.bin', dtype=np.uint8, mode='r')\n\nload()\n",
    );
    assert!(!ok, "{err}");
    assert!(err.contains("[ <cudash>/numpy.py:"), "{err}");
    assert!(
        err.ends_with(
            "called from:\n  calls_np.py:4:12 in load: return np.memmap('missing.bin', dtype=np.uint8, mode='r')\n  calls_np.py:6:1: load()\n"
        ),
        "{err}"
    );
}

/// `warnings` (cudash's own module): `warn` with a category, filters by
/// category and message, `catch_warnings`, "error" raising the warning;
/// an "ignore" of a category also hides PyTorch's warning of it that cudash
/// gives. What Python 3.11 and PyTorch 2.15 printed for the same program:
/// the same lines on stdout, the same warnings shown (a loop's warning
/// once, as Python's default filter shows it: once from each place).
#[test]
fn warnings_are_shown_filtered_and_raised_as_pythons() {
    let (out, err, ok) = common::script_streams(
        "warns",
        r#"import warnings
import torch
warnings.warn("first")
warnings.warn("soon gone", FutureWarning)
for i in range(3):
    warnings.warn("in a loop", DeprecationWarning)
print(issubclass(FutureWarning, Warning), issubclass(UserWarning, DeprecationWarning), UserWarning.__name__)
print(issubclass(torch.nn.Linear, torch.nn.Module), issubclass(KeyError, (ValueError, LookupError)))
warnings.filterwarnings("ignore", category=FutureWarning)
warnings.warn("hidden", FutureWarning)
scaler = torch.cuda.amp.GradScaler(enabled=False)
warnings.warn("still shown")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    warnings.warn("hidden too")
warnings.warn("shown again")
warnings.filterwarnings("error", message="bad")
try:
    warnings.warn("bad thing")
except UserWarning as e:
    print("raised:", e)
warnings.resetwarnings()
warnings.filterwarnings("ignore")
warnings.warn("all hidden", RuntimeWarning)
print("done")
"#,
    );
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "True False UserWarning\nTrue True\nraised: bad thing\ndone\n"
    );
    assert_eq!(
        err,
        "warning: UserWarning: first\n\
         warning: FutureWarning: soon gone\n\
         warning: DeprecationWarning: in a loop\n\
         warning: UserWarning: still shown\n\
         warning: UserWarning: shown again\n"
    );
}

/// Errors about an instance of the program's class name its class, as
/// Python's do (they said `object`).
#[test]
fn errors_name_the_class_of_an_instance() {
    let out = python_printed(
        "instance_errors",
        "import json
class Foo:
    pass
f = Foo()
tests = [
    lambda: len(f),
    lambda: json.dumps(f),
    lambda: '{:d}'.format(f),
    lambda: sorted([f, f]),
    lambda: print(1, file=f),
    lambda: 'a' + f,
]
for t in tests:
    try:
        t()
    except Exception as e:
        print(type(e).__name__, e)
",
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "TypeError object of type 'Foo' has no len()",
            "TypeError Object of type Foo is not JSON serializable",
            "TypeError unsupported format string passed to Foo.__format__",
            "TypeError '<' not supported between instances of 'Foo' and 'Foo'",
            "AttributeError 'Foo' object has no attribute 'write'",
            "TypeError can only concatenate str (not \"Foo\") to str",
        ]
    );
}

#[test]
fn a_class_with_next_is_an_iterator_and_truth_asks_bool_or_len() {
    let out = python_printed(
        "iterator_protocol",
        "import os
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n
class Batches:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return Countdown(self.n)
    def __len__(self):
        return self.n
for x in Countdown(3):
    print('loop', x)
print(list(Countdown(3)), [v * 2 for v in Batches(3)], sum(Countdown(4)), sorted(Batches(3)))
print(list(enumerate(Countdown(2))), list(zip(Countdown(2), Batches(2))))
it = iter(Batches(2))
print(next(it), next(it), next(it, 'done'))
c = Countdown(1)
print(next(c), next(c, None))
print(bool(Batches(0)), bool(Batches(2)), bool(set()), bool({0}), 'empty' if not Batches(0) else 'full')
print(os.path.relpath('/a/b/c', '/a/d'), os.path.relpath('/a', '/a'))
",
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "loop 2",
            "loop 1",
            "loop 0",
            "[2, 1, 0] [4, 2, 0] 6 [0, 1, 2]",
            "[(0, 1), (1, 0)] [(1, 1), (0, 0)]",
            "1 0 done",
            "0 None",
            "False True False True empty",
            "../b/c .",
        ]
    );
}

#[test]
fn a_module_class_writes_its_own_text() {
    let out = python_printed(
        "module_repr",
        "import torch
from torch import nn
class Preset(nn.Module):
    def __init__(self):
        super().__init__()
    def __repr__(self):
        return 'Preset(\\n    size=[224]\\n)'
class Named(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
    def __str__(self):
        return 'a named net'
print(Preset())
print(Named(), f'{Named()}', [Preset()])
",
    );
    // As Python 3.11 with torch 2.15 printed them.
    assert_eq!(
        out,
        [
            "Preset(",
            "    size=[224]",
            ")",
            "a named net a named net [Preset(",
            "    size=[224]",
            ")]",
        ]
    );
}

#[test]
fn dict_keys_and_set_items_are_any_hashable_value() {
    let out = python_printed(
        "hashable_keys",
        "import torch
d = {(1, 2): 'a', 1.0: 'b', True: 'c', None: 'n'}
print(d, d[1], d[(1, 2)], (1, 2) in d, [1, 2] in [[1, 2]])
s = set()
s.add((1, 2)); s.add((1, 2)); s.add(None); s.add(2.5)
print(len(s), (1, 2) in s, 2.5 in s, None in s, 3 in s)
grid = {}
for i in range(2):
    for j in range(2):
        grid[i, j] = i * 2 + j
print(grid, grid[1, 0], sorted(grid, reverse=True)[0])
grid[0, 1] += 10
del grid[1, 1]
print(grid, (0, 1) in grid, grid.get((1, 1), '-'))
lin = torch.nn.Linear(2, 2)
names = {p: n for n, p in lin.named_parameters()}
print([names[p] for p in lin.parameters()], len(set(lin.parameters())), lin.weight in names)
print({torch.float32: 4, torch.float16: 2}[torch.float16], {torch.device('cpu'): 1}[torch.device('cpu')])
seen = {lin: 'model'}
print(seen[lin], {len: 'f'}[len])
for bad in ('{[1]: 2}', '{(1, [2]): 3}', 'set([{}])', '[] in {}'):
    try:
        eval(bad)
    except TypeError as e:
        print(bad, 'TypeError:', e)
counts = {}
for w in 'a b a c b a'.split():
    counts[w] = counts.get(w, 0) + 1
del counts['c']
counts['d'] = 0
print(counts, list(counts.items())[-1], {k: v for k, v in counts.items() if v})
print({1: 'x'} == {1.0: 'x'}, {(1, 'a'): 1} == {(1, 'a'): 1}, {1, 2} | {2, (3,)})
",
    );
    // As Python 3.11 with torch 2.15 printed them.
    assert_eq!(
        out,
        [
            "{(1, 2): 'a', 1.0: 'c', None: 'n'} c a True True",
            "3 True True True False",
            "{(0, 0): 0, (0, 1): 1, (1, 0): 2, (1, 1): 3} 2 (1, 1)",
            "{(0, 0): 0, (0, 1): 11, (1, 0): 2} True -",
            "['weight', 'bias'] 2 True",
            "2 1",
            "model f",
            "{[1]: 2} TypeError: unhashable type: 'list'",
            "{(1, [2]): 3} TypeError: unhashable type: 'list'",
            "set([{}]) TypeError: unhashable type: 'dict'",
            "[] in {} TypeError: unhashable type: 'list'",
            "{'a': 3, 'b': 2, 'd': 0} ('d', 0) {'a': 3, 'b': 2}",
            "True True {1, 2, (3,)}",
        ]
    );
}

#[test]
fn map_and_filter_are_lazy_iterators() {
    let out = python_printed(
        "map_filter",
        "import itertools
print(list(map(lambda a, b: a * b, [1, 2, 3], [4, 5])), list(filter(None, [0, 1, '', 'x'])))
print(list(filter(lambda s: s.startswith('a'), ['ab', 'b', 'ac'])))
m = map(str.upper, ['a', 'b'])
print(next(m), list(m), list(m))
def numbers():
    i = 0
    while True:
        print('made', i)
        yield i
        i += 1
squares = map(lambda x: x * x, numbers())
print('nothing made yet')
print(next(squares), next(squares))
print(sum(map(int, '1 2 3'.split())), sorted(map(abs, [-3, 1, -2])), max(map(len, ['a', 'abc'])))
print(dict(map(lambda kv: (kv[0], kv[1] + 1), {'a': 1}.items())), tuple(filter(str.isdigit, 'a1b2')))
for i, s in enumerate(map(str.strip, [' x ', 'y\\n'])):
    print(i, s)
print([list(map(int, l.split(','))) for l in ['1,2', '3,4']], sorted(['b', 'A', 'c'], key=str.lower))
print(list(itertools.chain.from_iterable([[1, 2], (3,), 'ab'])), str.join('-', ['a', 'b']))
try:
    str.upper(3)
except TypeError as e:
    print('TypeError:', e)
",
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "[4, 10] [1, 'x']",
            "['ab', 'ac']",
            "A ['B'] []",
            "nothing made yet",
            "made 0",
            "made 1",
            "0 1",
            "6 [1, 2, 3] 3",
            "{'a': 2} ('1', '2')",
            "0 x",
            "1 y",
            "[[1, 2], [3, 4]] ['A', 'b', 'c']",
            "[1, 2, 3, 'a', 'b'] a-b",
            "TypeError: descriptor 'upper' for 'str' objects doesn't apply to a 'int' object",
        ]
    );
}

#[test]
fn a_property_setter_runs_on_assignment() {
    let out = python_printed(
        "property_setter",
        "import torch
class Temp:
    def __init__(self, c):
        self.celsius = c
    @property
    def celsius(self):
        return self._c
    @celsius.setter
    def celsius(self, v):
        if v < -273.15:
            raise ValueError('too cold')
        self._c = v
    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32
t = Temp(20)
print(t.celsius, t.fahrenheit)
t.celsius = 30
t.celsius += 5
print(t.celsius, t.fahrenheit, t._c)
for v in (-300,):
    try:
        t.celsius = v
    except ValueError as e:
        print('ValueError:', e)
try:
    t.fahrenheit = 3
except AttributeError as e:
    print('AttributeError:', e)
class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)
        self._scale = 1.0
    @property
    def scale(self):
        return self._scale
    @scale.setter
    def scale(self, s):
        self._scale = float(s)
def get_lr(self):
    return self._lr
def set_lr(self, v):
    self._lr = v * 10
class Opt:
    lr = property(get_lr, set_lr)
m = Scaled()
m.scale = 3
o = Opt()
o.lr = 2
print(m.scale, type(m.scale).__name__, o.lr)
",
    );
    // As Python 3.11 with torch 2.15 printed them.
    assert_eq!(
        out,
        [
            "20 68.0",
            "35 95.0 35",
            "ValueError: too cold",
            "AttributeError: property 'fahrenheit' of 'Temp' object has no setter",
            "3.0 float 20",
        ]
    );
}

#[test]
fn unicodedata_turns_names_into_ascii() {
    // PyTorch's name-classification tutorial's `unicodeToAscii`.
    let out = python_printed(
        "unicodedata",
        "import string
import unicodedata
all_letters = string.ascii_letters + \" .,;'\"
def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in all_letters
    )
print(unicodeToAscii('Ślusàrski'), unicodeToAscii(\"O'Néàl\"), unicodeToAscii('Zoë Straße'))
s = 'Crème brûlée'
print(len(s), len(unicodedata.normalize('NFD', s)), unicodedata.normalize('NFC', unicodedata.normalize('NFD', s)) == s)
print(unicodedata.normalize('NFKC', 'ﬁ x²'), unicodedata.is_normalized('NFC', s), unicodedata.is_normalized('NFD', s))
print([unicodedata.category(c) for c in 'aZ1 .\\u0301€'], unicodedata.combining('\\u0301'), unicodedata.combining('a'))
for bad in (\"unicodedata.normalize('NFX', 'a')\", \"unicodedata.category('ab')\", \"unicodedata.normalize('NFC', 3)\"):
    try:
        eval(bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
",
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "Slusarski O'Neal Zoe Strae",
            "12 15 True",
            "fi x2 True False",
            "['Ll', 'Lu', 'Nd', 'Zs', 'Po', 'Mn', 'Sc'] 230 0",
            "ValueError invalid normalization form",
            "TypeError category() argument must be a unicode character, not str",
            "TypeError normalize() argument 2 must be str, not int",
        ]
    );
}

#[test]
fn instances_hash_by_their_class_and_iterate_by_index() {
    let out = python_printed(
        "hash_and_sequences",
        "import sys
import torch
from torch.utils.data import Dataset
from dataclasses import dataclass
from collections import namedtuple
class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __eq__(self, o):
        return isinstance(o, Vec) and (self.x, self.y) == (o.x, o.y)
    def __hash__(self):
        return hash((self.x, self.y))
    def __repr__(self):
        return f\"Vec({self.x}, {self.y})\"
class OnlyEq:
    def __eq__(self, o):
        return True
@dataclass
class Point:
    x: int
    y: int
Pair = namedtuple(\"Pair\", [\"a\", \"b\"])
print({Vec(1, 2): \"a\"}.get(Vec(1, 2)), len({Vec(1, 2), Vec(1, 2), Vec(2, 1)}), Vec(1, 2) in {Vec(1, 2)})
print({Pair(1, 2): \"p\"}[(1, 2)], {(1, 2): \"t\"}[Pair(1, 2)], Pair(1, 2) < (1, 3), Pair(1, 2) + (3,))
print(hash(3) == hash(3.0) == hash(True * 3), hash(-1), hash(2**62), hash((1, \"a\")) == hash((1.0, \"a\")))
for bad in (\"{OnlyEq(): 1}\", \"{Point(1, 2)}\"):
    try:
        eval(bad)
    except TypeError as e:
        print(\"TypeError:\", e)
try:
    hash([1])
except TypeError as e:
    print(\"TypeError:\", e)
class Squares(Dataset):
    def __init__(self, n):
        self.n = n
        self.x = torch.arange(n)
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return int(self.x[i]), int(self.x[i]) ** 2
for x, y in Squares(3):
    print(x, y)
print(list(Squares(2)), (1, 1) in Squares(3), [b for _, b in Squares(4) if b % 2 == 0])
class Config:
    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)
    def __getattr__(self, name):
        return f\"<{name} unset>\"
c = Config(lr=0.1)
print(c.lr, c.momentum, getattr(c, \"wd\"))
print(3 in range(1, 10, 2), 4 in range(1, 10, 2), 2.0 in range(3), -3 in range(0, -5, -1), 5 in range(5))
print(sys.version_info >= (3, 8), sys.version_info[:2] >= (3, 8), sys.version_info.major)
",
    );
    // As Python 3.11 with torch 2.15 printed them.
    assert_eq!(
        out,
        [
            "a 2 True",
            "p t True (1, 2, 3)",
            "True -2 2 True",
            "TypeError: unhashable type: 'OnlyEq'",
            "TypeError: unhashable type: 'Point'",
            "TypeError: unhashable type: 'list'",
            "0 0",
            "1 1",
            "2 4",
            "[(0, 0), (1, 1)] True [0, 4]",
            "0.1 <momentum unset> <wd unset>",
            "True False True True False",
            "True True 3",
        ]
    );
}

#[test]
fn a_dict_literal_spreads_other_dicts() {
    let out = python_printed(
        "dict_spread",
        "defaults = {'lr': 1e-3, 'batch_size': 32}
cfg = {**defaults, 'lr': 0.1, **{'epochs': 2}}
print(cfg, defaults, {**{}}, {'a': 1, **{'a': 2}})
try:
    {**[1]}
except TypeError as e:
    print('TypeError:', e)
",
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "{'lr': 0.1, 'batch_size': 32, 'epochs': 2} {'lr': 0.001, 'batch_size': 32} {} {'a': 2}",
            "TypeError: 'list' object is not a mapping",
        ]
    );
}

#[test]
fn tensors_as_pythons_numbers_where_lbfgs_uses_them() {
    // Python's max/min of a 0-d tensor and a number give back the one
    // chosen (the tensor itself); torch.max of two tensors is maximum; a
    // 0-d tensor without grad is a number for `alpha=`/`value=`.
    let out = python_printed(
        "tensor_numbers",
        "import torch
t = torch.tensor(0.25)
a = max(t, 0.5)
b = min(1.0, t)
c = max(torch.tensor(2.0), 1)
print(type(a).__name__, a.item() if isinstance(a, torch.Tensor) else a, type(b).__name__, b.item(), c.item())
print(torch.max(torch.tensor([1., 5.]), torch.tensor([3., 2.])).tolist(), torch.tensor([1., 5.]).min(torch.tensor([3., 2.])).tolist())
print(torch.tensor([1., 2.]).dot(torch.tensor([3., 4.])).item())
x = torch.ones(2)
x.add_(torch.ones(2), alpha=torch.tensor(2.0))
x.sub_(torch.ones(2), alpha=torch.tensor(0.5, dtype=torch.float64))
x.addcmul_(x, torch.ones(2), value=torch.tensor(-0.5))
print(x.tolist())
try:
    x.add(x, alpha=torch.tensor(2.0, requires_grad=True))
except TypeError as e:
    print(\"TypeError\")
w = torch.ones(2, requires_grad=True)
y = w * 2
z = w * 3
y.retain_grad()
print(w.retains_grad, y.retains_grad, z.retains_grad)
",
    );
    // As Python 3.11 with torch 2.15 printed them.
    assert_eq!(
        out,
        [
            "float 0.5 Tensor 0.25 2.0",
            "[3.0, 5.0] [1.0, 2.0]",
            "11.0",
            "[1.25, 1.25]",
            "TypeError",
            "False True False",
        ]
    );
}

#[test]
fn every_value_names_its_class_as_dcgan_asks() {
    // `m.__class__.__name__` of built-in layers (DCGAN's weights_init),
    // tensors, numbers and optimizers; `type(opt)` and isinstance of the
    // built-in optimizers; the device kinds cudash has none of.
    let out = python_printed(
        "class_names",
        "import torch
import torch.nn as nn
m = nn.ConvTranspose2d(2, 3, 4)
print(type(m), type(m).__name__, type(m) is nn.ConvTranspose2d)
print(m.__class__.__name__, m.__class__ is nn.ConvTranspose2d)
x = torch.ones(2)
print(x.__class__.__name__, type(x).__name__, (3).__class__.__name__, \"a\".__class__.__name__, [1].__class__.__name__)
opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)
print(opt.__class__.__name__, type(opt).__name__)
print(nn.Sequential(nn.Linear(1,1)).__class__.__name__)
class Net(nn.Module):
    pass
print(Net().__class__.__name__, Net.__name__)
print(m.weight.__class__.__name__)
print(type(opt) is torch.optim.SGD, isinstance(opt, torch.optim.SGD), isinstance(opt, torch.optim.Adam), type(opt))
x = torch.ones(2)
print(x.is_cpu, x.is_xpu, x.is_mps, x.is_sparse, x.is_quantized)
def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)
        print(\"init\", classname)
nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU()).apply(weights_init)
",
    );
    // As Python 3.11 with torch 2.15 printed them.
    assert_eq!(
        out,
        [
            "<class 'torch.nn.modules.conv.ConvTranspose2d'> ConvTranspose2d True",
            "ConvTranspose2d True",
            "Tensor Tensor int str list",
            "SGD SGD",
            "Sequential",
            "Net Net",
            "Parameter",
            "True True False <class 'torch.optim.sgd.SGD'>",
            "True False False False False",
            "init BatchNorm2d",
        ]
    );
}

#[test]
fn orthogonal_init_draws_pytorchs_numbers() {
    // PyTorch draws [rows, cols] in the tensor's dtype and transposes a
    // wide one (the super-resolution example's init): a seeded program
    // gets its weights.
    let out = python_printed(
        "orthogonal",
        "import torch
import torch.nn.init as init
torch.manual_seed(0)
w = init.orthogonal_(torch.empty(4, 3, 3, 3), init.calculate_gain('relu'))
print(round(w.sum().item(), 5), [round(x, 5) for x in w[0, 0, 0].tolist()])
t = init.orthogonal_(torch.empty(5, 3))
print([round(x, 5) for x in t[:, 0].tolist()], round((t.T @ t - torch.eye(3)).abs().max().item(), 5))
",
    );
    // As Python 3.11 with torch 2.15 printed them.
    assert_eq!(
        out,
        [
            "0.82913 [-0.3104, -0.31771, -0.06909]",
            "[0.62278, -0.11054, 0.45884, -0.57058, 0.25266] 0.0",
        ]
    );
}

#[test]
fn tarfile_six_and_urlretrieve_as_the_super_resolution_example_imports_them() {
    // A .tgz made by Python's tarfile (two files, a folder), listed and
    // unpacked member by member, as the super-resolution example's
    // download_bsd300 does; urlretrieve of a file:// URL; six.moves;
    // os.fspath.
    let dir = std::env::temp_dir().join(format!("cudash-tarfile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let tgz = dir.join("pics.tgz");
    std::fs::write(&tgz, TGZ).unwrap();
    let src = format!(
        "import os
import tarfile
from six.moves import urllib
import six
dest = {dir:?}
with tarfile.open(os.path.join(dest, 'pics.tgz')) as tar:
    print(tar.getnames())
    for item in tar:
        print(item.name, item.size, item.isdir(), item.isfile())
        tar.extract(item, dest)
print(sorted(os.listdir(os.path.join(dest, 'pics', 'train'))))
print(open(os.path.join(dest, 'pics', 'train', 'a.txt')).read().strip())
print(tarfile.is_tarfile(os.path.join(dest, 'pics', 'train', 'a.txt')))
path, _ = urllib.request.urlretrieve('file://' + os.path.join(dest, 'pics', 'b.txt'), os.path.join(dest, 'c.txt'))
print(os.path.basename(path), open(path).read().strip())
print(urllib.parse.urlparse('http://x.org/a/b.tgz').path, six.PY3, list(six.moves.range(2)))
with urllib.request.urlopen('file://' + os.path.join(dest, 'pics', 'b.txt')) as r:
    print(r.read())
import pathlib
print(os.fspath(pathlib.Path('/a/b')), os.fspath('x'))
try:
    os.fspath(3)
except TypeError:
    print('TypeError')
",
        dir = dir.display().to_string()
    );
    let out = python_printed("tar_members", &src);
    let _ = std::fs::remove_dir_all(&dir);
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "['pics', 'pics/b.txt', 'pics/train', 'pics/train/a.txt']",
            "pics 0 True False",
            "pics/b.txt 3 False True",
            "pics/train 0 True False",
            "pics/train/a.txt 6 False True",
            "['a.txt']",
            "hello",
            "False",
            "c.txt hi",
            "/a/b.tgz True [0, 1]",
            "b'hi\\n'",
            "/a/b x",
            "TypeError",
        ]
    );
}

/// `pics/` (`b.txt`, `train/a.txt`) as Python's `tarfile.open(mode="w:gz")` wrote it.
const TGZ: &[u8] = &[
    0x1f, 0x8b, 0x08, 0x00, 0xca, 0x95, 0x11, 0x6b, 0x02, 0xff, 0xed, 0x98, 0x4d, 0x6a, 0xc3, 0x30,
    0x10, 0x85, 0xb5, 0xce, 0x29, 0x7c, 0x02, 0x59, 0xa3, 0xd1, 0x48, 0xce, 0xa2, 0xd0, 0x65, 0x96,
    0xb9, 0x82, 0x9a, 0x18, 0x6a, 0x48, 0xea, 0xe2, 0xa8, 0xe0, 0xe3, 0xd7, 0xa6, 0x8b, 0x42, 0x9a,
    0x1f, 0xba, 0x90, 0x4b, 0xa3, 0xf7, 0x6d, 0x2c, 0x64, 0x81, 0x56, 0xef, 0x1b, 0x9e, 0x74, 0xad,
    0xeb, 0xe7, 0x6d, 0x1c, 0x37, 0x6d, 0xdc, 0xb7, 0x83, 0xca, 0x82, 0xf9, 0xe2, 0xda, 0xd7, 0x18,
    0x76, 0xdf, 0xeb, 0x79, 0x9f, 0x8c, 0x25, 0xab, 0xaa, 0x51, 0x2d, 0xc0, 0xc7, 0x29, 0xc5, 0x61,
    0xba, 0x5e, 0x95, 0x89, 0x6d, 0xaa, 0x63, 0xea, 0x8e, 0xed, 0x13, 0x85, 0xb5, 0x67, 0x72, 0x12,
    0x8c, 0x66, 0x1b, 0x9a, 0x40, 0xbc, 0x52, 0xe0, 0xe1, 0x79, 0xef, 0x76, 0xa7, 0x3a, 0xf3, 0x1d,
    0x73, 0xa8, 0x83, 0xc8, 0xf5, 0xfc, 0x4f, 0x6b, 0x12, 0x36, 0x8e, 0xc9, 0x86, 0x29, 0xf8, 0x53,
    0xfe, 0x45, 0x8c, 0xaa, 0x64, 0xc9, 0xfc, 0x0f, 0x7d, 0x9f, 0x6e, 0x9d, 0xbb, 0xf7, 0xff, 0x9f,
    0xa2, 0xe1, 0x7f, 0xf8, 0xff, 0xa7, 0xff, 0xd7, 0xec, 0xe0, 0xff, 0x62, 0xfc, 0xff, 0xa2, 0xd3,
    0x98, 0x51, 0x6e, 0x73, 0xa8, 0xbd, 0x73, 0x37, 0xfc, 0xcf, 0x67, 0xfe, 0x27, 0xb1, 0xac, 0x2a,
    0xb3, 0x64, 0xfe, 0x0b, 0xf5, 0xff, 0x6b, 0x87, 0x98, 0x97, 0x0c, 0xe6, 0x3f, 0xe6, 0xff, 0x85,
    0xf9, 0x1f, 0xa4, 0x69, 0x20, 0x86, 0x52, 0xe6, 0x7f, 0x1a, 0x62, 0xf7, 0x96, 0xaf, 0x05, 0xfe,
    0xbe, 0xff, 0x91, 0xf7, 0x82, 0xfe, 0x07, 0xff, 0xc3, 0xff, 0x7f, 0xe4, 0x7f, 0xbc, 0xff, 0x95,
    0xe7, 0xff, 0x98, 0xab, 0x05, 0xde, 0xef, 0x7f, 0xfe, 0xcc, 0xff, 0xd6, 0x3b, 0x8b, 0xfe, 0xb7,
    0x48, 0xff, 0x6b, 0x0f, 0x87, 0x1e, 0x49, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x87,
    0xe7, 0x13, 0xbf, 0x75, 0x34, 0xa9, 0x00, 0x28, 0x00, 0x00,
];

#[test]
fn dict_fromkeys_popitem_and_an_lru_cache_of_move_to_end() {
    // `dict.fromkeys` (one value object for every key), `popitem` from
    // either end, and OrderedDict's `move_to_end` as an LRU cache uses it.
    let out = python_printed(
        "dict_order",
        "from collections import OrderedDict
x = []
d = dict.fromkeys('ab', x)
d['a'].append(1)
print(d, dict.fromkeys(range(3)), x)
od = OrderedDict([('a', 1), ('b', 2), ('c', 3)])
od.move_to_end('a')
od.move_to_end('c', last=False)
print(list(od), od.popitem(), od.popitem(last=False), list(od.items()))
for bad in [lambda: od.move_to_end('zz'), lambda: {}.popitem(), lambda: dict.fromkeys('a', value=1)]:
    try:
        bad()
    except (KeyError, TypeError) as e:
        print(type(e).__name__, e)
cache = OrderedDict()
for k in [1, 2, 3, 1, 4]:
    if k in cache:
        cache.move_to_end(k)
    cache[k] = k * k
    if len(cache) > 3:
        cache.popitem(last=False)
print(list(cache.items()))
",
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "{'a': [1], 'b': [1]} {0: None, 1: None, 2: None} [1]",
            "['c', 'b', 'a'] ('a', 1) ('c', 3) [('b', 2)]",
            "KeyError 'zz'",
            "KeyError 'popitem(): dictionary is empty'",
            "TypeError dict.fromkeys() takes no keyword arguments",
            "[(3, 9), (1, 1), (4, 16)]",
        ]
    );
}

/// `d.keys()`, `d.values()`, `d.items()` are live views, shown and
/// compared as Python's, not sequences; an OrderedDict (a `state_dict()`,
/// one made or loaded) shows as one, compares in order and is saved as one.
#[test]
fn dict_views_and_ordered_dicts_as_python() {
    let dir = std::env::temp_dir().join(format!("cudash-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("views.py");
    std::fs::write(
        &file,
        r#"from collections import OrderedDict
import torch
import torch.nn as nn
d = {'a': 1, 'b': 2}
k, v, it = d.keys(), d.values(), d.items()
d['c'] = 3
print(k, len(k), 'c' in k)
print(v, 3 in v, it)
print(('a', 1) in it, ('a', 2) in it, sorted(d.keys() - {'a'}), d.keys() & ['b', 'z'])
print(d.keys() == {'a', 'b', 'c'}, d.items() == {('a', 1), ('b', 2), ('c', 3)}, d.values() == d.values())
print(next(iter(d.values())), max(d.values()), sum(d.values()), ", ".join(d.keys()), list(reversed(d.keys())))
e = {}
e.update(d.items())
print(e, [x for x, _ in sorted(d.items(), key=lambda kv: -kv[1])])
try:
    d.keys()[0]
except TypeError as err:
    print("TypeError:", err)
o = OrderedDict([('x', 1)])
o['y'] = 2
o.move_to_end('x')
print(o, OrderedDict(), o.copy(), o == OrderedDict(y=2, x=1), o == OrderedDict(x=1, y=2), o == {'x': 1, 'y': 2})
print(isinstance(o, OrderedDict), isinstance({}, OrderedDict), isinstance(o, dict), type(o).__name__)
net = nn.Sequential(OrderedDict([('fc', nn.Linear(2, 3)), ('act', nn.ReLU())]))
sd = net.state_dict()
print(type(sd).__name__, sd.keys(), [tuple(t.shape) for t in sd.values()])
renamed = OrderedDict((name.replace('fc.', 'layer.'), t) for name, t in sd.items())
print(renamed.keys())
torch.save(sd, 'sd.pt')
print(type(torch.load('sd.pt')).__name__, torch.load('sd.pt').keys())
"#,
    )
    .unwrap();
    let out = run_python(&file, Some(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    // As Python 3.11 and PyTorch 2.15 printed them.
    assert_eq!(
        out,
        [
            "dict_keys(['a', 'b', 'c']) 3 True",
            "dict_values([1, 2, 3]) True dict_items([('a', 1), ('b', 2), ('c', 3)])",
            "True False ['b', 'c'] {'b'}",
            "True True False",
            "1 3 6 a, b, c ['c', 'b', 'a']",
            "{'a': 1, 'b': 2, 'c': 3} ['c', 'b', 'a']",
            "TypeError: 'dict_keys' object is not subscriptable",
            "OrderedDict([('y', 2), ('x', 1)]) OrderedDict() OrderedDict([('y', 2), ('x', 1)]) True False True",
            "True False True OrderedDict",
            "OrderedDict odict_keys(['fc.weight', 'fc.bias']) [(3, 2), (3,)]",
            "odict_keys(['layer.weight', 'layer.bias'])",
            "OrderedDict odict_keys(['fc.weight', 'fc.bias'])",
        ]
    );
}

/// Python's `enum` (the imagenet example's `class Summary(Enum)`): members
/// made from the class body (`auto()`, aliases), found by value and by
/// name, iterated, compared by identity, shown as Python's; `IntEnum` as
/// an int; `@unique`; a member deep-copied is itself.
#[test]
fn enums_as_python() {
    let out = python_printed(
        "enums",
        r#"from enum import Enum, IntEnum, auto, unique
import enum
import copy


class Summary(Enum):
    NONE = 0
    AVERAGE = 1
    SUM = 2
    COUNT = 3


class Color(Enum):
    RED = auto()
    GREEN = auto()
    BLUE = 'blue'
    CRIMSON = 1

    def describe(self):
        return f"{self.name} is {self.value}"

    @property
    def loud(self):
        return self.name.upper() + "!"


class Level(IntEnum):
    LOW = 1
    HIGH = 5


print(Summary.NONE, repr(Summary.AVERAGE), [Summary.SUM], Summary.COUNT.name, Summary.COUNT.value)
print(f"{Summary.SUM}", str(Summary.SUM), "%s" % Summary.NONE, "{}".format(Summary.NONE))
print(Summary(2), Summary['COUNT'], Summary(Summary.SUM), list(Summary), len(Summary))
print(Summary.NONE is Summary.NONE, Summary.NONE == Summary.NONE, Summary.NONE == 0, Summary.NONE != Summary.SUM)
print(Summary.SUM in Summary, isinstance(Summary.SUM, Summary), isinstance(Summary.SUM, Enum), type(Summary.SUM).__name__, type(Summary.SUM) is Summary)
print(Color.RED, Color.GREEN.value, Color.BLUE.value, Color.CRIMSON is Color.RED, Color.RED.describe(), Color.GREEN.loud)
print(list(Color), Color.__members__.keys() if False else list(Color.__members__))
print([c.name for c in Color], {s: s.value for s in Summary}[Summary.SUM], sorted(Summary, key=lambda s: -s.value)[0])
print(Level.HIGH, repr(Level.LOW), Level.HIGH == 5, Level.LOW < Level.HIGH, Level.HIGH + 1, int(Level.LOW), [10, 20, 30, 40, 50, 60][Level.HIGH], f"{Level.LOW}")
d = {Summary.NONE: 'n'}
print(d[Summary.NONE], d, copy.deepcopy(Summary.SUM) is Summary.SUM, copy.copy(Color.RED) is Color.RED)
x = Summary.AVERAGE
if x is Summary.NONE:
    print('none')
elif x is Summary.AVERAGE:
    print('avg')
try:
    Summary(7)
except ValueError as e:
    print("ValueError:", e)
try:
    Summary['NOPE']
except KeyError as e:
    print("KeyError:", e)
try:
    @unique
    class Dup(Enum):
        A = 1
        B = 1
except ValueError as e:
    print("ValueError:", e)
print(hash(Summary.NONE) == hash(Summary.NONE), bool(Summary.NONE), Summary.SUM.value + 1)
print(Summary.__name__, Summary.NONE.__class__.__name__, enum.Enum.__name__)
"#,
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "Summary.NONE <Summary.AVERAGE: 1> [<Summary.SUM: 2>] COUNT 3",
            "Summary.SUM Summary.SUM Summary.NONE Summary.NONE",
            "Summary.SUM Summary.COUNT Summary.SUM [<Summary.NONE: 0>, <Summary.AVERAGE: 1>, <Summary.SUM: 2>, <Summary.COUNT: 3>] 4",
            "True True False True",
            "True True True Summary True",
            "Color.RED 2 blue True RED is 1 GREEN!",
            "[<Color.RED: 1>, <Color.GREEN: 2>, <Color.BLUE: 'blue'>] ['RED', 'GREEN', 'BLUE', 'CRIMSON']",
            "['RED', 'GREEN', 'BLUE'] 2 Summary.COUNT",
            "5 <Level.LOW: 1> True True 6 1 60 1",
            "n {<Summary.NONE: 0>: 'n'} True True",
            "avg",
            "ValueError: 7 is not a valid Summary",
            "KeyError: 'NOPE'",
            "ValueError: duplicate values found in <enum 'Dup'>: B -> A",
            "True True 3",
            "Summary Summary Enum",
        ]
    );
}

/// An Enum of values of a type (`class Mode(str, Enum)`, `IntEnum`,
/// `StrEnum`): members compared, hashed, indexed with and added as their
/// values, their values' methods theirs, shown as Python 3.11 shows them.
#[test]
fn enums_of_values_as_python() {
    let out = python_printed(
        "mixed_enums",
        r#"from enum import Enum, IntEnum, StrEnum, auto
class Mode(str, Enum):
    TRAIN = "train"
    EVAL = "eval"
class Phase(int, Enum):
    ZERO = 0
    ONE = 1
class Act(StrEnum):
    RELU = auto()
    GELU = auto()
print(f'{Mode.TRAIN}', str(Mode.TRAIN), Mode.TRAIN.upper(), Mode.TRAIN + 'x', {Mode.TRAIN: 1}['train'], len(Mode.EVAL))
print(Phase.ONE < 2, bool(Phase.ZERO), bool(Phase.ONE), Phase(1), [5, 6][Phase.ONE], int(Phase.ONE) + 1)
print(Act.RELU, repr(Act.GELU), Act.RELU == 'relu', f"{Act.GELU}", list(Act))
print(Mode('train') is Mode.TRAIN, Mode.TRAIN in Mode, len(Mode), [m.value for m in Mode])
"#,
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "Mode.TRAIN Mode.TRAIN TRAIN trainx 1 4",
            "True False True Phase.ONE 6 2",
            "relu <Act.GELU: 'gelu'> True gelu [<Act.RELU: 'relu'>, <Act.GELU: 'gelu'>]",
            "True True 2 ['train', 'eval']",
        ]
    );
}

/// Python's `operator` (`itemgetter` as a sort key, `attrgetter`,
/// `methodcaller`, the operators as functions), `bisect` and `heapq` (a
/// heap's items where CPython's heapq leaves them; `nlargest` with ties in
/// order), as programs use them.
#[test]
fn operator_bisect_and_heapq_as_python() {
    let out = python_printed(
        "sorting_helpers",
        r#"import operator
from operator import itemgetter, attrgetter, methodcaller
import functools
import bisect
import heapq
import random
counts = {'the': 5, 'a': 7, 'cat': 2, 'sat': 2}
print(sorted(counts.items(), key=itemgetter(1), reverse=True), itemgetter(1, 0)(('x', 'y')), itemgetter(1))
print(functools.reduce(operator.mul, [2, 3, 4]), operator.add(1, 2), operator.neg(3), operator.abs(-2), operator.getitem([5, 6], 1), operator.contains('abc', 'b'))
class P:
    def __init__(self, n): self.n = n; self.inner = self
print(attrgetter('n')(P(3)), attrgetter('inner.n', 'n')(P(4)), methodcaller('strip', '-')('--a--'), methodcaller('split')('a b'))
print(list(map(operator.itemgetter(0), [(1, 2), (3, 4)])), sorted([P(2), P(1)], key=attrgetter('n'))[0].n)
a = [1, 2, 4, 4, 8]
print(bisect.bisect_left(a, 4), bisect.bisect_right(a, 4), bisect.bisect(a, 0), bisect.bisect_left(a, 9, 1, 3))
bisect.insort(a, 5); bisect.insort_left(a, 4); print(a)
h = []
for x in [5, 1, 8, 3, 9, 2, 7]:
    heapq.heappush(h, x)
print(h, heapq.heappop(h), h, heapq.heappushpop(h, 0), heapq.heapreplace(h, 6), h)
xs = [9, 4, 7, 1, 8, 2]
heapq.heapify(xs); print(xs)
beams = [(-1.5, 'a'), (-0.3, 'b'), (-2.0, 'c'), (-0.3, 'd')]
print(heapq.nlargest(2, beams), heapq.nsmallest(3, [5, 1, 4, 1], key=lambda v: -v), heapq.nlargest(2, counts, key=counts.get))
q = []
heapq.heappush(q, (2, 'two')); heapq.heappush(q, (1, 'one')); heapq.heappush(q, (3, 'three'))
print([heapq.heappop(q)[1] for _ in range(3)])
try:
    heapq.heappop([])
except IndexError as e:
    print('IndexError', e)
"#,
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "[('a', 7), ('the', 5), ('cat', 2), ('sat', 2)] ('y', 'x') operator.itemgetter(1)",
            "24 3 -3 2 6 True",
            "3 (4, 4) a ['a', 'b']",
            "[1, 3] 1",
            "2 4 0 3",
            "[1, 2, 4, 4, 4, 5, 8]",
            "[3, 5, 7, 6, 9, 8] 1 [3, 5, 7, 6, 9, 8] 0 2 [3, 5, 7, 6, 9, 8]",
            "[1, 4, 2, 9, 8, 7]",
            "[(-0.3, 'd'), (-0.3, 'b')] [5, 4, 1] ['a', 'the']",
            "['one', 'two', 'three']",
            "IndexError index out of range",
        ]
    );
}

/// `random.choices` drawn as CPython's (weights, cumulative weights),
/// `str.maketrans` and `s.translate` (stripping punctuation), an
/// exception's `args`, a list's `list index out of range`, and a list's
/// slice assignment (`xs[a:b] = ys`, extended slices of one length).
#[test]
fn choices_translate_args_and_slice_assignment_as_python() {
    let out = python_printed(
        "choices",
        r#"import random
import string
random.seed(3)
print(random.choices(['a', 'b', 'c'], k=5), random.choices(range(10), weights=[1]*9 + [20], k=4), random.choices('xy', cum_weights=[1, 3], k=3), random.choices([7]))
table = str.maketrans('', '', string.punctuation)
print("Hello, world! It's".translate(table), 'abc'.translate(str.maketrans('ab', 'xy')), 'abc'.translate(str.maketrans({'a': 'AA', 'b': None})), str.maketrans('ab', 'xy'))
try:
    raise ValueError('bad', 3)
except ValueError as e:
    print(e.args, e, repr(e))
xs = [1, 2, 3, 4, 5]
xs[1:3] = [9, 9, 9]
print(xs)
xs[::2] = [0, 0, 0]
print(xs)
del xs[0]
del xs[1:3]
print(xs)
xs[:] = []
print(xs)
try:
    raise ValueError('bad', 3)
except Exception as e:
    print(type(e).__name__, e.args)
try:
    raise KeyError('k')
except KeyError as e:
    print(e.args, str(e), repr(e))
try:
    raise RuntimeError
except RuntimeError as e:
    print(e.args, repr(e))
try:
    [][1]
except IndexError as e:
    print(e.args)
xs = [1, 2, 3, 4]
xs[3:1] = [7]
print(xs)
xs[-2:] = 'ab'
print(xs)
xs[10:] = (5, 6)
print(xs)
xs[::-2] = [0, 0, 0, 0]
print(xs)
try:
    xs[::2] = [1]
except ValueError as e:
    print('ValueError:', e)
"#,
    );
    // As Python 3.11 printed them.
    assert_eq!(
        out,
        [
            "['a', 'b', 'b', 'b', 'b'] [1, 0, 9, 7] ['x', 'y', 'y'] [7]",
            "Hello world Its xyc AAc {97: 120, 98: 121}",
            "('bad', 3) ('bad', 3) ValueError('bad', 3)",
            "[1, 9, 9, 9, 4, 5]",
            "[0, 9, 0, 9, 0, 5]",
            "[9, 0, 5]",
            "[]",
            "ValueError ('bad', 3)",
            "('k',) 'k' KeyError('k')",
            "() RuntimeError()",
            "('list index out of range',)",
            "[1, 2, 3, 7, 4]",
            "[1, 2, 3, 'a', 'b']",
            "[1, 2, 3, 'a', 'b', 5, 6]",
            "[0, 2, 0, 'a', 0, 5, 0]",
            "ValueError: attempt to assign sequence of size 1 to extended slice of size 4",
        ]
    );
}

/// A module's `__dict__`: its variables, as the imagenet example lists
/// torchvision's model builders (`models.__dict__[name]`).
#[test]
fn a_modules_dict_holds_its_variables() {
    let out = python_printed(
        "module_dict",
        "import torchvision.models as models\n\
         names = sorted(n for n in models.__dict__ if n.startswith('resnet') and callable(models.__dict__[n]))\n\
         print(names, models.__dict__['resnet18'] is models.resnet18)\n",
    );
    // torchvision's resnet builders.
    assert_eq!(
        out,
        ["['resnet101', 'resnet152', 'resnet18', 'resnet34', 'resnet50'] True"]
    );
}

/// `abc`: a class derived from `ABC` is not made while an
/// `@abstractmethod` (a property over one too) is left, with Python's
/// TypeError; a subclass that defines them is; `@abstractmethod` outside
/// an ABC marks nothing. `...` is a statement (a stub's body).
#[test]
fn abstract_base_classes_as_python() {
    let out = python_printed(
        "abstract",
        r#"from abc import ABC, abstractmethod
import abc
import torch.nn as nn
class B(ABC):
    @abstractmethod
    def f(self): pass
    @property
    @abstractmethod
    def g(self): pass
    def shared(self):
        return self.f() * 10
class C(B):
    def f(self): return 1
for k in (B, C):
    try:
        k()
    except TypeError as e:
        print(e)
class D(C):
    @property
    def g(self): return 2
print(D().g, D().f(), D().shared(), isinstance(D(), B))
class Encoder(nn.Module, abc.ABC):
    @abc.abstractmethod
    def encode(self, x): ...
    def forward(self, x):
        return self.encode(x)
class Lin(Encoder):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
    def encode(self, x):
        return self.fc(x)
import torch
print(Lin()(torch.ones(1, 2)).shape)
try:
    Encoder()
except TypeError as e:
    print(e)
class NotAbc:
    @abstractmethod
    def f(self): pass
print(type(NotAbc()).__name__)
def f():
    ...
print(f())
def g(): pass
print(g())
class A:
    ...
print(A)
"#,
    );
    // As Python 3.11 and PyTorch 2.15 printed them.
    assert_eq!(
        out,
        [
            "Can't instantiate abstract class B with abstract methods f, g",
            "Can't instantiate abstract class C with abstract method g",
            "2 1 10 True",
            "torch.Size([1, 3])",
            "Can't instantiate abstract class Encoder with abstract method encode",
            "NotAbc",
            "None",
            "None",
            "<class '__main__.A'>",
        ]
    );
}

/// `type(x)` of values no builtin constructs: `NoneType` (and
/// `isinstance(x, type(None))`), `function`, `generator`,
/// `builtin_function_or_method`, `torch.dtype`, `torch.Size`, dict views,
/// `collections.OrderedDict`, each shown and named as Python's.
#[test]
fn types_of_functions_none_and_views_as_python() {
    let out = python_printed(
        "types",
        r#"import torch
from collections import OrderedDict
x = None
print(isinstance(x, type(None)), type(x) is type(None), isinstance(3, type(None)), type(torch.ones(2).shape) == torch.Size)
def f(): pass
print(type(f) == type(lambda: 0), type(print), type(torch.float16).__name__, type(OrderedDict()), type({}.items()))
print(isinstance(torch.nn.Linear(1, 1).state_dict(), OrderedDict), isinstance({}, OrderedDict))
def g(): yield 1
print(type(g()), type(torch.ones(1).shape).__name__, type(torch.float32), type([].append).__name__, type(None))
"#,
    );
    // As Python 3.11 and PyTorch 2.15 printed them.
    assert_eq!(
        out,
        [
            "True True False True",
            "True <class 'builtin_function_or_method'> dtype <class 'collections.OrderedDict'> <class 'dict_items'>",
            "True False",
            "<class 'generator'> Size <class 'torch.dtype'> builtin_function_or_method <class 'NoneType'>",
        ]
    );
}

#[test]
fn enumerated_files_sizes_by_keyword_and_arrays_as_tensor_data() {
    // `for k, line in enumerate(f)` counts a file's lines (it gave none:
    // the file was read once to count and again to iterate); factories
    // take `size=`; `torch.tensor(a)` copies a NumPy array in its dtype,
    // `torch.as_tensor(a)` shares it; `tempfile.mkdtemp()` leaves
    // `random`'s generator alone, as CPython's (its own `Random`).
    let out = python_printed(
        "enumerate_files",
        r#"import random, tempfile, os
import numpy as np
import torch
lines = os.path.join(tempfile.mkdtemp(), 'lines.txt')
with open(lines, 'w') as f:
    f.write('a\nb\nc\n')
with open(lines) as f:
    print([(k, line.strip()) for k, line in enumerate(f)])
with open(lines) as f:
    for k, line in enumerate(f, 1):
        if k == 2:
            print(k, line.strip())
print(torch.empty(size=(2, 3)).shape, torch.zeros(size=(2,)).tolist(), torch.ones(size=[1, 2]).shape, torch.randn(size=(3,)).shape)
a = np.array([[1, 2], [3, 4]], dtype=np.int32)
t = torch.tensor(a)
print(t.dtype, t.tolist(), torch.tensor(np.arange(3.0)).dtype, torch.LongTensor(np.array([1, 2])).tolist(), torch.FloatTensor(a).dtype)
u = torch.as_tensor(a)
a[0, 0] = 9
print(t[0, 0].item(), u[0, 0].item(), torch.tensor(a.T).tolist())
try:
    torch.tensor(np.array(['a']))
except TypeError as e:
    print('TypeError', str(e)[:45])
random.seed(3)
d = tempfile.mkdtemp()
print(random.random(), os.path.isdir(d))
"#,
    );
    // As Python 3.11, NumPy 2 and PyTorch 2.15 printed them.
    assert_eq!(
        out,
        [
            r#"[(0, 'a'), (1, 'b'), (2, 'c')]"#,
            r#"2 b"#,
            r#"torch.Size([2, 3]) [0.0, 0.0] torch.Size([1, 2]) torch.Size([3])"#,
            r#"torch.int32 [[1, 2], [3, 4]] torch.float64 [1, 2] torch.float32"#,
            r#"1 9 [[9, 3], [2, 4]]"#,
            r#"TypeError can't convert np.ndarray of type numpy.str_. "#,
            r#"0.23796462709189137 True"#,
        ]
    );
}

#[test]
fn argparse_subcommands_as_python() {
    // `add_subparsers` / `add_parser` as fast_neural_style's command line
    // writes them: the command's dest, each command's own options, the
    // usage and help with the commands, argparse's errors (an unknown
    // command, a command's missing option under its own prog, an unknown
    // word reported by the main parser), `required=True`, aliases; a
    // parser's `prog`; `SystemExit.code`.
    let (out, err, ok) = common::script_streams(
        "subcommands",
        r#"import argparse, sys
p = argparse.ArgumentParser(prog="neural_style.py", description="parser for fast-neural-style")
p.add_argument("--verbose", action="store_true")
sub = p.add_subparsers(title="subcommands", dest="subcommand")
t = sub.add_parser("train", help="parser for training arguments")
t.add_argument("--epochs", type=int, default=2, help="number of training epochs, default is 2")
t.add_argument("--dataset", type=str, required=True)
e = sub.add_parser("eval", help="parser for evaluation/stylizing arguments")
e.add_argument("--content-image", type=str, required=True)
e.add_argument("--accel", action="store_true")
print(t.prog, e.prog)
print(vars(p.parse_args(["train", "--dataset", "d", "--epochs", "3"])))
print(vars(p.parse_args(["--verbose", "eval", "--content-image", "x.jpg", "--accel"])))
print(vars(p.parse_args([])))
print(p.format_usage(), end="")
print(p.format_help())
print(t.format_help())
for argv in [["bogus"], ["train"], ["train", "--dataset", "d", "--nope"]]:
    try:
        p.parse_args(argv)
    except SystemExit as x:
        print("exit", x.code)
p2 = argparse.ArgumentParser(prog="m.py")
s2 = p2.add_subparsers(dest="cmd", required=True, help="what to do")
s2.add_parser("a")
s2.add_parser("b", aliases=["bb"])
print(p2.format_help())
try:
    p2.parse_args([])
except SystemExit as x:
    print("exit", x.code)
print(vars(p2.parse_args(["bb"])))
p3 = argparse.ArgumentParser(prog="n.py")
s3 = p3.add_subparsers()
s3.add_parser("go")
print(vars(p3.parse_args(["go"])), p3.format_usage(), end="")
"#,
    );
    assert!(ok, "{err}");
    // As Python 3.11 printed them: on stdout, and argparse's errors on stderr.
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            r#"neural_style.py train neural_style.py eval"#,
            r#"{'verbose': False, 'subcommand': 'train', 'epochs': 3, 'dataset': 'd'}"#,
            r#"{'verbose': True, 'subcommand': 'eval', 'content_image': 'x.jpg', 'accel': True}"#,
            r#"{'verbose': False, 'subcommand': None}"#,
            r#"usage: neural_style.py [-h] [--verbose] {train,eval} ..."#,
            r#"usage: neural_style.py [-h] [--verbose] {train,eval} ..."#,
            r#""#,
            r#"parser for fast-neural-style"#,
            r#""#,
            r#"options:"#,
            r#"  -h, --help    show this help message and exit"#,
            r#"  --verbose"#,
            r#""#,
            r#"subcommands:"#,
            r#"  {train,eval}"#,
            r#"    train       parser for training arguments"#,
            r#"    eval        parser for evaluation/stylizing arguments"#,
            r#""#,
            r#"usage: neural_style.py train [-h] [--epochs EPOCHS] --dataset DATASET"#,
            r#""#,
            r#"options:"#,
            r#"  -h, --help         show this help message and exit"#,
            r#"  --epochs EPOCHS    number of training epochs, default is 2"#,
            r#"  --dataset DATASET"#,
            r#""#,
            r#"exit 2"#,
            r#"exit 2"#,
            r#"exit 2"#,
            r#"usage: m.py [-h] {a,b,bb} ..."#,
            r#""#,
            r#"positional arguments:"#,
            r#"  {a,b,bb}    what to do"#,
            r#""#,
            r#"options:"#,
            r#"  -h, --help  show this help message and exit"#,
            r#""#,
            r#"exit 2"#,
            r#"{'cmd': 'bb'}"#,
            r#"{} usage: n.py [-h] {go} ..."#,
        ]
    );
    assert_eq!(
        err,
        r#"usage: neural_style.py [-h] [--verbose] {train,eval} ...
neural_style.py: error: argument subcommand: invalid choice: 'bogus' (choose from 'train', 'eval')
usage: neural_style.py train [-h] [--epochs EPOCHS] --dataset DATASET
neural_style.py train: error: the following arguments are required: --dataset
usage: neural_style.py [-h] [--verbose] {train,eval} ...
neural_style.py: error: unrecognized arguments: --nope
usage: m.py [-h] {a,b,bb} ...
m.py: error: the following arguments are required: cmd
"#
    );
}

#[test]
fn ctime_replace_counts_and_torch_save_under_any_name() {
    // fast_neural_style's log line (`time.ctime()`), `str.replace`'s
    // count (it replaced every one), and its `torch.save(state_dict,
    // "epoch_2_....model")`: PyTorch's format whatever the file's name.
    let out = python_printed(
        "ctime",
        r#"import os, tempfile, time
import torch
t = 1e9
print(time.ctime(t) == time.strftime('%a %b %d %H:%M:%S %Y', time.localtime(t)).replace(' 0', '  ', 1), len(time.ctime()), time.asctime(time.localtime(t)) == time.ctime(t))
s = 'Sun Sep 09 01:46:40 2001'
print(repr(s.replace(' 0', '  ', 1)), repr(s.replace(' 0', '  ')), 'aaa'.replace('a', 'b', 2), 'aaa'.replace('a', 'b', -1), 'aaa'.replace('a', 'b', 0))
path = os.path.join(tempfile.mkdtemp(), 'epoch_2_100000.0.model')
torch.save(torch.nn.Linear(2, 1).state_dict(), path)
sd = torch.load(path)
print(type(sd).__name__, list(sd.keys()), sd['weight'].shape)
"#,
    );
    // As Python 3.11 and PyTorch 2.15 printed them.
    assert_eq!(
        out,
        [
            "True 24 True",
            "'Sun Sep  9 01:46:40 2001' 'Sun Sep  9  1:46:40 2001' bba bbb aaa",
            "OrderedDict ['weight', 'bias'] torch.Size([1, 2])",
        ]
    );
}

#[test]
fn unary_plus_as_python() {
    // `+x`: a number itself (`+True` is 1), a tensor itself (`+x is x`,
    // PyTorch's error for a bool tensor), an instance's `__pos__`.
    let out = python_printed(
        "unary_plus",
        r#"import torch
x = torch.ones(2, requires_grad=True)
y = +x
print(y is x, y.grad_fn, +True, +2.5, (+torch.tensor([1, 2])).tolist(), -+3, +-3, 2 + +3, [+1, +2.0])
try:
    +torch.tensor([True])
except RuntimeError as e:
    print(e)
class A:
    def __pos__(self):
        return 'pos'
print(+A())
"#,
    );
    // As Python 3.11 and PyTorch 2.15 printed them.
    assert_eq!(
        out,
        [
            r#"True None 1 2.5 [1, 2] -3 -3 5 [1, 2.0]"#,
            r#"The `+` operator, on a bool tensor is not supported."#,
            r#"pos"#,
        ]
    );
}

#[test]
fn strided_tensors_draw_in_memory_order_as_pytorch() {
    // `normal_`, `uniform_` and `exponential_` of a transposed, sliced or
    // permuted tensor: PyTorch's CPU kernels walk its memory in order
    // (TensorIterator's order, largest stride outside), so cudash draws
    // each number for the element that memory holds next (it drew them in
    // the tensor's own order, another assignment of the same numbers).
    let out = python_printed(
        "memory_order",
        r#"import torch
torch.manual_seed(0)
e = torch.empty(6, 4).t().normal_()
print(e.tolist()[0][:3], e.contiguous().sum().item())
u = torch.empty(5, 7)[:, 1:6].t().uniform_(-1, 2)
print(u.tolist()[1])
x = torch.empty(4, 6)[::2].exponential_()
print(x.tolist())
y = torch.empty(8, 3).t().normal_(2, 3)
print(y.tolist()[2])
z = torch.empty(3, 1, 20).transpose(0, 2).normal_()
print(z[4, 0].tolist())
w = torch.empty(2, 3, 4).permute(2, 0, 1).uniform_()
print(w[1].tolist())
"#,
    );
    // As PyTorch 2.15 printed them.
    assert_eq!(
        out,
        [
            r#"[1.5409960746765137, -1.0845223665237427, -0.7192575931549072] -2.899043083190918"#,
            r#"[0.44587641954421997, 1.5057294368743896, -0.27487534284591675, 1.323457956314087, 1.940291166305542]"#,
            r#"[[0.37716609239578247, 0.7538052201271057, 0.737453818321228, 0.6883164644241333, 0.8073692321777344, 0.009937720373272896], [0.3947625458240509, 0.1850927621126175, 0.996379554271698, 0.023097192868590355, 0.6844741702079773, 0.519551157951355]]"#,
            r#"[-1.1982731819152832, -0.9048734903335571, -0.8936370015144348, 8.625340461730957, 1.3281842470169067, -3.801710844039917, -0.11280030757188797, 0.8184927701950073]"#,
            r#"[0.19216687977313995, 0.7778467535972595, -0.9795136451721191]"#,
            r#"[[0.36027592420578003, 0.2634273171424866, 0.21940875053405762], [0.44311922788619995, 0.09583914279937744, 0.33237969875335693]]"#,
        ]
    );
}

/// `uuid.uuid4()` (the saved-tensor hooks tutorial names files with it):
/// random bits from the operating system, so a seeded `random` draws the
/// same numbers with or without it, as in CPython.
#[test]
fn uuid4_as_python() {
    let out = python_printed(
        "uuid_four",
        "import random\nimport uuid\nrandom.seed(0)\na = random.random()\nrandom.seed(0)\nu = uuid.uuid4()\nb = random.random()\nprint(a == b)\ns = str(u)\nprint(len(s), s.count('-'), s[14], s[19] in '89ab', u.version, u != uuid.uuid4())\nprint(uuid.UUID(s) == u, repr(uuid.UUID('12345678123456781234567812345678')), uuid.UUID('{12345678-1234-5678-1234-567812345678}').hex)\ntry:\n    uuid.UUID('xyz')\nexcept ValueError as e:\n    print(e)\n",
    );
    assert_eq!(
        out,
        [
            "True",
            "36 4 4 True 4 True",
            "True UUID('12345678-1234-5678-1234-567812345678') 12345678123456781234567812345678",
            "badly formed hexadecimal UUID string",
        ]
    );
}

/// Python's `slice(...)`: made, shown, compared, and indexing a list, a
/// string and a tensor as `x[a:b:c]` does; what a class's `__getitem__`
/// receives equals it. (As Python 3.11 printed them.)
#[test]
fn slice_objects_index_as_slices_do() {
    let out = python_printed(
        "slice_objects",
        "import torch
s = slice(1, 7, 2)
print(s, s.start, s.stop, s.step, slice(3))
xs = [0, 1, 2, 3, 4, 5, 6, 7]
print(xs[s], 'abcdefgh'[s], torch.arange(10)[s].tolist(), xs[slice(None, None, -1)])
class Seq:
    def __getitem__(self, k):
        return k
print(Seq()[1:3], Seq()[1:3] == slice(1, 3), slice(1, 2) == slice(1, 3))
try:
    [1][slice(0, 1, 0)]
except ValueError as e:
    print('ValueError', e)
for bad in (lambda: 'hello'[10], lambda: b'ab'[-3], lambda: (1, 2)[5]):
    try:
        bad()
    except IndexError as e:
        print('IndexError', e)
",
    );
    assert_eq!(
        out,
        [
            "slice(1, 7, 2) 1 7 2 slice(None, 3, None)",
            "[1, 3, 5] bdf [1, 3, 5] [7, 6, 5, 4, 3, 2, 1, 0]",
            "slice(1, 3, None) True False",
            "ValueError slice step cannot be zero",
            "IndexError string index out of range",
            "IndexError index out of range",
            "IndexError tuple index out of range",
        ]
    );
}

/// Subscripting what holds no items says so in Python's words (a
/// parameter's `.grad` after `zero_grad()`, as the autograd tutorial of
/// PyTorch's "Introduction to PyTorch" series ends; PyTorch 2.15 printed
/// these lines).
#[test]
fn subscripting_none_is_pythons_type_error() {
    assert_eq!(
        printed(
            r#"import torch
w = torch.nn.Linear(2, 2)
w(torch.ones(1, 2)).sum().backward()
torch.optim.SGD(w.parameters(), lr=0.1).zero_grad()
for v in [w.weight.grad, 3, 2.5, True]:
    try:
        v[0]
    except TypeError as e:
        print(e)
"#
        ),
        [
            "'NoneType' object is not subscriptable",
            "'int' object is not subscriptable",
            "'float' object is not subscriptable",
            "'bool' object is not subscriptable",
        ]
    );
}

/// A Python program is warned as Python's default filter warns: once from
/// each place however often it runs (a function called in a loop), the
/// warning shown as the statement that raised it ends, no count of
/// repeats (PyTorch 2.15 printed this program's warning twice: from line
/// 4 and from line 7).
#[test]
fn a_python_programs_warning_comes_once_from_each_place() {
    let (out, err, ok) = common::script_streams(
        "warned_once",
        "import torch
import torch.nn.functional as F
def f(x):
    return F.log_softmax(x)
for i in range(3):
    f(torch.ones(2, 2))
    print(i)
F.log_softmax(torch.ones(2, 2))
",
    );
    assert!(ok, "{err}");
    assert_eq!(out, "0\n1\n2\n");
    let warning = "UserWarning: Implicit dimension choice for log_softmax has been deprecated.";
    assert_eq!(err.matches(warning).count(), 2, "{err}");
    assert!(!err.contains("more time"), "{err}");
}

/// A TensorDataset indexed as PyTorch's `tuple(t[index] for t in
/// self.tensors)` (a slice, a list, an index tensor: "What is torch.nn
/// really?" slices its batches so); IPython's `set_trace` imports (the
/// same tutorial imports it) and says, when called, that cudash has no
/// debugger. PyTorch 2.15's lines for the dataset.
#[test]
fn a_tensor_dataset_takes_any_index_and_set_trace_imports() {
    assert_eq!(
        python_printed(
            "tensor_dataset_index",
            "import torch
from torch.utils.data import TensorDataset
from IPython.core.debugger import set_trace
ds = TensorDataset(torch.arange(10).view(5, 2), torch.arange(5) * 10)
print(ds[1:3])
print(ds[[0, 4]])
print(ds[torch.tensor([1, 1])])
print(ds[-1], ds[torch.tensor(2)])
print(ds[::2][1])
try:
    ds[7]
except IndexError as e:
    print('IndexError:', e)
try:
    set_trace()
except NotImplementedError as e:
    print(str(e)[:26])
"
        ),
        [
            "(tensor([[2, 3],",
            "        [4, 5]]), tensor([10, 20]))",
            "(tensor([[0, 1],",
            "        [8, 9]]), tensor([ 0, 40]))",
            "(tensor([[2, 3],",
            "        [2, 3]]), tensor([10, 10]))",
            "(tensor([8, 9]), tensor(40)) (tensor([4, 5]), tensor(20))",
            "tensor([ 0, 20, 40])",
            "IndexError: index 7 is out of bounds for dimension 0 with size 5",
            "cudash has no debugger: se",
        ]
    );
}

/// A Python program's uncaught error names the class Python sees: PyTorch
/// raises `RuntimeError` where a cell names cudash's finer class
/// (`ShapeError`), the one `except RuntimeError` catches in both.
#[test]
fn a_python_programs_report_names_pythons_class() {
    let (_, err, ok) = common::script_streams(
        "runtime_error_report",
        "import torch\ntorch.ones(2) @ torch.ones(3)\n",
    );
    assert!(!ok);
    assert!(
        err.starts_with("RuntimeError: matmul: shapes [2] and [3]"),
        "{err}"
    );
    assert!(common::err("ones(2) @ ones(3)").0 == "ShapeError");
}

/// A Python program's bare `sum`, `max` and `min` are Python's: over a
/// tensor they iterate its rows (`sum` of a matrix is the sum of its rows,
/// a vector; `max` compares rows with `>`, so a matrix's is PyTorch's
/// RuntimeError on the truth of a many-valued tensor), where `torch.sum`
/// reduces it whole; lists, numbers and generators as before. PyTorch
/// 2.15's lines.
#[test]
fn a_python_programs_sum_max_and_min_are_pythons() {
    assert_eq!(
        python_printed(
            "python_sum",
            "import torch
y = torch.ones(3, 2) * 2
print(sum(y), sum(y, 1), torch.sum(y))
print(sum(torch.tensor([1, 2, 3])), sum(torch.tensor([True, False, True])))
print(max(torch.tensor([3., 7., 7., 1.])), min(torch.tensor([3, 1, 2])))
print(max(1, 2), max([1, 5]), sum(x * x for x in range(4)), max(torch.tensor(3.), 2.0))
w = torch.ones(3, 2, requires_grad=True)
s = sum(w * 2)
print(s)
s.sum().backward()
print(w.grad.tolist())
try:
    max(torch.ones(2, 2))
except RuntimeError as e:
    print('RuntimeError:', e)
print(sum, max)
"
        ),
        [
            "tensor([6., 6.]) tensor([7., 7.]) tensor(12.)",
            "tensor(6) tensor(2)",
            "tensor(7.) tensor(1)",
            "2 5 14 tensor(3.)",
            "tensor([6., 6.], grad_fn=<AddBackward0>)",
            "[[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]",
            "RuntimeError: Boolean value of Tensor with more than one value is ambiguous",
            "<built-in function sum> <built-in function max>",
        ]
    );
}

/// A tensor in Python's string formatting as PyTorch's `Tensor.__format__`
/// and Python's conversions give it: `{x=}` writes the repr, `!r`/`!s`
/// and `%s`/`%r` the tensor itself, a field or `%f` of a one-element
/// tensor its number, a spec on a tensor of several elements PyTorch's
/// TypeError. PyTorch 2.15's lines.
#[test]
fn tensors_in_string_formatting_are_pytorchs() {
    assert_eq!(
        python_printed(
            "tensor_format",
            r#"import torch
x = torch.tensor([1.5, 2.0])
t = x.sum()
print(f"{x=}", f"{x.sum()=}", f"{x.sum()=:.2f}")
print(f"{t!r} {t!s} {t} {t:.1f}")
print("{!r}".format(t), "%s" % t, "%r" % t, "%.2f" % t)
print("%d" % torch.tensor([3]), "%s|%d" % (torch.tensor([3]), torch.tensor([3])))
try:
    print("{:.2f}".format(torch.tensor([1.5])))
except TypeError as e:
    print("TypeError:", e)
print("{}".format(torch.tensor(2)), "{:>6}".format(torch.tensor(2)), f"{torch.tensor(True)}")
"#
        ),
        [
            "x=tensor([1.5000, 2.0000]) x.sum()=tensor(3.5000) x.sum()=3.50",
            "tensor(3.5000) tensor(3.5000) 3.5 3.5",
            "tensor(3.5000) tensor(3.5000) tensor(3.5000) 3.50",
            "3 tensor([3])|3",
            "TypeError: unsupported format string passed to Tensor.__format__",
            "2      2 True",
        ]
    );
}

/// Python's assignment expression (`:=`): in `if` and `while`
/// conditions, in a comprehension (binding the enclosing function's name,
/// as PEP 572 says), in a lambda, an f-string, a dict display and a call;
/// an f-string's `{x:=^7}` stays a format spec.
#[test]
fn assignment_expressions() {
    let out = python_printed(
        "walrus",
        r#"
import re
xs = [3, 1, 4, 1, 5]
if (n := len(xs)) > 2:
    print("walrus", n)
it = iter(xs)
seen = []
while (v := next(it, None)) is not None:
    seen.append(v)
print(seen)
print([y for x in xs if (y := x * 2) > 4], y)
def f(data):
    total = 0
    if (m := re.match(r"(\d+)", data)) is not None:
        total += int(m.group(1))
    vals = [last := k for k in range(3)]
    return total, last, vals
print(f("42abc"))
g = lambda q: (w := q + 1) * w
print(g(2), (a := 5), a, f"{(b := 7)} {b}", {"k": (h := 3)}, h, max((r := [2, 9, 4])), r)
print(f"{3:=^7}|")
"#,
    );
    // Each line as Python 3.11 printed it.
    assert_eq!(
        out,
        [
            "walrus 5",
            "[3, 1, 4, 1, 5]",
            "[6, 8, 10] 10",
            "(42, 2, [0, 1, 2])",
            "9 5 5 7 7 {'k': 3} 3 9 [2, 9, 4]",
            "===3===|",
        ]
    );
    // Only a name takes `:=`, as Python says (its words: "cannot use
    // assignment expressions with function call").
    for src in ["print((len([1]) := 3))", "x = [1]\nprint((x[0] := 3))"] {
        let (ename, message) = common::err(src);
        assert_eq!(ename, "SyntaxError", "{src}");
        assert!(
            message.contains("the left of `:=` must be a name"),
            "{message}"
        );
    }
}

/// `@dataclass(frozen=True)`, `order=True`, and the module's `fields`,
/// `astuple`, `replace`, `is_dataclass`, as Python 3.11 printed them.
#[test]
fn dataclass_options_and_helpers() {
    let out = python_printed(
        "dataclass_options",
        r#"
import dataclasses
from dataclasses import dataclass, field, asdict, astuple, replace, fields, is_dataclass
@dataclass
class Config:
    lr: float = 1e-3
    layers: list = field(default_factory=lambda: [64, 32])
c = Config(lr=0.1)
print(replace(c, lr=0.5), c, astuple(c), [f.name for f in fields(Config)], fields(c)[0].default)
print(is_dataclass(c), is_dataclass(Config), is_dataclass(3))
@dataclass(frozen=True)
class P:
    x: int
    y: int = 0
p = P(1)
try:
    p.x = 3
except dataclasses.FrozenInstanceError as e:
    print("FrozenInstanceError:", e)
try:
    del p.y
except AttributeError as e:
    print(type(e).__name__, e)
print(P(1, 2) == P(1, 2), hash(P(1, 2)) == hash(P(1, 2)), len({P(1, 2), P(1, 2), P(2)}), {P(1): "a"}[P(1)])
@dataclass(order=True)
class V:
    major: int
    minor: int = 0
print(sorted([V(1, 5), V(0, 9), V(1, 2)]), V(1) < V(1, 1), V(2) >= V(1, 9), max(V(3), V(3, 1)))
try:
    V(1) < P(1)
except TypeError as e:
    print("TypeError:", e)
try:
    replace(c, nope=1)
except TypeError as e:
    print("TypeError:", e)
@dataclass
class Post:
    a: int
    def __post_init__(self):
        self.twice = 2 * self.a
print(replace(Post(1), a=10).twice)
"#,
    );
    assert_eq!(
        out,
        [
            "Config(lr=0.5, layers=[64, 32]) Config(lr=0.1, layers=[64, 32]) (0.1, [64, 32]) ['lr', 'layers'] 0.001",
            "True True False",
            "FrozenInstanceError: cannot assign to field 'x'",
            "FrozenInstanceError cannot delete field 'y'",
            "True True 2 a",
            "[V(major=0, minor=9), V(major=1, minor=2), V(major=1, minor=5)] True True V(major=3, minor=1)",
            "TypeError: '<' not supported between instances of 'V' and 'P'",
            "TypeError: Config.__init__() got an unexpected keyword argument 'nope'",
            "20",
        ]
    );
    // The options cudash does not model say so rather than being ignored.
    let (class, message) = common::err(
        "from dataclasses import dataclass\n@dataclass(eq=False)\nclass A:\n    x: int = 0",
    );
    assert_eq!(class, "NotImplementedError", "{message}");
}

/// Attributes set on a function (`f.calls += 1`), its docstring, and
/// `functools.wraps` giving the wrapper the wrapped function's name,
/// docstring and `__wrapped__`, as Python's.
#[test]
fn function_attributes_and_wraps() {
    let out = python_printed(
        "function_attributes",
        r#"
import functools
def f(x):
    "doc of f"
    return x
f.calls = 0
f.calls += 1
def h():
    pass
print(f.calls, f.__name__, f.__doc__, h.__doc__, hasattr(f, "nope"))
def deco(fn):
    @functools.wraps(fn)
    def inner(*a, **k):
        """inner doc"""
        inner.count += 1
        return fn(*a, **k) * 2
    inner.count = 0
    return inner
@deco
def g(x):
    "doc of g"
    return x
print(g(3), g(4), g.count, g.__name__, g.__doc__, g.__wrapped__(3), repr(g).split(" at ")[0])
"#,
    );
    assert_eq!(
        out,
        ["1 f doc of f None False", "6 8 2 g doc of g 3 <function g",]
    );
}

/// Python's `match` statement: each kind of pattern, guards, `as`, `|`,
/// `*rest` and `**rest`, a class's `__match_args__`, a dataclass's and a
/// named tuple's fields; `match` and `case` still names elsewhere; a
/// `yield` and a `continue` inside a case; and the hidden subject gone
/// after the statement. Each line as Python 3.11 printed it.
#[test]
fn match_statements() {
    let out = python_printed(
        "match_statement",
        r#"
import re
from dataclasses import dataclass
from collections import namedtuple
from enum import Enum
class Color(Enum):
    RED = 1
    GREEN = 2
@dataclass
class Point:
    x: int
    y: int = 0
Pair = namedtuple("Pair", ["a", "b"])
class Circle:
    __match_args__ = ("r",)
    def __init__(self, r):
        self.r = r
def describe(v):
    match v:
        case None:
            return "none"
        case True:
            return "true"
        case 0 | 1:
            return "small int"
        case -5:
            return "minus five"
        case int(n) if n > 100:
            return f"big {n}"
        case int():
            return "int"
        case "hi" | "hello" as word:
            return f"greeting {word}"
        case str(s):
            return f"str {s!r}"
        case Color.RED:
            return "red"
        case Point(x=0, y=0):
            return "origin"
        case Point(x, 0):
            return f"on x axis at {x}"
        case Circle(r):
            return f"circle {r}"
        case Pair(a, b):
            return f"pair {a} {b}"
        case [] | ():
            return "empty"
        case [first, *rest] if len(rest) > 2:
            return f"long from {first}, {len(rest)} more"
        case (a, b, *_):
            return f"seq {a} {b}"
        case {"action": "move", "to": (tx, ty), **others}:
            return f"move {tx} {ty} {others}"
        case _:
            return "other"
for v in [None, True, 1, -5, 7, 1000, "hello", "yo", Color.RED, Color.GREEN, Point(0, 0),
          Point(3), Point(1, 2), Circle(2.5), Pair(1, 2), (), [1, 2, 3, 4], (1, 2, 3),
          {"action": "move", "to": (1, 2), "speed": 3}, 3.5]:
    print(describe(v))
match "go north".split():
    case [verb, direction]:
        print(verb, direction)
match (1, 2):
    case x, y:
        print("tuple", x, y)
match = re.match(r"(\w+)", "abc")
case = 3
print(match.group(1), case)
def gen():
    for v in [1, "a", [2, 3]]:
        match v:
            case int():
                yield "int"
            case [a, b]:
                yield a + b
            case _:
                continue
print(list(gen()), [k for k in globals() if k.startswith("$")])
try:
    match Point(1):
        case Point(1, 2, 3):
            pass
except TypeError as e:
    print("TypeError:", e)
"#,
    );
    assert_eq!(
        out,
        [
            "none",
            "true",
            "small int",
            "minus five",
            "int",
            "big 1000",
            "greeting hello",
            "str 'yo'",
            "red",
            "other",
            "origin",
            "on x axis at 3",
            "other",
            "circle 2.5",
            "pair 1 2",
            "empty",
            "long from 1, 3 more",
            "seq 1 2",
            "move 1 2 {'speed': 3}",
            "other",
            "go north",
            "tuple 1 2",
            "abc 3",
            "['int', 5] []",
            "TypeError: Point() accepts 2 positional sub-patterns (3 given)",
        ]
    );
}

/// Python's errors for a positional-only parameter passed by keyword and
/// for `zip(strict=True)` of unequal lengths, as Python 3.11 words them.
#[test]
fn positional_only_and_strict_zip_errors() {
    let out = python_printed(
        "positional_only",
        r#"
def f(a, /, b, *, c=3):
    return a + b + c
def g(a, /, **kw):
    return a, kw
print(f(1, 2), f(1, b=2, c=4), g(1, a=2))
try:
    f(a=1, b=2)
except TypeError as e:
    print("TypeError:", e)
for args in (([1, 2], [3]), ([1], [2], [3, 4])):
    try:
        list(zip(*args, strict=True))
    except ValueError as e:
        print("ValueError:", e)
d = {"a": 1}
alias = d
d |= {"b": 2}
print(d | {"a": 0}, alias, (255).bit_length(), (2.0).is_integer(), "Straße".casefold())
"#,
    );
    assert_eq!(
        out,
        [
            "6 7 (1, {'a': 2})",
            "TypeError: f() got some positional-only arguments passed as keyword arguments: 'a'",
            "ValueError: zip() argument 2 is shorter than argument 1",
            "ValueError: zip() argument 3 is longer than arguments 1-2",
            "{'a': 0, 'b': 2} {'a': 1, 'b': 2} 8 True strasse",
        ]
    );
}

/// A generator handed to a program's own method is the generator itself
/// (the method takes items with `next`, as Python's); a builtin method
/// still reads it whole (`xs.extend(g)`).
#[test]
fn a_generator_passed_to_a_method_stays_a_generator() {
    let out = python_printed(
        "generator_to_method",
        r#"
class Reader:
    def take(self, stream, n):
        return [next(stream) for _ in range(n)]
def gen():
    yield from range(10)
g = gen()
r = Reader()
print(r.take(g, 2), r.take(g, 3), next(g))
xs = [0]
xs.extend(x * 2 for x in range(3))
print(xs)
"#,
    );
    assert_eq!(out, ["[0, 1] [2, 3, 4] 5", "[0, 0, 2, 4]"]);
}

/// `iter` of a range (or of `itertools.count()`) makes its numbers as
/// `next` asks, so a huge or endless one is fine; the other readers of an
/// iterator take it as they take any other. Each line as Python printed it.
#[test]
fn a_range_iterator_counts_as_it_goes() {
    let out = python_printed(
        "range_iterator",
        r#"
import itertools
it = iter(range(10**12))
print(next(it), next(it))
c = iter(itertools.count(5, 2))
print(next(c), next(c), [next(c) for _ in range(3)])
r = iter(range(10, 0, -3))
print(list(r), list(r))
print(list(zip(iter(range(3)), "abc")), sum(iter(range(5))), list(itertools.islice(iter(range(100)), 3)))
print(next(iter(range(0)), "empty"), sorted(iter(range(3)), reverse=True), [x for x in iter(range(4)) if x % 2])
"#,
    );
    assert_eq!(
        out,
        [
            "0 1",
            "5 7 [9, 11, 13]",
            "[10, 7, 4, 1] []",
            "[(0, 'a'), (1, 'b'), (2, 'c')] 10 [0, 1, 2]",
            "empty [2, 1, 0] [1, 3]",
        ]
    );
}

/// A `case` pattern Python refuses is a SyntaxError at the pattern.
#[test]
fn bad_case_patterns_are_syntax_errors() {
    for (src, message) in [
        (
            "match [1]:\n    case [*a, *b]:\n        pass\n",
            "multiple starred names",
        ),
        (
            "match 1:\n    case {**a, \"k\": 1}:\n        pass\n",
            "`**rest` must come last",
        ),
        (
            "match 1:\n    case P(a=1, 2):\n        pass\n",
            "positional patterns follow keyword",
        ),
    ] {
        let (class, text) = common::err(src);
        assert_eq!(class, "SyntaxError", "{src}: {text}");
        assert!(text.contains(message), "{src}: {text}");
    }
}

/// Python's chained exceptions: `raise X from e` (`__cause__`), an error
/// raised in a handler (`__context__`), `from None`
/// (`__suppress_context__`), a re-raise that chains nothing; a missing
/// key's KeyError has the key as its argument. As Python 3.11 printed it.
#[test]
fn chained_exceptions_as_python() {
    let out = python_printed(
        "chained_exceptions",
        r#"class TrainingError(Exception):
    pass

def step(batch):
    try:
        return batch["x"] * 2
    except KeyError as e:
        raise TrainingError(f"batch without {e}") from e

try:
    step({"y": 1})
except TrainingError as e:
    print(type(e).__name__, e, repr(e.__cause__), e.__suppress_context__, type(e.__context__).__name__)
    print(isinstance(e.__cause__, KeyError), e.__cause__.args)

def parse(s):
    try:
        return int(s)
    except ValueError:
        raise ValueError(f"not a number: {s!r}") from None

try:
    parse("abc")
except ValueError as e:
    print(e, e.__cause__, e.__suppress_context__, repr(e.__context__))

try:
    try:
        [][1]
    except IndexError as e:
        raise e
except IndexError as e:
    print(repr(e), e.__context__)

try:
    try:
        {}["k"]
    except KeyError:
        x = 1 / 0
except ZeroDivisionError as e:
    print(repr(e), repr(e.__context__), e.__cause__)

try:
    raise RuntimeError("outer") from ValueError("inner")
except RuntimeError as e:
    print(repr(e.__cause__), e.__context__)

d = {"a": 1}
for k in ["b", 0]:
    try:
        d[k]
    except KeyError as e:
        print(e.args, repr(e), str(e))
try:
    raise KeyError("missing", 2)
except KeyError as e:
    print(e.args, str(e))
"#,
    );
    assert_eq!(
        out,
        [
            "TrainingError batch without 'x' KeyError('x') True KeyError",
            "True ('x',)",
            "not a number: 'abc' None True ValueError(\"invalid literal for int() with base 10: 'abc'\")",
            "IndexError('list index out of range') None",
            "ZeroDivisionError('division by zero') KeyError('k') None",
            "ValueError('inner') None",
            "('b',) KeyError('b') 'b'",
            "(0,) KeyError(0) 0",
            "('missing', 2) ('missing', 2)",
        ]
    );
}

/// An uncaught chained exception shows the one before it first, with the
/// line Python prints between them.
#[test]
fn an_uncaught_chained_exception_shows_its_chain() {
    let dir = std::env::temp_dir().join(format!("cudash-chained-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("chained.py");
    std::fs::write(
        &file,
        "def load(d):\n    try:\n        return d['lr']\n    except KeyError as e:\n        \
         raise ValueError('no lr') from e\n\ndef f():\n    try:\n        1 / 0\n    \
         except ZeroDivisionError:\n        load({})\n\nf()\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", "0", "script"])
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let at = |s: &str| err.find(s).unwrap_or_else(|| panic!("no {s:?} in {err}"));
    assert!(at("ZeroDivisionError") < at("During handling of the above exception"));
    assert!(at("During handling of the above exception") < at("KeyError: 'lr'"));
    assert!(at("KeyError: 'lr'") < at("The above exception was the direct cause"));
    assert!(at("The above exception was the direct cause") < at("ValueError: no lr"));
}

/// `functools.singledispatch` (the nearest registered class; `bool` an
/// `int`), `collections.ChainMap`, `string.Template`, `math.perm`,
/// `isqrt`, `lcm`, and `type(scheduler).__name__`, as Python 3.11 and
/// PyTorch 2.15 printed them.
#[test]
fn singledispatch_chainmap_template_as_python() {
    let out = python_printed(
        "singledispatch",
        r#"from functools import singledispatch
from collections import ChainMap
from string import Template
import string, math

@singledispatch
def describe(x):
    return f"something: {x!r}"

@describe.register(int)
def _(x):
    return f"an int {x}"

@describe.register(list)
def _(x):
    return "a list of " + ", ".join(describe(v) for v in x)

class Base: pass
class Derived(Base): pass
describe.register(Base, lambda x: "a Base")
print(describe(3), "|", describe("s"), "|", describe([1, "a"]), "|", describe(Derived()), "|", describe(True))
print(describe.dispatch(float) is describe.__wrapped__, describe.__name__)

defaults = {"lr": 0.1, "epochs": 10}
given = {"lr": 0.01}
cfg = ChainMap(given, defaults)
print(cfg["lr"], cfg["epochs"], len(cfg), sorted(cfg), "lr" in cfg, cfg.get("x", 5))
cfg["batch"] = 32
print(given, dict(cfg.items()) == {"lr": 0.01, "epochs": 10, "batch": 32}, cfg.maps[0] is given)
child = cfg.new_child({"lr": 1.0})
print(child["lr"], child.parents["lr"], list(child.keys()))
print(ChainMap({"a": 1}, {"b": 2}))

t = Template("$who trained for ${n} epochs: $$${cost}")
print(t.substitute(who="cudash", n=3, cost=0), "|", t.safe_substitute({"who": "x"}), "|", t.get_identifiers())
try:
    t.substitute(who="a")
except KeyError as e:
    print("KeyError", e)
try:
    Template("bad $ here").substitute()
except ValueError as e:
    print(e)
print(math.perm(5, 2), math.perm(4), math.isqrt(17), math.isqrt(10**18), math.lcm(4, 6), math.lcm(), math.lcm(3, 0))
print("{a}-{b:>4}".format_map({"a": 1, "b": "x"}))
import torch
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
for s in [torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10), torch.optim.lr_scheduler.StepLR(opt, 3)]:
    print(type(s).__name__)
"#,
    );
    assert_eq!(
        out,
        [
            "an int 3 | something: 's' | a list of an int 1, something: 'a' | a Base | an int True",
            "True describe",
            "0.01 10 2 ['epochs', 'lr'] True 5",
            "{'lr': 0.01, 'batch': 32} True True",
            "1.0 0.01 ['lr', 'epochs', 'batch']",
            "ChainMap({'a': 1}, {'b': 2})",
            "cudash trained for 3 epochs: $0 | x trained for ${n} epochs: $${cost} | ['who', 'n', 'cost']",
            "KeyError 'n'",
            "Invalid placeholder in string: line 1, col 5",
            "20 24 4 1000000000 12 1 0",
            "1-   x",
            "OneCycleLR",
            "StepLR",
        ]
    );
}

/// `x.apply_(f)`: each element through a Python function, in place (a
/// transposed view's too), refused for a tensor that requires grad, as
/// PyTorch 2.15 printed it.
#[test]
fn tensor_apply_as_pytorch() {
    let out = python_printed(
        "apply_",
        r#"import torch
x = torch.arange(6.0).view(2, 3)
print(x.apply_(lambda v: v * v + 1), x)
y = torch.arange(6).view(2, 3).t()
y.apply_(lambda v: -v)
print(y, y.dtype)
w = torch.ones(2, requires_grad=True)
try:
    w.apply_(lambda v: v)
except RuntimeError as e:
    print("RuntimeError", e)
"#,
    );
    assert_eq!(
        out,
        [
            "tensor([[ 1.,  2.,  5.],",
            "        [10., 17., 26.]]) tensor([[ 1.,  2.,  5.],",
            "        [10., 17., 26.]])",
            "tensor([[ 0, -3],",
            "        [-1, -4],",
            "        [-2, -5]]) torch.int64",
            "RuntimeError Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.",
        ]
    );
}

/// A fresh layer's parameters and buffers have been written once, as
/// PyTorch's `reset_parameters` fills them in place (`init.ones_`,
/// `zero_()`, `normal_`; twice for an embedding's padding row), so their
/// `_version` is PyTorch 2.15's.
#[test]
fn fresh_layers_versions_as_pytorch() {
    let out = python_printed(
        "fresh_versions",
        "import torch, torch.nn as nn\n\
         ln = nn.LayerNorm(3); bn = nn.BatchNorm2d(3); rn = nn.RMSNorm(3)\n\
         inn = nn.InstanceNorm1d(3, affine=True, track_running_stats=True); gn = nn.GroupNorm(1, 3)\n\
         print(ln.weight._version, ln.bias._version, bn.weight._version, bn.bias._version, \
         bn.running_mean._version, bn.running_var._version, bn.num_batches_tracked._version, \
         rn.weight._version, inn.weight._version, inn.running_mean._version, gn.weight._version, \
         gn.bias._version)\n\
         print(nn.Linear(2, 3).weight._version, nn.Embedding(3, 2).weight._version, \
         nn.Embedding(3, 2, padding_idx=0).weight._version, nn.Conv2d(1, 1, 2).weight._version)\n\
         mha = nn.MultiheadAttention(4, 2)\n\
         print(mha.in_proj_bias._version, mha.out_proj.bias._version, nn.PReLU().weight._version)\n",
    );
    assert_eq!(out, ["1 1 1 1 1 1 1 1 1 1 1 1", "1 1 2 1", "1 2 1"]);
}

/// A class's `__bases__`, `__base__` and `__mro__` (C3 over the program's
/// classes, then the built-in bases, then `object`), `object` printed as
/// Python's, and `math.lgamma`/`gamma`/`erf`/`erfc`/`log1p`/`expm1`, as
/// Python 3.11 and PyTorch 2.15 printed them.
#[test]
fn class_bases_and_mro_and_more_math_as_python() {
    let out = python_printed(
        "bases_mro",
        r#"import math
import torch.nn as nn
class M(nn.Module): pass
class N(M): pass
class E(ValueError): pass
class A: pass
class B(A): pass
class C(A): pass
class D(B, C): pass
print(N.__bases__, N.__base__, E.__bases__, A.__bases__, A.__base__)
print([k.__name__ for k in D.__mro__], [k.__name__ for k in N.__mro__][:3], object)
print(round(math.lgamma(4.5), 12), round(math.gamma(4.5), 12), round(math.erf(0.5), 12), round(math.erfc(2.0), 12), math.log1p(1e-10), math.expm1(1e-10))
try:
    math.lgamma(0)
except ValueError as e:
    print("ValueError", e)
"#,
    );
    assert_eq!(
        out,
        [
            "(<class '__main__.M'>,) <class '__main__.M'> (<class 'ValueError'>,) (<class 'object'>,) <class 'object'>",
            "['D', 'B', 'C', 'A', 'object'] ['N', 'M', 'Module'] <class 'object'>",
            "2.453736570842 11.631728396567 0.520499877813 0.004677734981 9.999999999500001e-11 1.00000000005e-10",
            "ValueError math domain error",
        ]
    );
}

/// A torch.Size sliced, joined with a tuple on either side or repeated is
/// a torch.Size (`x.shape[:-1] + (-1,)`), an index an int, as PyTorch
/// 2.15 printed them.
#[test]
fn torch_size_slices_and_joins_as_pytorch() {
    let out = python_printed(
        "size_slices",
        r#"import torch
s = torch.zeros(2, 3, 4).shape
print(s[1:], type(s[1:]).__name__, s[-1], s[:0], s[::-1])
print(torch.Size([1, 2]) + (3,), (3,) + torch.Size([1]), s * 2, s[:-1] + (-1,))
print(torch.zeros(s[1:]).shape, s[1:] == (3, 4), list(s[1:]), isinstance(s[1:], tuple))
"#,
    );
    assert_eq!(
        out,
        [
            "torch.Size([3, 4]) Size 4 torch.Size([]) torch.Size([4, 3, 2])",
            "torch.Size([1, 2, 3]) torch.Size([3, 1]) torch.Size([2, 3, 4, 2, 3, 4]) torch.Size([2, 3, -1])",
            "torch.Size([3, 4]) True [3, 4] True",
        ]
    );
}

/// Small pieces of Python's library found missing by a survey of one-line
/// uses, as CPython 3.11 printed them.
#[test]
fn more_of_pythons_library_as_python() {
    let out = python_printed(
        "more_library",
        r#"import itertools, collections, math
print(list(itertools.combinations_with_replacement('abc', 2)), list(itertools.combinations_with_replacement([], 0)))
print(sorted(collections.Counter('abracadabra').elements()), list(collections.Counter({'a': 2, 'b': 0, 'c': -1}).elements()))
print(str(bytes([104, 105]), 'utf-8'), str(b'\xff', 'utf-8', 'replace'))
print(pow(3, -1, 7), pow(2, 10, 1000), pow(38, -2, 97))
try:
    pow(2, -1, 4)
except ValueError as e:
    print("ValueError", e)
print(math.copysign(1, -0.0), math.copysign(2.5, 1))
print(repr('a\tbc\td'.expandtabs(4)), repr('x\ty\nab\tc'.expandtabs()))
print(issubclass(bool, int), issubclass(bool, (str, float)), issubclass(bool, object))
"#,
    );
    assert_eq!(
        out,
        [
            "[('a', 'a'), ('a', 'b'), ('a', 'c'), ('b', 'b'), ('b', 'c'), ('c', 'c')] [()]",
            "['a', 'a', 'a', 'a', 'a', 'b', 'b', 'c', 'd', 'r', 'r'] ['a', 'a']",
            "hi \u{fffd}",
            "5 24 44",
            "ValueError base is not invertible for the given modulus",
            "-1.0 2.5",
            "'a   bc  d' 'x       y\\nab      c'",
            "True False True",
        ]
    );
}

/// `copy.copy` makes a new dict, set or instance holding the same values
/// (it gave the object itself: a change to the copy changed the
/// original), calls a class's `__copy__`, keeps an Enum member; a Counter's and a defaultdict's copies keep their kind;
/// their keyword items; `type()` names them, as CPython 3.11 printed.
#[test]
fn shallow_copies_and_collections_kinds_as_python() {
    let out = python_printed(
        "shallow_copies",
        r#"import copy, collections
from collections import Counter, defaultdict
class A:
    def __init__(self):
        self.x = [1]
        self.y = 2
a = A()
b = copy.copy(a)
b.y = 3
print(type(b).__name__, b.x is a.x, a.y, b.y)
d = {"a": [1]}
e = copy.copy(d)
e["b"] = 2
s = {1}
t = copy.copy(s)
t.add(2)
print(d, e, e["a"] is d["a"], s, t)
c = Counter("aab", z=2)
k = copy.copy(c)
k["q"] += 1
print(c, k, type(k).__name__, c.copy()["missing"])
dd = defaultdict(int, a=1)
ee = dd.copy()
ee["z"] += 1
print(dd, ee, type(ee).__name__, type(c) is Counter, isinstance(dd, defaultdict), isinstance({}, Counter))
class Own:
    def __init__(self):
        self.n = 1
    def __copy__(self):
        other = Own()
        other.n = self.n + 10
        return other
from enum import Enum
class Color(Enum):
    RED = 1
print(copy.copy(Own()).n, copy.copy(Color.RED) is Color.RED)
"#,
    );
    assert_eq!(
        out,
        [
            "A True 2 3",
            "{'a': [1]} {'a': [1], 'b': 2} True {1} {1, 2}",
            "Counter({'a': 2, 'z': 2, 'b': 1}) Counter({'a': 2, 'z': 2, 'b': 1, 'q': 1}) Counter 0",
            "defaultdict(<class 'int'>, {'a': 1}) defaultdict(<class 'int'>, {'a': 1, 'z': 1}) defaultdict True True False",
            "11 True",
        ]
    );
}

/// Python's three-argument `type(name, bases, dict)`: a class made by a
/// call (a namespace on the fly, a subclass with a lambda for a method),
/// and `type.__new__`'s TypeErrors, as CPython 3.11 prints them.
#[test]
fn three_argument_type_makes_a_class_as_python() {
    let out = python_printed(
        "three_argument_type",
        r#"class Base:
    def hello(self):
        return "hi " + self.name
Config = type("Config", (), {"lr": 0.1, "epochs": 3})
print(Config.lr, Config().epochs, Config.__name__, type(Config()).__name__)
D = type("D", (Base,), {"name": "d", "twice": lambda self: self.hello() * 2})
d = D()
print(d.twice(), isinstance(d, Base), D.__mro__)
args = type("", (), {})()
args.batch_size = 4
print(args.batch_size)
for bad in [(1, (), {}), ("A", [], {}), ("A", (), [])]:
    try:
        type(*bad)
    except TypeError as e:
        print(e)
try:
    type("A", ())
except TypeError as e:
    print(e)
"#,
    );
    assert_eq!(
        out,
        [
            "0.1 3 Config Config",
            "hi dhi d True (<class '__main__.D'>, <class '__main__.Base'>, <class 'object'>)",
            "4",
            "type.__new__() argument 1 must be str, not int",
            "type.__new__() argument 2 must be tuple, not list",
            "type.__new__() argument 3 must be dict, not list",
            "type() takes 1 or 3 arguments",
        ]
    );
}

/// `frozenset` as its own type: a dict's key and a set's item (equal
/// frozensets one key, whatever their order), no method that changes it,
/// set operators that keep the left operand's kind, `|=` that makes a new
/// one, printed and named as CPython 3.11 does.
#[test]
fn frozenset_is_its_own_hashable_type_as_python() {
    let out = python_printed(
        "frozenset_type",
        r#"a = frozenset([1, 2, 3])
d = {a: "x"}
print(d[frozenset({3, 2, 1})], type(a).__name__, a, type(a))
print(a | {4}, a & {1, 9}, a - {1}, a ^ {1, 7}, 2 in a, len(a))
s = {frozenset([1]), frozenset([1])}
print(len(s), s)
try:
    a.add(4)
except AttributeError as e:
    print("AttributeError", e)
print(frozenset(), isinstance(a, frozenset), isinstance(a, set), isinstance({1}, frozenset))
print(a == {1, 2, 3}, a.union([9]), a.issubset({1, 2, 3, 4}), sorted(a), hash(a) == hash(frozenset([3, 1, 2])))
b = a
b |= {0}
print(a, a is b, len(b))
print(frozenset({(1, 2), "x"}) == frozenset({"x", (1, 2)}), {frozenset({1, 2}): 1}.get(frozenset({2, 1})))
"#,
    );
    assert_eq!(
        out,
        [
            "x frozenset frozenset({1, 2, 3}) <class 'frozenset'>",
            "frozenset({1, 2, 3, 4}) frozenset({1}) frozenset({2, 3}) frozenset({2, 3, 7}) True 3",
            "1 {frozenset({1})}",
            "AttributeError 'frozenset' object has no attribute 'add'",
            "frozenset() True False False",
            "True frozenset({1, 2, 3, 9}) True [1, 2, 3] True",
            "frozenset({1, 2, 3}) False 4",
            "True 1",
        ]
    );
}
