//! The meta device: every builtin and every tensor method called with meta
//! tensors either gives a result or an error the user can read. None may
//! panic, and none may read elements a meta tensor does not have.

use cudash::eval::docs;
use cudash::session::{Config, Session};

/// What blocks, waits on a user, or starts other processes: not called.
const SKIPPED: &[&str] = &[
    "input",
    "sleep",
    "exit",
    "quit",
    "spawn",
    "breakpoint",
    "help",
    "open",
    "exec",
    "eval",
    "compile",
    "run",
    "serve",
    "lesson",
    "lessons",
    "play",
    "start_processes",
];

/// The set-up each probe runs after: meta tensors of a few shapes and dtypes.
const SETUP: &str = "import torch\n\
m = torch.randn(2, 3, 4, 5, device='meta')\n\
v = torch.randn(6, device='meta')\n\
s = torch.randn(4, 4, device='meta')\n\
i = torch.zeros(3, dtype=torch.long, device='meta')\n\
b = torch.zeros(2, 3, 4, 5, dtype=torch.bool, device='meta')\n\
z = m.sum()\n";

/// Python's own ways of reading a tensor's values.
const PYTHON: &[&str] = &[
    "float(ARGS)",
    "int(ARGS)",
    "bool(ARGS)",
    "str(ARGS)",
    "repr(ARGS)",
    "len(ARGS)",
    "list(ARGS)",
    "print(ARGS)",
    "f'{ARGS}'",
    "'%s' % (ARGS,)",
    "'{}'.format(ARGS)",
    "[ARGS][0] + 1",
    "(ARGS) == 1",
    "1 if ARGS else 0",
    "m[ARGS]",
    "v[ARGS]",
    "sorted(ARGS)",
    "sum(ARGS)",
    "max(ARGS)",
    "abs(ARGS)",
    "round(ARGS)",
    "hash(ARGS)",
    "m[0] = ARGS",
    "m[:, 1] += ARGS",
    "torch.nn.functional.one_hot(ARGS)",
    "m.new_zeros(ARGS)",
];

fn session() -> Session {
    let mut s = Session::new(Config {
        sim_devices: 1,
        sim_memory: 256 << 20,
        ..Config::default()
    })
    .expect("the simulator always starts");
    let mut failed = None;
    s.run_script("setup.py", SETUP, false, |_, o| {
        if o.error.is_some() {
            failed = o.error;
        }
    });
    assert!(failed.is_none(), "the set-up fails: {failed:?}");
    s
}

/// Runs `code` in `s`; whether it panicked.
fn panics(s: &mut Session, code: &str) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        s.run_script("probe.py", code, false, |_, _| {});
    }))
    .is_err()
}

fn probes(call: &str) -> Vec<String> {
    [
        "m", "v", "s", "i", "b", "z", "m, m", "s, s", "v, v", "m, 1", "s, 0", "v, i", "m, b",
        "i, 2", "z, z",
    ]
    .iter()
    .map(|args| format!("_r = {}", call.replace("ARGS", args)))
    .collect()
}

#[test]
fn no_builtin_or_tensor_method_panics_on_meta_tensors() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut s = session();
    let mut panicked = Vec::new();
    let calls = docs::functions()
        .filter(|d| !SKIPPED.contains(&d.name))
        .map(|d| format!("torch.{}(ARGS)", d.name))
        .chain(
            docs::members("tensor")
                .filter(|d| d.kind == docs::Kind::Method)
                .flat_map(|d| [format!("m.{}(ARGS)", d.name), format!("z.{}(ARGS)", d.name)]),
        )
        .chain(PYTHON.iter().map(|p| p.to_string()));
    for call in calls {
        for code in probes(&call) {
            if panics(&mut s, &code) {
                panicked.push(code);
                s = session();
            }
        }
    }
    std::panic::set_hook(prev);
    assert!(
        panicked.is_empty(),
        "these panicked on meta tensors:\n{}",
        panicked.join("\n")
    );
}

/// Runs a Python program in a fresh session with one simulated GPU; its
/// printed lines, or the error that stopped it.
fn run(code: &str) -> Result<String, String> {
    let mut s = Session::new(Config {
        sim_devices: 1,
        sim_memory: 1 << 30,
        ..Config::default()
    })
    .expect("the simulator always starts");
    let mut out = String::new();
    let mut error = None;
    s.run_script("prog.py", code, false, |_, o| {
        for x in &o.outputs {
            if let cudash::eval::Output::Text(t) = x {
                out.push_str(t);
                out.push('\n');
            }
        }
        if let Some(e) = o.error {
            error.get_or_insert(e.report);
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[test]
fn a_model_on_the_meta_device_takes_no_memory_until_to_empty() {
    // 4 Linear(4096, 4096) layers: 4 * (4096 * 4096 + 4096) f32 = 268,500,992 bytes.
    let out = run("import torch\n\
        import torch.nn as nn\n\
        before = torch.cuda.memory_allocated()\n\
        with torch.device('meta'):\n\
        \x20   model = nn.Sequential(*[nn.Linear(4096, 4096) for _ in range(4)])\n\
        \x20   x = torch.randn(10**6, 4096)\n\
        y = model(x)\n\
        y.sum().backward()\n\
        print(torch.cuda.memory_allocated() - before, y.shape, model[0].weight.grad.shape)\n\
        model.to_empty(device='cuda')\n\
        print(torch.cuda.memory_allocated() - before, model[0].weight.device)\n")
    .unwrap();
    assert_eq!(
        out,
        "0 torch.Size([1000000, 4096]) torch.Size([4096, 4096])\n268500992 cuda:0\n"
    );
}

#[test]
fn reading_a_meta_tensors_values_is_pytorchs_error_and_the_session_goes_on() {
    let err = run("import torch\nx = torch.randn(3, device='meta')\nprint(x.sum().item())\n")
        .unwrap_err();
    assert!(
        err.contains("RuntimeError")
            && err.contains("Tensor.item() cannot be called on meta tensors"),
        "{err}"
    );
    let err = run("import torch\nx = torch.randn(3, device='meta')\nx.cpu()\n").unwrap_err();
    assert!(
        err.contains("NotImplementedError") && err.contains("Cannot copy out of meta tensor"),
        "{err}"
    );
    let err = run("import torch\nx = torch.randn(3, device='meta')\nx[x > 0]\n").unwrap_err();
    assert!(err.contains("NotImplementedError"), "{err}");
}
