//! A hint must give code that runs, or say plainly that cudash lacks the
//! thing. These run every hint the spelling tables give (PyTorch's
//! `torch.X` names) and check that the code each shows
//! parses, and runs where it stands alone.

mod common;

use cudash::eval::{docs, spelling};
use cudash::lang;

/// The code a hint tells to write: what `write `...`` quotes, with a
/// block's `{ ... }` left empty; None when the hint shows no code.
fn hinted_code(help: &str) -> Option<String> {
    let rest = &help[help.find("write `")? + "write `".len()..];
    let code = &rest[..rest.find('`')?];
    Some(
        code.replace("...; ", "")
            .replace("; ...", "")
            .replace("...", ""),
    )
}

/// The help line of a failed statement's report.
fn help_of(src: &str) -> String {
    let o = common::session().execute(src);
    let e = o
        .error
        .unwrap_or_else(|| panic!("`{src}` should get a hint"));
    e.report
        .lines()
        .find_map(|l| l.trim_start_matches([' ', '│']).strip_prefix("Help: "))
        .unwrap_or_else(|| panic!("`{src}` has no help:\n{}", e.report))
        .to_string()
}

/// `torch.X` for every name PyTorch spells otherwise and every builtin: the
/// hinted form evaluates on its own in a fresh session.
#[test]
fn every_torch_name_hint_runs() {
    let mut names: Vec<&str> = spelling::RENAMED.iter().map(|(n, _)| *n).collect();
    names.extend(docs::functions().map(|d| d.name));
    for name in names {
        for prefix in ["torch", "torch.cuda", "F"] {
            let src = format!("{prefix}.{name}");
            let help = help_of(&src);
            let code = hinted_code(&help).unwrap_or_else(|| panic!("`{src}`: no code in {help:?}"));
            let o = common::session().execute(&code);
            assert!(
                o.error.is_none(),
                "`{src}` hints `{code}`, which fails:\n{}",
                o.error.map(|e| e.report).unwrap_or_default()
            );
        }
    }
}

/// Python's block headers as PyTorch's tutorials write them parse as
/// written, and run where they need nothing else.
#[test]
fn python_blocks_parse_as_written() {
    let cases: &[(&str, bool)] = &[
        ("for i in range(3):\n    pass", true),
        ("for i in range(2, 5):\n    pass", true),
        ("import torch\nwith torch.no_grad():\n    pass", true),
        ("with no_grad():\n    pass", true),
        ("with device(1):\n    pass", true),
        ("while False:\n    pass", true),
        ("if x > 0:\n    pass", false),
        (
            "for batch, (X, y) in enumerate(dataloader):\n    pass",
            false,
        ),
        ("for i, (a, b) in enumerate(pairs):\n    pass", false),
        (
            "def train(dataloader,\n          model, lr=0.1):\n    pass",
            true,
        ),
        (
            "def forward(self, x: Tensor) -> Tensor:\n    return x",
            true,
        ),
        ("def f(x: int, y: float = 2.0) -> int:\n    return x", true),
        ("def step():\n    pass", true),
        (
            "import torch.nn as nn\nclass NeuralNetwork(nn.Module):\n    pass",
            true,
        ),
        ("class Net:\n    pass", true),
    ];
    for (src, runs) in cases {
        if let Err(e) = lang::parse(src) {
            panic!("{src:?} does not parse: {e:?}");
        }
        if *runs {
            let o = common::session().execute(src);
            assert!(
                o.error.is_none(),
                "{src:?} fails:\n{}",
                o.error.map(|e| e.report).unwrap_or_default()
            );
        }
    }
}

/// What cudash lacks is said plainly, with no code that would fail.
#[test]
fn hints_for_what_cudash_lacks_say_so() {
    let help = help_of("import torch.nn as nn\nnn.FractionalMaxPool2d(2)");
    assert!(hinted_code(&help).is_none(), "{help}");
    let help = help_of("import torchvision.ops");
    assert!(hinted_code(&help).is_none(), "{help}");
}

/// The spellings the material's own lines use run as written.
#[test]
fn the_materials_spellings_run() {
    let out = common::ok(
        "device(\"cuda:0\")\ndevice(\"cuda\", 1)\ndevice(\"cpu\")\n\
         with no_grad() { y = ones(2) * 2 }\n\
         x = randn(3)\nx.data.requires_grad\nx.new_zeros(2).shape\nx.new_ones(2, dtype=i64)\n\
         x.new_full((2,), fill_value=3.)\nfull((2,), fill_value=7)\nx.type(float64).dtype\n\
         manual_seed(0)\nmanual_seed_all(0)\n\
         for i, b in enumerate(DataLoader(TensorDataset(ones(4)), batch_size=2)) { print(i) }\n\
         for w in [0, 2] { DataLoader(TensorDataset(ones(4)), num_workers=w) }\n\
         z = zeros(4, device=cuda)\nz[1:].data_ptr() - z.data_ptr()",
    );
    for want in [
        "cuda:0", "cuda:1", "cpu", "false", "[2]", "[1, 1]", "[3., 3.]", "[7, 7]", "f64",
    ] {
        assert!(out.contains(want), "{want:?} not in\n{out}");
    }
    // The two batches counted, and the view's offset in bytes.
    for line in ["0", "1", "4"] {
        assert!(
            out.lines().any(|l| l == line),
            "{line:?} not a line of\n{out}"
        );
    }
}

/// A missing key's help leads somewhere: torchrun's variables name `cudash
/// launch`, which sets them; a big dict's keys are counted, not listed.
#[test]
fn a_missing_key_says_where_it_comes_from() {
    let help = help_of("import os\nos.environ[\"LOCAL_RANK\"]");
    assert!(
        help.contains("cudash launch --nproc-per-node N FILE.py") && help.contains("WORLD_SIZE"),
        "{help}"
    );
    let help = help_of("d = {}\nfor i in range(20) { d[str(i)] = i }\nd[\"nowhere near\"]");
    assert_eq!(help, "it has 20 keys: `d.keys()` lists them");
    let help = help_of("d = {\"lr\": 1, \"epochs\": 2}\nd[\"nowhere near\"]");
    assert_eq!(help, "the keys are 'lr', 'epochs'");
}

/// `x.unsqueeze_(0)` and the other in-place changes of shape give every
/// name of `x` the new view; where something else holds `x` too (a list,
/// an attribute), or `x` is in autograd's graph, they are refused with a
/// help that names the view to take instead, and that view, written as
/// the help says, runs.
#[test]
fn in_place_shape_changes_reach_every_name_or_refuse() {
    for (method, view, shape) in [
        ("unsqueeze_(0)", "unsqueeze(0)", "[1, 2, 1]"),
        ("squeeze_()", "squeeze()", "[2]"),
        ("t_()", "t()", "[1, 2]"),
        ("transpose_(0, 1)", "transpose(0, 1)", "[1, 2]"),
    ] {
        let mut s = common::session();
        let out = common::ok_in(
            &mut s,
            &format!("x = ones(2, 1)\ny = x\nx.{method}\ny.shape"),
        );
        assert!(out.contains(shape), "{method}: {out}");
        for holder in ["xs = [x]", "w = ones(2, 1, requires_grad=true)\nx = w * 2"] {
            let src = format!("x = ones(2, 1)\n{holder}\nx.{method}");
            let help = help_of(&src);
            let name = view.split('(').next().unwrap();
            assert!(help.contains(&format!("`x = x.{name}(")), "{help}");
            let mut s = common::session();
            let o = s.execute(&format!("x = ones(2, 1)\n{holder}\nx = x.{view}"));
            assert!(o.error.is_none(), "{view}: {:?}", o.error.map(|e| e.report));
        }
    }
}
