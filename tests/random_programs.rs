//! Random programs over the whole language — every statement form, every
//! dtype, 0-d and zero-size shapes, views, indexing, streams, events,
//! pinned memory, collectives, expandable segments on and off — run statement by statement on the simulator
//! and on `emu` (the CUDA backend's code on the CPU). A program fails the
//! test when either backend panics or reports an internal error, when the
//! two transcripts differ (times masked), when the same program on the
//! simulator gives another transcript the second time, or when a statement
//! after `sync all` warns about work queued before it. A transcript ends at
//! the first device-side assert (the device is lost from then on).
//!
//! `CUDASH_PROGRAMS=N` runs N programs (default: what fits in well under a
//! minute of CI), `CUDASH_PROGRAMS_SEED=S` another set of them; the
//! cargo-fuzz `execute` target stays for longer runs.

mod common;

use cudash::lesson::outputs::mask_for_check;
use cudash::runtime::backend::BackendChoice;
use cudash::session::{Config, Session};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};

/// Tensor variables; streams `s0`, `s1`; events `e0`, `e1`; list `parts`.
const VARS: [&str; 5] = ["t0", "t1", "t2", "t3", "t4"];

fn pick(options: &'static [&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(options)
        .prop_map(str::to_string)
        .boxed()
}

fn var() -> BoxedStrategy<String> {
    pick(&VARS)
}

fn dtype() -> BoxedStrategy<String> {
    pick(&["bool", "i32", "i64", "f16", "bf16", "f32", "f64"])
}

fn device() -> BoxedStrategy<String> {
    pick(&["cpu", "cuda", "cuda:0", "cuda:1"])
}

/// Shapes as a factory's arguments: 0-d, zero-size, and small.
fn shape() -> BoxedStrategy<String> {
    pick(&[
        "", "0", "1", "3", "2, 3", "3, 2", "2, 0", "0, 3", "1, 3", "2, 1, 3", "4",
    ])
}

fn number() -> BoxedStrategy<String> {
    pick(&[
        "0", "1", "-1", "2", "3", "2.5", "-0.5", "true", "false", "inf", "nan",
    ])
}

fn factory() -> BoxedStrategy<String> {
    let shaped = (
        pick(&["zeros", "ones", "empty", "rand", "randn"]),
        shape(),
        dtype(),
        device(),
    )
        .prop_map(|(f, s, t, d)| {
            let sep = if s.is_empty() { "" } else { ", " };
            format!("{f}({s}{sep}dtype={t}, device={d})")
        });
    prop_oneof![
        4 => shaped,
        1 => (shape(), number(), dtype(), device()).prop_map(|(s, v, t, d)| format!(
            "full([{s}], {v}, dtype={t}, device={d})"
        )),
        1 => (pick(&["0", "1", "5", "6"]), dtype(), device())
            .prop_map(|(n, t, d)| format!("arange({n}, dtype={t}, device={d})")),
        1 => (pick(&["0", "1", "4"]), device())
            .prop_map(|(n, d)| format!("linspace(-1, 1, {n}, device={d})")),
        1 => (pick(&["0", "2", "3"]), device()).prop_map(|(n, d)| format!("eye({n}, device={d})")),
        1 => pick(&["[1, 2, 3]", "[[1., 2.], [3., 4.]]", "[true, false]", "tensor(2.5)", "tensor([], dtype=i32)"]),
    ]
    .boxed()
}

fn index() -> BoxedStrategy<String> {
    pick(&[
        "[0]",
        "[-1]",
        "[1:]",
        "[:, 0]",
        "[..., -1]",
        "[none]",
        "[::2]",
        "[0, 1]",
        "[1:1]",
        "[tensor([0, 0])]",
        "[t0 > 0]",
    ])
}

fn method() -> BoxedStrategy<String> {
    prop_oneof![
        pick(&[
            ".sum()",
            ".sum(0)",
            ".sum(-1, keepdim=true)",
            ".mean()",
            ".mean(0)",
            ".max()",
            ".min(0)",
            ".argmax()",
            ".argmin(0)",
            ".prod()",
            ".any()",
            ".all()",
            ".norm()",
            ".var()",
            ".std(0)",
            ".cumsum(0)",
            ".cumprod(-1)",
            ".softmax(0)",
            ".log_softmax(-1)",
            ".sort()",
            ".argsort()",
            ".topk(1)",
            ".tril()",
            ".triu()",
            ".nonzero()",
            ".argwhere()",
            ".trace()",
            ".flip(0)",
            ".repeat(2)",
            ".squeeze()",
            ".unsqueeze(0)",
            ".flatten()",
            ".reshape(-1)",
            ".reshape(2, -1)",
            ".view(-1)",
            ".permute(1, 0)",
            ".expand(2, 3)",
            ".transpose(0, 1)",
            ".T",
            ".mT",
            ".contiguous()",
            ".clone()",
            ".chunk(2)",
            ".split(1)",
            ".split([1, 1])",
            ".float()",
            ".double()",
            ".half()",
            ".bfloat16()",
            ".int()",
            ".long()",
            ".bool()",
            ".abs()",
            ".exp()",
            ".log()",
            ".sqrt()",
            ".relu()",
            ".sigmoid()",
            ".tanh()",
            ".sin()",
            ".floor()",
            ".round()",
            ".logical_not()",
            ".isnan()",
            ".bitwise_not()",
            ".clamp(0, 1)",
            ".cpu()",
            ".cuda()",
            ".pin()",
            ".item()",
            ".numel()",
            ".shape",
            ".dtype",
            ".device",
            ".ndim",
            ".nbytes",
            ".is_pinned",
            ".copy_to(cuda:1)",
            ".to(cuda:0)",
            ".to(cpu)",
            ".to(f16)",
            ".to(cuda:1, non_blocking=true)",
            ".to(cpu, non_blocking=true)",
            ".new_full([2], 7)",
        ]),
        dtype().prop_map(|t| format!(".to({t})")),
        device().prop_map(|d| format!(".to({d})")),
    ]
    .boxed()
}

fn binop() -> BoxedStrategy<String> {
    pick(&[
        "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=",
    ])
}

fn expr() -> BoxedStrategy<String> {
    let leaf = prop_oneof![3 => var(), 2 => factory(), 1 => number()];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            3 => (inner.clone(), binop(), inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            3 => (inner.clone(), method()).prop_map(|(a, m)| format!("{a}{m}")),
            2 => (inner.clone(), index()).prop_map(|(a, i)| format!("{a}{i}")),
            1 => inner.clone().prop_map(|a| format!("-{a}")),
            1 => inner.clone().prop_map(|a| format!("~{a}")),
            1 => (
                pick(&["exp", "abs", "relu", "sqrt", "sum", "mean", "max", "argmax", "isnan", "logical_not"]),
                inner.clone()
            ).prop_map(|(f, a)| format!("{f}({a})")),
            1 => (
                pick(&["maximum", "minimum", "pow", "remainder", "floor_divide", "logical_and", "dot", "matmul"]),
                inner.clone(),
                inner.clone()
            ).prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
            1 => (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("where({c} > 0, {a}, {b})")),
            1 => (pick(&["cat", "stack"]), inner.clone(), inner.clone())
                .prop_map(|(f, a, b)| format!("{f}([{a}, {b}])")),
            1 => (pick(&["zeros_like", "ones_like", "rand_like", "empty_like"]), inner.clone())
                .prop_map(|(f, a)| format!("{f}({a})")),
            1 => (inner.clone(), inner).prop_map(|(a, b)| format!("{a}.where({b} > 0, 0)")),
        ]
    })
    .boxed()
}

/// A statement that is not a block.
fn simple() -> BoxedStrategy<String> {
    prop_oneof![
        8 => (var(), expr()).prop_map(|(v, e)| format!("{v} = {e}")),
        4 => expr(),
        2 => (var(), index(), expr()).prop_map(|(v, i, e)| format!("{v}{i} = {e}")),
        2 => (var(), pick(&["+=", "-=", "*=", "/=", "//=", "**=", "&="]), expr())
            .prop_map(|(v, o, e)| format!("{v} {o} {e}")),
        2 => (var(), expr(), pick(&["true", "false"]))
            .prop_map(|(v, e, b)| format!("{v}.copy_({e}, non_blocking={b})")),
        1 => (var(), number()).prop_map(|(v, n)| format!("{v}.fill_({n})")),
        1 => (var(), pick(&["add_", "mul_", "sub_", "div_", "clamp_"]), number())
            .prop_map(|(v, m, n)| format!("{v}.{m}({n})")),
        1 => (var(), pick(&["s0", "s1", "default"])).prop_map(|(v, s)| format!("{v}.record_stream({s})")),
        2 => var().prop_map(|v| format!("del {v}")),
        1 => var().prop_map(|v| format!("pin {v}")),
        2 => pick(&[
            "sync", "sync all", "sync s0", "sync cuda:1", "sync e0", "wait s0", "wait s1",
            "wait e0", "wait default", "e0 = event()", "e0.record()", "e1 = event(); e1.record()",
            "e0.sync()", "e0.query()", "s0.query()", "s1.sync()", "s0 = stream()",
            "e0.elapsed(e1)",
        ]),
        1 => pick(&[
            "mem", "mem map", "mem all", "mem cuda:1", "mem map cuda:1", "empty_cache()",
            "reset_peak()", "memory_allocated()", "max_memory_allocated(cuda:1)",
            "memory_reserved()", "memory_stats()[\"num_alloc_retries\"]", "current_device()",
            "device_count()", "set_allocator_settings(\"expandable_segments:True\")",
            "set_allocator_settings(\"expandable_segments:False\")",
        ]),
        2 => (var(), pick(&["[cuda:0, cuda:1]", "[cuda:1]", "[cuda:0, cuda:1, cuda:0]"]))
            .prop_map(|(v, ds)| format!("parts = scatter({v}, {ds})")),
        1 => var().prop_map(|v| format!("parts = replicate({v}, [cuda:0, cuda:1])")),
        1 => var().prop_map(|v| format!("parts = broadcast({v}, [cuda:0, cuda:1])")),
        1 => (var(), pick(&["0", "-1"]), pick(&["cuda:0", "cuda:1", "cpu"]))
            .prop_map(|(v, d, to)| format!("{v} = gather(parts, {d}, {to})")),
        1 => pick(&[
            "all_reduce(parts)", "all_reduce(parts, op=\"max\")", "all_reduce(parts, op=\"avg\")",
            "parts = reduce_scatter(parts)", "parts = all_gather(parts)", "parts",
            "parts[0]", "t0, t1 = parts",
        ]),
        1 => (var(), expr()).prop_map(|(v, e)| format!("{v}, _ = {e}.sort()")),
        1 => expr().prop_map(|e| format!("print({e})")),
    ]
    .boxed()
}

fn block_of(inner: BoxedStrategy<String>) -> BoxedStrategy<String> {
    prop::collection::vec(inner, 1..4)
        .prop_map(|body| format!("{{\n  {}\n}}", body.join("\n  ")))
        .boxed()
}

fn statement() -> BoxedStrategy<String> {
    let block = block_of(simple());
    prop_oneof![
        12 => simple(),
        2 => (pick(&["s0", "s1"]), block.clone()).prop_map(|(s, b)| format!("stream {s} {b}")),
        1 => (pick(&["0", "1", "2"]), block.clone()).prop_map(|(d, b)| format!("with device({d}) {b}")),
        1 => block.clone().prop_map(|b| format!("for i in 0..2 {b}")),
        1 => block.clone().prop_map(|b| format!("profile {b}")),
        1 => block.clone().prop_map(|b| format!("time 2 {b}")),
        // Functions and control flow: a condition on a device value (a host
        // read), an ambiguous one (an error), loops left early, a call.
        2 => (condition(), block.clone(), block.clone())
            .prop_map(|(c, a, b)| format!("if {c} {a} else {b}")),
        1 => block.clone().prop_map(|b| format!("k = 0; while k < 2 {{ k += 1\n  {b}\n}}")),
        1 => (block.clone(), condition())
            .prop_map(|(b, c)| format!("for i in 0..3 {{\n  if i == 1 {{ continue }}\n  {b}\n  if {c} {{ break }}\n}}")),
        // Autograd: a graph from a variable, backward, the gradient shown
        // (the same on sim and emu), sometimes under no_grad or twice.
        1 => (pick(&["t0", "t1", "t2", "t3", "t4"]), pick(&["exp()", "relu()", "tanh()", "T", "sum(0)", "sigmoid()", "prod()", "var()", "std(0)", "norm()", "norm(1, dim=0)", "cumsum(0)", "flip(0)", "max(0).values", "reshape(-1)[tensor([0, 0, 1])]", "tril()", "repeat(2, 1)", "cumprod(0)", "sort(0).values", "topk(1, dim=0).values"]), pick(&["", "no_grad { q = p * 2 }\n", "l.backward()\n", "l *= 2\n", "l += p.sum()\n"]))
            .prop_map(|(t, op, extra)| format!("p = {t}.to(f32).detach().requires_grad_()\nl = (p.{op} * p.{op}).sum()\n{extra}l.backward()\np.grad")),
        // In-place writes into a tensor in a graph, through views too.
        1 => (pick(&["t0", "t1", "t2", "t3", "t4"]), pick(&["y[0] = p[-1] * 3", "y[1:] += p[:-1]", "v = y[0]\nv *= 2", "y.T.mul_(p.T)", "y[y > 0] = 0", "y[tensor([0, 0])] = p[:1] * 2", "t = y.fill_(1)", "t = y.copy_(p * 2)", "t = y[-1].zero_()"]))
            .prop_map(|(t, write)| format!("p = {t}.to(f32).detach().requires_grad_()\ny = p * p\nold = y[:1]\n{write}\n(y.sum() + old.sum()).backward()\np.grad")),
        1 => (block, pick(&["t0", "t1", "t4", "t2"]))
            .prop_map(|(b, arg)| format!("fn g(a, b=1) {b}\nr = g({arg}) is none and not g(a={arg}, b=2)")),
    ]
    .boxed()
}

/// What `if` and `break` test: numbers, one-element tensors on every
/// device (a host read), `and`/`or`/`not`/`in`, and a many-element tensor
/// (PyTorch's error).
fn condition() -> BoxedStrategy<String> {
    pick(&[
        "true",
        "t4 > 1",
        "t0.sum() > 0",
        "t1.max() == 5 and t4 < 3",
        "not t3.numel() or t0[0, 0] > 0",
        "2 in t1",
        "none is not none",
        "t0 > 0",
    ])
}

/// What every program starts with: each name bound, on every device and
/// in several dtypes, 0-d and zero-size among them.
const PROLOGUE: &[&str] = &[
    "t0 = randn(2, 3, device=cuda)",
    "t1 = arange(6, dtype=i32, device=cuda:1).reshape(2, 3)",
    "t2 = tensor([1.5, -2., 0.], dtype=f16)",
    "t3 = ones(2, 0, dtype=bf16, device=cuda)",
    "t4 = tensor(2, device=cuda)",
    "s0 = stream()",
    "with device(1) { s1 = stream() }",
    "e0 = event(); e1 = event()",
    "parts = scatter(arange(4., device=cuda), [cuda:0, cuda:1])",
];

fn program() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(statement(), 10..60)
        .prop_map(|body| PROLOGUE.iter().map(|s| s.to_string()).chain(body).collect())
}

fn session(backend: BackendChoice) -> Session {
    Session::new(Config {
        backend,
        sim_devices: 2,
        sim_memory: 64 << 20,
        ..Config::default()
    })
    .unwrap_or_else(|e| panic!("--backend {}: {e}", backend.name()))
}

/// The program's transcript on `backend`: each statement, then what it
/// showed. Panics (the test's failure) on an internal error.
fn transcript(backend: BackendChoice, program: &[String]) -> String {
    let mut s = session(backend);
    let mut out = String::new();
    for stmt in program {
        let o = s.execute(stmt);
        let text = o.plain_text();
        assert!(
            !text.contains("InternalError") && !text.to_lowercase().contains("internal error"),
            "`{stmt}` on {}: an internal error:\n{text}",
            backend.name()
        );
        out.push_str(&format!(">>> {stmt}\n{}\n", mask_for_check(&text)));
        if text.contains("device-side assert triggered") {
            // The device is lost until the process restarts. Which later
            // call reports it again is the first that reaches a driver, and
            // the backends make different calls for work on no element (a
            // scalar operand's upload on emu, none on the simulator).
            break;
        }
    }
    if let Err(e) = s.check_invariants() {
        panic!("allocator invariant broken on {}: {e}", backend.name());
    }
    out
}

fn first_difference(a: &str, b: &str) -> String {
    let (al, bl): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = al
        .iter()
        .zip(&bl)
        .position(|(x, y)| x != y)
        .unwrap_or(al.len().min(bl.len()));
    let from = at.saturating_sub(12);
    format!(
        "sim:\n{}\n---\nemu:\n{}",
        al[from..(at + 3).min(al.len())].join("\n"),
        bl[from..(at + 3).min(bl.len())].join("\n")
    )
}

/// The failing program as a script (`cudash run FILE --backend emu`),
/// in the target folder.
fn keep_for_replay(program: &[String]) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/target/random_program.cudash");
    let _ = std::fs::write(path, program.join("\n") + "\n");
}

fn run(cases: u32, test: impl Fn(Vec<String>) -> Result<(), TestCaseError>) {
    let config = RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    };
    let mut runner = TestRunner::new_with_rng(config, common::program_rng(47));
    if let Err(e) = runner.run(&program(), test) {
        panic!("{e}");
    }
}

#[test]
fn sim_and_emu_give_the_same_transcript_and_never_panic() {
    run(common::program_cases(1000), |p| {
        let sim = transcript(BackendChoice::Sim, &p);
        let again = transcript(BackendChoice::Sim, &p);
        prop_assert!(
            sim == again,
            "the same program gave two transcripts:\n{}",
            first_difference(&sim, &again)
        );
        let emu = transcript(BackendChoice::Emu, &p);
        if sim != emu {
            keep_for_replay(&p);
        }
        prop_assert!(
            sim == emu,
            "sim and emu differ:\n{}",
            first_difference(&sim, &emu)
        );
        Ok(())
    });
}

/// After `sync all` nothing queued before it is pending: reading every
/// variable on the host and freeing it warns about nothing.
#[test]
fn after_sync_all_nothing_warns_about_earlier_work() {
    run(common::program_cases(1000), |p| {
        let mut s = session(BackendChoice::Sim);
        for stmt in &p {
            s.execute(stmt);
        }
        // A device that failed an assertion cannot be synchronised with.
        prop_assume!(s.execute("sync all").error.is_none());
        for v in VARS.iter().chain(&["parts"]) {
            for stmt in [v.to_string(), format!("del {v}")] {
                let text = s.execute(&stmt).plain_text();
                prop_assert!(
                    !text.contains("may still"),
                    "after `sync all`, `{stmt}` warned:\n{text}\nprogram:\n{}",
                    p.join("\n")
                );
            }
        }
        Ok(())
    });
}
