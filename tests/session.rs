//! The Session seam: failed statements change nothing, completion, inspect, interrupt.

mod common;

use std::sync::atomic::Ordering;

use cudash::lang::Completeness;

#[test]
fn a_failed_statement_changes_nothing() {
    let mut s = common::session();
    assert!(s.execute("x = [1., 2.]; n = 3").error.is_none());
    // Fails half-way through the loop: x and i keep their old values.
    let o = s.execute("for i in 0..5 { x = x * 2; y = x + zeros(3) }");
    assert!(o.error.is_some());
    assert_eq!(s.execute("x").plain_text(), "[1., 2.]  f32[2] @cpu");
    assert!(
        s.execute("i").error.is_some(),
        "the loop variable must not leak from a failed statement"
    );
    assert!(s.execute("y").error.is_some());
    // An earlier statement of a failing cell keeps its effect; the failing one does not.
    let o = s.execute("n = 4\nx = undefined_name");
    assert_eq!(o.error.unwrap().ename, "NameError");
    assert_eq!(s.execute("n").plain_text(), "4");
    assert_eq!(s.execute("x").plain_text(), "[1., 2.]  f32[2] @cpu");
    // del of an unknown name deletes nothing.
    assert!(s.execute("del n, nope").error.is_some());
    assert_eq!(s.execute("n").plain_text(), "4");
}

#[test]
fn blocks_do_not_open_scopes() {
    shows!("for i in 0..3 { last = i * 10 }\n[i, last]" => "[ 2, 20]  i64[2] @cpu");
    let out = common::ok("profile { y = ones(2) }\ny");
    assert!(
        out.starts_with("profile") && out.ends_with("[1., 1.]  f32[2] @cpu"),
        "{out}"
    );
}

#[test]
fn loops_over_lists_and_tensors() {
    shows!("t = 0\nfor v in [1, 2, 3] { t = t + v }\nt" => "6  i64[] @cpu");
    shows!("n = 0\nfor d in [cpu, cpu] { n = n + 1 }\nn" => "2");
    shows!("t = 0\nfor row in [[1, 2], [3, 4]] { t = t + row.sum() }\nt" => "10  i64[] @cpu");
}

#[test]
fn expression_statements_inside_loops_are_quiet() {
    shows!("for i in 0..3 { i }" => "");
    shows!("for i in 0..2 { print(i) }" => "0\n1");
}

#[test]
fn completion() {
    let mut s = common::session();
    s.execute("weights = ones(2); width = 3");
    let c = s.complete("we", 2);
    assert_eq!(c.matches, vec!["weights"]);
    assert_eq!((c.start, c.end), (0, 2));
    assert!(s.complete("ran", 3).matches.contains(&"randn".to_string()));
    let m = s.complete("weights.su", 10).matches;
    assert_eq!(m, vec!["sub", "sub_", "sum"]);
    assert!(s.complete("x = f1", 6).matches.contains(&"f16".to_string()));
    // A cursor inside a multi-byte character does not panic.
    let _ = s.complete("é", 1);
    assert!(
        s.complete("width.", 6).matches.is_empty(),
        "ints have no methods"
    );
}

#[test]
fn a_defined_function_completes_with_its_signature() {
    let mut s = common::session();
    s.execute("fn linear(x, w, bias=none) { return x @ w.T }");
    assert_eq!(s.complete("line", 4).matches, vec!["linear"]);
    let src = "linear(ones(2), ones(2), bi";
    assert_eq!(
        s.signature_at(src, src.len()).as_deref(),
        Some("linear(x, w, bias=none)")
    );
    assert!(s
        .complete(src, src.len())
        .matches
        .contains(&"bias=".to_string()));
    assert_eq!(
        s.inspect("linear", 3).as_deref(),
        Some("linear: <function linear(x, w, bias=none)>")
    );
    assert!(s.complete("whi", 3).matches.contains(&"while".to_string()));
}

#[test]
fn inspect_reads_the_builtins_table() {
    let mut s = common::session();
    let h = s.inspect("randn(2)", 3).unwrap();
    assert!(
        h.starts_with("randn(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false, generator=none)"),
        "{h}"
    );
    assert!(h.contains("example:"));
    let h = s.inspect("x.reshape(2)", 4).unwrap();
    assert!(h.contains("x.reshape(*shape)"), "{h}");
    s.execute("w = ones(2)");
    assert!(s.inspect("w", 1).unwrap().contains("f32[2] @cpu"));
    assert!(s.inspect("   ", 1).is_none());
}

#[test]
fn is_complete() {
    let s = common::session();
    assert_eq!(s.is_complete("x = 1"), Completeness::Complete);
    assert!(matches!(
        s.is_complete("for i in 0..2 {"),
        Completeness::Incomplete { .. }
    ));
    assert_eq!(s.is_complete("x = )"), Completeness::Invalid);
    // An open function body or branch asks for more lines (Jupyter's
    // is_complete, the REPL's continuation prompt).
    for open in [
        "fn f(a) {",
        "fn f(a) {\n  return a",
        "if x > 0 {",
        "while true {\n  k += 1",
    ] {
        assert!(
            matches!(s.is_complete(open), Completeness::Incomplete { .. }),
            "{open:?}"
        );
    }
    assert_eq!(
        s.is_complete("fn f(a) { return a }"),
        Completeness::Complete
    );
    assert_eq!(s.is_complete("break"), Completeness::Invalid);
}

#[test]
fn interrupt_stops_a_loop_and_keeps_variables() {
    let mut s = common::session();
    s.execute("x = ones(2); k = 0");
    let flag = s.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        flag.store(true, Ordering::Relaxed);
    });
    let o = s.execute("for i in 0..100000000 { k = k + 1 }");
    t.join().unwrap();
    let e = o.error.expect("the loop must be interrupted");
    assert_eq!(e.ename, "Interrupted");
    assert_eq!(s.execute("k").plain_text(), "0");
    assert_eq!(s.execute("x").plain_text(), "[1., 1.]  f32[2] @cpu");
}

#[test]
fn interrupt_stops_a_while_true_and_a_recursion_and_keeps_variables() {
    let mut s = common::session();
    s.execute("k = 0\nfn spin(n) { while true { n += 1 } }");
    for src in [
        "while true { k = k + 1 }",
        "while true { }",
        "spin(0)",
        "fn deep(n) { for i in 0..1000000 { } ; return deep(n + 1) }\ndeep(0)",
    ] {
        let flag = s.interrupt_handle();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            flag.store(true, Ordering::Relaxed);
        });
        let o = s.execute(src);
        t.join().unwrap();
        let e = o
            .error
            .unwrap_or_else(|| panic!("`{src}` must be interrupted"));
        assert_eq!(e.ename, "Interrupted", "{src}");
        assert_eq!(s.execute("k").plain_text(), "0", "{src}");
    }
}

#[test]
fn status_and_vars() {
    let mut s = common::session();
    s.execute("a = ones(2, 3); b = 5; g = ones(1000, device=cuda:1)");
    let st = s.status();
    assert_eq!(
        (st.backend, st.variables, st.host_tensor_bytes),
        ("sim", 3, 24)
    );
    assert_eq!(st.devices.len(), 2);
    assert_eq!(
        (st.devices[1].allocated, st.devices[1].reserved),
        (4096, 2 << 20)
    );
    let v = s.vars();
    assert_eq!(v[0].name, "a");
    assert_eq!(v[0].summary, "f32 [2,3] @cpu");
    assert_eq!(v[0].bytes, 24);
    assert_eq!(v[2].summary, "f32 [1000] @cuda:1");
    s.reset();
    assert_eq!(s.status().variables, 0);
    assert_eq!(
        s.status().devices[1].allocated,
        0,
        "reset frees the device memory of every tensor"
    );
}

#[test]
fn history_keeps_cells() {
    let mut s = common::session();
    s.execute("a = 1");
    s.execute("a");
    let history: Vec<&str> = s.history().iter().map(|h| &**h).collect();
    assert_eq!(history, ["a = 1", "a"]);
}

/// `help` names each topic's PyTorch spelling beside cudash's.
#[test]
fn help_names_the_pytorch_spelling() {
    let mut s = common::session();
    for (topic, pytorch) in [
        ("sync", "PyTorch: torch.cuda.synchronize()"),
        ("zeros", "PyTorch: torch.zeros"),
        (
            "reset_peak",
            "PyTorch: torch.cuda.reset_peak_memory_stats()",
        ),
        ("elapsed", "PyTorch: e.elapsed_time(end)"),
        ("pin_memory", "PyTorch: x.pin_memory(...)"),
        ("mem", "PyTorch: print(torch.cuda.memory_summary())"),
    ] {
        let out = s.execute(&format!("help {topic}")).plain_text();
        assert!(out.contains(pytorch), "help {topic}:\n{out}");
    }
}

/// An error raised in a function's body is shown in the text of the cell
/// that defined the function, under that cell's name, wherever the call
/// is: the calling cell, another function, or a DataLoader's worker. An
/// error of the call itself (its arguments) stays in the calling cell.
#[test]
fn an_error_in_a_function_from_an_earlier_cell_is_shown_in_that_cell() {
    let mut s = common::sim_session(1, 1 << 30);
    common::ok_in(
        &mut s,
        "x = 1\nfn f(i) {\n  y = 2\n  return zeros(2) + ones(3)\n}",
    );
    for call in [
        "f(1)",
        "fn g(i) { return f(i) }\ng(1)",
        "q = 5\nfor b in DataLoader(Dataset(f, 2), num_workers=1) { }",
        "for b in DataLoader(Dataset(f, 2)) { }",
    ] {
        let report = s.execute(call).error.expect("the call fails").report;
        assert!(report.contains("cell 1:4:10"), "{call}:\n{report}");
        assert!(
            report.contains("return zeros(2) + ones(3)"),
            "{call}:\n{report}"
        );
    }
    let report = s.execute("f(1, 2)").error.expect("arity").report;
    assert!(
        report.contains("cell:1:6") && report.contains("f(1, 2)"),
        "{report}"
    );
}

/// `a if c else b` evaluates `c`, then only the operand it picks, in the
/// tree walker and in compiled function bodies alike.
#[test]
fn a_conditional_expression_evaluates_one_side() {
    let out = common::ok(
        "fn sign(n) { return 1 if n > 0 else -1 if n < 0 else 0 }\n\
         print(sign(5), sign(-2), sign(0))\n\
         x = zeros(2)\n\
         y = x.sum() if x.numel() == 2 else undefined_name\n\
         print(y.item(), \"big\" if 10 > 3 else \"small\")",
    );
    assert_eq!(out.trim_end(), "1 -1 0\n0.0 big");
}
