//! `torch.save`'s files: ones PyTorch wrote (tests/fixtures/torch_save, made
//! by scripts/torch_fixtures.py with PyTorch, beside the same tensors as
//! .safetensors) read as `torch.load(weights_only=True)` reads them; what
//! cudash writes read back; files PyTorch's safe load refuses refused.
//! (That PyTorch reads what cudash writes is checked by `scripts/torch-check
//! --only files`, which needs PyTorch.)

mod common;

use std::path::PathBuf;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/torch_save")
        .join(name)
        .display()
        .to_string()
}

fn temp(name: &str) -> String {
    let d = std::env::temp_dir().join(format!("cudash-pt-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name).display().to_string()
}

#[test]
fn a_state_dict_pytorch_saved_has_its_keys_in_order_and_its_exact_values() {
    let (pt, st) = (fixture("net.pt"), fixture("net.safetensors"));
    let mut s = common::session();
    assert_eq!(
        common::ok_in(&mut s, &format!("sd = load(\"{pt}\")\nlist(sd)")),
        "[\"conv1.weight\", \"conv1.bias\", \"bn.weight\", \"bn.bias\", \"bn.running_mean\", \"bn.running_var\", \"bn.num_batches_tracked\", \"fc.weight\", \"fc.bias\"]"
    );
    let same = common::ok_in(
        &mut s,
        &format!(
            "ref = load(\"{st}\")\nsame = true\nfor k in list(sd) {{ same = same and (sd[k] == ref[k]).all().item() and sd[k].dtype == ref[k].dtype and sd[k].shape == ref[k].shape }}\nsame"
        ),
    );
    assert_eq!(same, "true");
    assert_eq!(
        common::ok_in(&mut s, "sd[\"bn.num_batches_tracked\"]"),
        "1  i64[] @cpu"
    );
    // Into the same model written in cudash, then a forward pass.
    let model = "class Net(Module) {\n  fn __init__(self) {\n    super().__init__()\n    self.conv1 = Conv2d(1, 4, 3)\n    self.bn = BatchNorm2d(4)\n    self.fc = Linear(4 * 6 * 6, 10)\n  }\n}\nnet = Net()\nr = net.load_state_dict(sd)\nlen(r.missing_keys) + len(r.unexpected_keys)";
    assert_eq!(common::ok_in(&mut s, model), "0");
    assert_eq!(
        common::ok_in(&mut s, "(net.fc.weight == ref[\"fc.weight\"]).all()"),
        "true  bool[] @cpu"
    );
}

#[test]
fn a_checkpoint_holds_numbers_strings_lists_and_an_optimizers_state() {
    let ck = fixture("checkpoint.tar");
    let mut s = common::session();
    common::ok_in(&mut s, &format!("ck = load(\"{ck}\")"));
    assert_eq!(
        common::ok_in(&mut s, "list(ck)"),
        "[\"epoch\", \"model_state_dict\", \"optimizer_state_dict\", \"loss\", \"note\", \"flags\"]"
    );
    assert_eq!(
        common::ok_in(&mut s, "[ck[\"epoch\"], ck[\"note\"]]"),
        "[5, \"run 1\"]"
    );
    assert_eq!(common::ok_in(&mut s, "ck[\"flags\"]"), "[true, none, 2.5]");
    // The Adam state PyTorch keeps per parameter number, and its group.
    let o = common::ok_in(
        &mut s,
        "o = ck[\"optimizer_state_dict\"]\n[list(o[\"state\"]), o[\"param_groups\"][0][\"betas\"], o[\"param_groups\"][0][\"params\"]]",
    );
    assert_eq!(o, "[[0, 1, 2, 3, 4, 5], [0.9, 0.999], [0, 1, 2, 3, 4, 5]]");
    // Keyed by parameter number, as PyTorch keys it.
    assert_eq!(
        common::ok_in(&mut s, "o[\"state\"][5][\"exp_avg\"].shape"),
        "[10]"
    );
}

#[test]
fn views_16_bit_floats_scalars_and_parameters_read_as_pytorch_saved_them() {
    let (pt, st) = (fixture("views.pt"), fixture("views.safetensors"));
    let mut s = common::session();
    let same = common::ok_in(
        &mut s,
        &format!(
            "v = load(\"{pt}\")\nref = load(\"{st}\")\nsame = list()\nfor k in list(v) {{ same.append([k, (v[k] == ref[k]).all().item() and v[k].dtype == ref[k].dtype]) }}\nsame"
        ),
    );
    assert!(!same.contains("false"), "{same}");
    assert!(
        same.contains("\"transposed\"") && same.contains("\"bf16\""),
        "{same}"
    );
    assert_eq!(
        common::ok_in(&mut s, "v[\"weight\"]"),
        "Parameter containing:\n[[1., 1.],\n [1., 1.]]\nf32[2,2] @cpu requires_grad"
    );
    assert_eq!(common::ok_in(&mut s, "v[\"transposed\"].shape"), "[6, 4]");
}

#[test]
fn what_cudash_saves_loads_back_on_the_device_it_came_from() {
    let p = temp("ck.pth");
    let mut s = common::sim_session(2, 1 << 30);
    common::ok_in(
        &mut s,
        &format!(
            "manual_seed(0)\nmodel = Sequential(Linear(4, 3), BatchNorm1d(3), Linear(3, 2)).to(cuda:1)\nx = arange(6.0).reshape(2, 3).T\nsave({{\"epoch\": 3, \"loss\": 0.125, \"big\": -7000000000, \"model\": model.state_dict(), \"views\": [x, x.half()], \"p\": Parameter(ones(2)), \"name\": \"ok\"}}, \"{p}\")"
        ),
    );
    common::ok_in(&mut s, &format!("back = load(\"{p}\")"));
    assert_eq!(
        common::ok_in(
            &mut s,
            "[back[\"epoch\"], back[\"loss\"], back[\"big\"], back[\"name\"]]"
        ),
        "[3, 0.125, -7000000000, \"ok\"]"
    );
    assert_eq!(
        common::ok_in(&mut s, "back[\"model\"][\"0.weight\"].device"),
        "cuda:1"
    );
    assert_eq!(
        common::ok_in(
            &mut s,
            "(back[\"model\"][\"0.weight\"] == model[0].weight).all()"
        ),
        "true  bool[] @cuda:1"
    );
    assert_eq!(
        common::ok_in(&mut s, "back[\"views\"][1]"),
        "[[0., 3.],\n [1., 4.],\n [2., 5.]]\nf16[3,2] @cpu"
    );
    assert!(common::ok_in(&mut s, "back[\"p\"]").starts_with("Parameter containing:"));
    // map_location moves every tensor.
    assert_eq!(
        common::ok_in(
            &mut s,
            &format!("load(\"{p}\", map_location=cpu)[\"model\"][\"2.bias\"].device")
        ),
        "cpu"
    );
    // A whole module too (`torch.save(model, path)`): it loads back on
    // the device it was saved from, its parameters Parameters.
    common::ok_in(&mut s, &format!("save(model, \"{p}\")"));
    let back = common::ok_in(
        &mut s,
        &format!("m2 = load(\"{p}\", weights_only=false)\n[m2[2].bias.device, (m2[2].bias == model[2].bias).all().item(), m2[2].bias.is_leaf]"),
    );
    assert_eq!(back, "[cuda:1, true, true]");
}

#[test]
fn a_tensor_saved_from_a_device_this_session_lacks_says_map_location() {
    let p = temp("far.pt");
    let mut big = common::sim_session(4, 1 << 30);
    common::ok_in(&mut big, &format!("save(ones(2, device=cuda:3), \"{p}\")"));
    let mut small = common::sim_session(2, 1 << 30);
    let (_, msg) = common::err_in(&mut small, &format!("load(\"{p}\")"));
    assert!(
        msg.contains("CUDA device 3 but torch.cuda.device_count() is 2"),
        "{msg}"
    );
    assert!(msg.contains("map_location"), "{msg}");
    assert_eq!(
        common::ok_in(&mut small, &format!("load(\"{p}\", map_location=cuda:1)")),
        "[1., 1.]  f32[2] @cuda:1"
    );
}

#[test]
fn files_pytorchs_safe_load_refuses_are_refused_and_nothing_runs() {
    let mut s = common::session();
    common::ok_in(&mut s, "kept = arange(3)");
    let (class, msg) = common::err_in(&mut s, &format!("load(\"{}\")", fixture("unsafe.pt")));
    assert_eq!(class, "UnpicklingError");
    assert!(
        msg.contains("Unsupported global: GLOBAL posix.system was not an allowed global"),
        "{msg}"
    );
    let (_, msg) = common::err_in(&mut s, &format!("load(\"{}\")", fixture("legacy.pt")));
    assert!(msg.contains("before PyTorch 1.6"), "{msg}");
    let (_, msg) = common::err_in(&mut s, &format!("load(\"{}\")", fixture("scripted.pt")));
    assert!(msg.contains("TorchScript"), "{msg}");
    assert_eq!(common::ok_in(&mut s, "kept"), "[0, 1, 2]  i64[3] @cpu");
}

/// Damaged copies of PyTorch's files (bytes flipped, cut short) are errors,
/// never a panic, and what reads still writes back the same.
#[test]
fn damaged_files_never_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in ["net.pt", "views.pt", "checkpoint.tar"] {
        let original = std::fs::read(fixture(name)).unwrap();
        for round in 0..400 {
            let mut data = original.clone();
            if round % 5 == 0 {
                data.truncate((next() as usize) % data.len());
            } else {
                for _ in 0..1 + round % 4 {
                    let at = (next() as usize) % data.len();
                    data[at] = next() as u8;
                }
            }
            cudash::fuzz::torch_save(&data);
        }
    }
}

/// The Adam state PyTorch saved in a checkpoint loads into cudash's Adam
/// (PyTorch's extra group keys at their defaults accepted), and the next
/// step gives PyTorch's parameters: printed by PyTorch 2.15 for the same
/// load and step.
#[test]
fn an_optimizer_state_pytorch_saved_continues_as_pytorchs() {
    let ck = fixture("checkpoint.tar");
    let mut s = common::session();
    common::ok_in(
        &mut s,
        &format!(
            "ck = load(\"{ck}\")\nsd = ck[\"model_state_dict\"]\nps = list()\n\
             for n in [\"conv1.weight\", \"conv1.bias\", \"bn.weight\", \"bn.bias\", \"fc.weight\", \"fc.bias\"] {{ ps.append(sd[n].clone().requires_grad_()) }}\n\
             opt = Adam(ps, lr=0.5)\nopt.load_state_dict(ck[\"optimizer_state_dict\"])\n\
             for p in ps {{ p.grad = ones_like(p) }}\nopt.step()"
        ),
    );
    assert_eq!(
        common::ok_in(&mut s, "opt.param_groups[0][\"lr\"]"),
        "0.001"
    );
    assert_eq!(
        common::ok_in(&mut s, "print(ps[5][0:3].tolist())"),
        "[0.0807502344250679, 0.060016751289367676, -0.0006031542434357107]"
    );
    // What cudash gives back is PyTorch's layout: parameters by number.
    assert_eq!(
        common::ok_in(&mut s, "list(opt.state_dict()[\"state\"])"),
        "[0, 1, 2, 3, 4, 5]"
    );
    let (_, msg) = common::err_in(
        &mut s,
        "SGD(ps[0:2], lr=0.1).load_state_dict(opt.state_dict())",
    );
    assert!(
        msg.contains("doesn't match the size of optimizer's group"),
        "{msg}"
    );
}

/// `torch.save(obj, f)` to a file opened with "wb" and `torch.load(f)` from
/// one opened with "rb" (PyTorch's checkpoints in `with open(...)`): its
/// format whatever the name; a binary file is only for them (cudash has no
/// bytes). Expected lines: PyTorch 2.15's.
#[test]
fn save_and_load_through_binary_files() {
    let out = common::script_lines_on(
        0,
        "binary_files",
        r#"import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(3, 2)
with open("model.bin", "wb") as f:
    torch.save(model.state_dict(), f)
with open("model.bin", "rb") as f:
    sd = torch.load(f)
print(sorted(sd.keys()), torch.equal(sd["weight"], model.weight))
f = open("ckpt.data", "wb")
torch.save({"epoch": 3, "w": torch.arange(4)}, f)
f.close()
with open("ckpt.data", "rb") as f:
    ck = torch.load(f, map_location="cpu")
print(ck["epoch"], ck["w"].tolist())
try:
    open("missing.bin", "rb")
except FileNotFoundError as e:
    print("FileNotFoundError", e)
"#,
    );
    assert_eq!(
        out,
        [
            "['bias', 'weight'] True",
            "3 [0, 1, 2, 3]",
            "FileNotFoundError [Errno 2] No such file or directory: 'missing.bin'",
        ]
    );
    let (_, err) =
        common::err("f = open(\"/tmp/cudash-binary-read.bin\", \"wb\")\nf.write(\"text\")");
    assert!(
        err.contains("a bytes-like object is required, not 'str'"),
        "{err}"
    );
}

/// `torch.utils.tensorboard.SummaryWriter`: TensorBoard's event files (a
/// TFRecord of `Event` protocol buffers, CRC-32C checked) under `log_dir`,
/// one scalar per `add_scalar`, `add_scalars` in a run of its own per tag.
/// (TensorBoard 2.21's `EventAccumulator` read the same files back: the
/// note of the session that added it.)
#[test]
fn summary_writer_writes_tensorboards_event_files() {
    let dir = std::env::temp_dir().join(format!("cudash-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("logs");
    let out = common::ok(&format!(
        "import torch\nfrom torch.utils.tensorboard import SummaryWriter\n\
         writer = SummaryWriter(log_dir=\"{}\")\n\
         for step in range(3):\n    writer.add_scalar(\"Loss/train\", torch.tensor(1.0 / (step + 1)), step)\n\
         writer.add_scalars(\"lr\", {{\"a\": 0.5}}, 7)\n\
         writer.close()\nprint(writer.get_logdir() == \"{}\")",
        log.display(),
        log.display()
    ));
    assert_eq!(out.trim(), "True");
    let events = |d: &std::path::Path| {
        let f = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("events.out.tfevents.")
            })
            .unwrap();
        records(&std::fs::read(f).unwrap())
    };
    let main = events(&log);
    assert_eq!(main.len(), 4);
    assert!(contains(&main[0], b"brain.Event:2"));
    for (r, value) in main[1..].iter().zip([1.0f32, 0.5, 1.0 / 3.0]) {
        assert!(contains(r, b"Loss/train"));
        assert!(contains(r, &value.to_le_bytes()));
    }
    let lr = events(&log.join("lr_a"));
    assert!(contains(&lr[1], b"lr") && contains(&lr[1], &0.5f32.to_le_bytes()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The records of a TFRecord file, each checked by its masked CRC-32C.
fn records(data: &[u8]) -> Vec<Vec<u8>> {
    fn crc(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = (c >> 1) ^ (0x82F6_3B78 & (c & 1).wrapping_neg());
            }
        }
        (!c).rotate_right(15).wrapping_add(0xa282_ead8)
    }
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
    let (mut out, mut i) = (Vec::new(), 0);
    while i < data.len() {
        let n = u64::from_le_bytes(data[i..i + 8].try_into().unwrap()) as usize;
        assert_eq!(word(&data[i + 8..i + 12]), crc(&data[i..i + 8]));
        let rec = &data[i + 12..i + 12 + n];
        assert_eq!(word(&data[i + 12 + n..i + 16 + n]), crc(rec));
        out.push(rec.to_vec());
        i += 16 + n;
    }
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `pickle.dump`/`pickle.load` of Python's values through binary files
/// (nanoGPT's `meta.pkl`), in a format Python reads (checked by hand with
/// Python 3.11: the same dict back); a list loaded from a pickle or a
/// checkpoint is a list (it takes `append`), a tuple a tuple. Expected
/// lines: PyTorch 2.15's Python.
#[test]
fn pickle_dumps_and_loads_pythons_values() {
    let out = common::script_lines_on(
        0,
        "pickle_values",
        r#"import pickle
import torch
meta = {"vocab_size": 3, "itos": {0: "a", 1: "b", 2: "\n"}, "stoi": {"a": 0, "b": 1, "\n": 2}, "sizes": [1, 2.5, None, True], "pair": (1, "x")}
with open("meta.pkl", "wb") as f:
    pickle.dump(meta, f)
with open("meta.pkl", "rb") as f:
    back = pickle.load(f)
print(back == meta, back["itos"][2] == "\n", back["pair"], back["sizes"])
back["sizes"].append(7)
print(back["sizes"])
torch.save({"losses": [0.5], "shape": (2, 3)}, "ck.pt")
ck = torch.load("ck.pt")
ck["losses"].append(0.25)
print(ck["losses"], ck["shape"])
"#,
    );
    assert_eq!(
        out,
        [
            "True True (1, 'x') [1, 2.5, None, True]",
            "[1, 2.5, None, True, 7]",
            "[0.5, 0.25] (2, 3)"
        ]
    );
    let (_, err) = common::err(
        "import pickle\nf = open(\"/tmp/cudash-pickle-tensor.pkl\", \"wb\")\npickle.dump({\"w\": ones(2)}, f)",
    );
    assert!(err.contains("not tensors"), "{err}");
}

/// A whole model PyTorch saved (`torch.save(model, path)`, its classes in
/// `__main__`): `torch.load(weights_only=False)` makes it again from the
/// program's classes without running `__init__`, and it computes PyTorch's
/// output; what cudash saves of it loads back the same. The safe load
/// refuses it with PyTorch's message.
#[test]
fn a_whole_model_pytorch_saved_loads_into_the_programs_classes_and_computes_its_output() {
    let src = format!(
        r#"import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, n):
        raise RuntimeError("a load runs no __init__")

    def forward(self, x):
        return x + self.scale * self.act(self.fc(x))

class Whole(nn.Module):
    def forward(self, image, tokens):
        a = torch.flatten(self.pool(torch.relu(self.bn(self.conv(image)))), 1)
        h, _ = self.lstm(self.emb(tokens))
        b = self.blocks(h[:, -1])
        return self.head(torch.cat([a, b], 1)) + self.offset

try:
    torch.load("{path}")
except Exception as e:
    print("safe load:", "Unsupported global: GLOBAL __main__.Whole" in str(e))
torch.manual_seed(0)
before = torch.rand(1).item()
torch.manual_seed(0)
ck = torch.load("{path}", weights_only=False)
print("no draws:", torch.rand(1).item() == before)
model = ck["model"]
print(type(model).__name__, model.training, model.labels, model.sizes["hidden"])
print(model.conv.padding, model.emb.padding_idx, model.blocks[0].scale, model.blocks[1].act)
print(sorted(dict(model.named_buffers())), "offset" in model.state_dict())
with torch.no_grad():
    y = model(ck["image"], ck["tokens"])
print(torch.allclose(y, ck["output"], atol=1e-6), y.shape)
torch.save(model, "again.pt")
again = torch.load("again.pt", weights_only=False)
with torch.no_grad():
    print(torch.equal(again(ck["image"], ck["tokens"]), y))
del Whole
try:
    torch.load("again.pt", weights_only=False)
except AttributeError as e:
    print(e)
"#,
        path = fixture("whole.pt")
    );
    let lines = common::script_lines_on(0, "whole_model", &src);
    assert_eq!(
        lines,
        [
            "safe load: True",
            "no draws: True",
            "Whole False ['a', 'b', 'c'] 8",
            "same 0 0.5 GELU(approximate='tanh')",
            "['bn.num_batches_tracked', 'bn.running_mean', 'bn.running_var', 'offset'] False",
            "True torch.Size([2, 3])",
            "True",
            "Can't get attribute 'Whole' on <module '__main__'>",
        ]
    );
}

/// What cudash refuses to write whole, and a file that calls a function
/// even with `weights_only=False`: errors that say what to do instead.
#[test]
fn what_a_whole_save_or_load_cannot_do_is_said() {
    let mut s = common::session();
    common::ok_in(&mut s, "kept = arange(3)");
    let (class, msg) = common::err_in(
        &mut s,
        &format!("load(\"{}\", weights_only=false)", fixture("unsafe.pt")),
    );
    assert_eq!(class, "IOError");
    assert!(
        msg.contains("calls posix.system(...)") && msg.contains("calls nothing"),
        "{msg}"
    );
    let path = temp("hooked.pt");
    common::ok_in(
        &mut s,
        "m = Linear(2, 2)\nfn keep(module, args, out) { return out }\nh = m.register_forward_hook(keep)",
    );
    let (_, msg) = common::err_in(&mut s, &format!("save(m, \"{path}\")"));
    assert!(msg.contains("with forward hooks"), "{msg}");
    let (_, msg) = common::err_in(
        &mut s,
        &format!("save(MultiheadAttention(4, 2), \"{path}\")"),
    );
    assert!(
        msg.contains("cannot save a whole MultiheadAttention yet"),
        "{msg}"
    );
    assert_eq!(common::ok_in(&mut s, "kept"), "[0, 1, 2]  i64[3] @cpu");
}

/// Tied weights (a language model's decoder using its encoder's table)
/// are one Parameter in the file, written once and named again; loaded,
/// they are one tensor again, so training keeps them tied.
#[test]
fn tied_weights_stay_one_parameter_through_a_whole_save() {
    let lines = common::script_lines_on(
        0,
        "tied",
        r#"import torch
import torch.nn as nn

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(5, 4)
        self.decoder = nn.Linear(4, 5)
        self.decoder.weight = self.encoder.weight

torch.save(LM(), "tied.pt")
m = torch.load("tied.pt", weights_only=False)
print(m.decoder.weight is m.encoder.weight, len(list(m.parameters())))
"#,
    );
    assert_eq!(lines, ["True 2"]);
}

/// 64 layers in a `ModuleDict` PyTorch saved whole (zoo.pt, made by
/// scripts/torch_fixture_zoo.py): cudash prints what PyTorch printed
/// loading it (zoo.txt: the repr, each state-dict entry's sum, outputs,
/// settings read as attributes), and again after saving it itself.
#[test]
fn sixty_four_layers_pytorch_saved_whole_load_as_pytorch_loads_them() {
    let want = std::fs::read_to_string(fixture("zoo.txt")).unwrap();
    let run = |file: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
            .args([
                "--sim-devices",
                "0",
                "script",
                &fixture("zoo_load.py"),
                file,
            ])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert_eq!(run(&fixture("zoo.pt")), want);
    let again = temp("zoo_again.pt");
    let mut s = common::session();
    common::ok_in(
        &mut s,
        &format!(
            "save(load(\"{}\", weights_only=false), \"{again}\")",
            fixture("zoo.pt")
        ),
    );
    assert_eq!(run(&again), want);
}
