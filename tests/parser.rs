//! The parser: structure, precedence, incomplete input, and that it never panics.

use cudash::lang::ast::{BinOp, ExprKind, StmtKind};
use cudash::lang::{completeness, parse, Completeness};
use cudash::vocab::BinaryOp;
use proptest::prelude::*;

fn expr(src: &str) -> ExprKind {
    let mut stmts = parse(src).unwrap();
    match stmts.remove(0).kind {
        StmtKind::Expr(e) => e.kind,
        other => panic!("not an expression: {other:?}"),
    }
}

#[test]
fn precedence_follows_python() {
    // -x ** 2 is -(x ** 2)
    assert!(matches!(expr("-x ** 2"), ExprKind::Neg(_)));
    // a + b * c is a + (b * c)
    match expr("a + b * c") {
        ExprKind::Binary(BinOp::Elementwise(BinaryOp::Add), _, rhs) => {
            assert!(matches!(
                rhs.kind,
                ExprKind::Binary(BinOp::Elementwise(BinaryOp::Mul), ..)
            ))
        }
        other => panic!("{other:?}"),
    }
    // a @ b.T binds the property first
    match expr("a @ b.T") {
        ExprKind::Binary(BinOp::MatMul, _, rhs) => assert!(matches!(rhs.kind, ExprKind::Attr(..))),
        other => panic!("{other:?}"),
    }
    // ** is right-associative
    match expr("2 ** 3 ** 2") {
        ExprKind::Binary(BinOp::Elementwise(BinaryOp::Pow), _, rhs) => {
            assert!(matches!(
                rhs.kind,
                ExprKind::Binary(BinOp::Elementwise(BinaryOp::Pow), ..)
            ))
        }
        other => panic!("{other:?}"),
    }
}

/// `a if c else b` binds loosest (below `or` and `not`) and nests to the
/// right, as Python's conditional expression.
#[test]
fn conditional_expressions_follow_python() {
    match expr("a or b if c and d else not e") {
        ExprKind::IfElse(then, cond, other) => {
            assert!(matches!(then.kind, ExprKind::Or(..)));
            assert!(matches!(cond.kind, ExprKind::And(..)));
            assert!(matches!(other.kind, ExprKind::Not(..)));
        }
        other => panic!("{other:?}"),
    }
    match expr("1 if x else 2 if y else 3") {
        ExprKind::IfElse(_, _, other) => assert!(matches!(other.kind, ExprKind::IfElse(..))),
        other => panic!("{other:?}"),
    }
    assert!(parse("x = 1 if c").is_err(), "`else` is required");
    // The statement form is unchanged.
    assert!(matches!(
        parse("if c { 1 } else { 2 }").unwrap()[0].kind,
        StmtKind::If(..)
    ));
}

#[test]
fn separators_and_newlines_inside_brackets() {
    assert_eq!(parse("a = 1; b = 2\n\nc = 3;").unwrap().len(), 3);
    assert_eq!(parse("x = zeros(\n  2,\n  3,\n)").unwrap().len(), 1);
    assert_eq!(parse("m = [[1, 2],\n     [3, 4]]").unwrap().len(), 1);
    assert_eq!(parse("").unwrap().len(), 0);
    assert_eq!(parse("# only a comment\n").unwrap().len(), 0);
}

#[test]
fn ranges_are_not_floats() {
    let s = parse("for i in 0..10 { x = 1. }").unwrap();
    assert!(matches!(s[0].kind, StmtKind::For(..)));
}

#[test]
fn stream_is_contextual() {
    assert!(matches!(
        parse("stream s { x = 1 }").unwrap()[0].kind,
        StmtKind::Stream(..)
    ));
    assert!(matches!(
        parse("s = stream()").unwrap()[0].kind,
        StmtKind::Assign(..)
    ));
}

#[test]
fn keywords_work_as_method_names() {
    assert!(parse("e.sync()").is_ok());
    assert!(parse("x.cuda().cpu()").is_ok());
    assert!(parse("s.wait(e)").is_ok());
}

#[test]
fn incomplete_input_is_detected() {
    assert!(matches!(
        completeness("for i in 0..3 {"),
        Completeness::Incomplete { .. }
    ));
    assert!(matches!(
        completeness("x = zeros(2,"),
        Completeness::Incomplete { .. }
    ));
    assert!(matches!(
        completeness("x = [[1, 2],"),
        Completeness::Incomplete { .. }
    ));
    assert!(matches!(
        completeness("x = 1 +"),
        Completeness::Incomplete { .. }
    ));
    assert_eq!(completeness("x = 1"), Completeness::Complete);
    assert_eq!(completeness("x = )"), Completeness::Invalid);
    assert_eq!(completeness("x = 1 +* 2"), Completeness::Invalid);
    match completeness("with device(1) {\n  for i in 0..2 {") {
        Completeness::Incomplete { indent } => assert_eq!(indent, "    "),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ten_thousand_nested_brackets_are_an_error_not_a_crash() {
    let src = format!("x = {}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let errs = parse(&src).unwrap_err();
    assert!(
        errs[0].error.to_string().contains("nest deeper"),
        "{:?}",
        errs[0]
    );
    let src = format!("x = {}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(parse(&src).is_err());
}

#[test]
fn deep_but_allowed_nesting_parses() {
    let src = format!("x = {}1{}", "(".repeat(100), ")".repeat(100));
    assert!(parse(&src).is_ok());
}

#[test]
fn bad_input_gets_spans() {
    for src in [
        "x = 1 +* 2",
        "zeros(2,, 3)",
        "x = )",
        "1 = x",
        "x = \"unterminated",
        "x = 99999999999999999999",
        "x = 1 $ 2",
        "for in 0..3 {}",
        "with { }",
        "x[] = 1",
    ] {
        let errs = parse(src).unwrap_err();
        let e = &errs[0];
        assert!(
            e.span.end <= src.len() && e.span.start <= e.span.end,
            "bad span for {src:?}: {e:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parser_never_panics_on_arbitrary_text(s in "\\PC{0,80}") {
        let _ = parse(&s);
        let _ = completeness(&s);
    }

    #[test]
    fn parser_never_panics_on_token_soup(parts in prop::collection::vec(prop::sample::select(vec![
        "x", "1", "2.5", "(", ")", "[", "]", "{", "}", ",", ";", "\n", "=", "+", "-", "*", "/", "**", "@",
        "//", "%", "&", "|", "^", "~", "+=", "**=", "//=", "==", "<", "is", ".", "..", ":", "cuda:1", "cuda", "cpu", "f16", "for", "in", "with", "stream",
        "sync", "mem", "map", "all", "del", "help", "time", "profile", "\"s\"", "#c\n", "sum", "T",
        "fn", "return", "if", "elif", "else", "while", "break", "continue", "and", "or", "not",
    ]), 0..40)) {
        let src = parts.join(" ");
        let _ = parse(&src);
        let _ = completeness(&src);
    }
}

/// Runs `f` on a thread with the default 2 MiB stack, as library users and test threads have.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn long_chains_are_errors_on_any_stack() {
    on_small_stack(|| {
        for src in [
            format!("x = {}", vec!["1"; 10_000].join("+")),
            format!("x = {}1", "-".repeat(10_000)),
            format!("x = {}", vec!["1"; 10_000].join("**")),
            format!("x = ones(2){}", ".T".repeat(10_000)),
            format!("x = {}1", "not ".repeat(10_000)),
            format!("x = {}", vec!["a"; 10_000].join(" and ")),
            format!("x = {}", vec!["a"; 10_000].join(" or ")),
        ] {
            let errs = parse(&src).unwrap_err();
            assert!(
                errs[0].error.to_string().contains("nests deeper"),
                "{:?}",
                errs[0]
            );
        }
    });
}

#[test]
fn the_deepest_accepted_input_parses_and_runs_on_a_small_stack() {
    on_small_stack(|| {
        // Nested brackets and operator chains at the limits together.
        let src = format!("x = {}1{}", "(-".repeat(85), ")".repeat(85));
        assert!(parse(&src).is_ok());
        let mut s = cudash::session::Session::new(Default::default()).unwrap();
        let o = s.execute(&format!("{src}\nx"));
        assert!(
            o.error.is_none() || o.error.as_ref().unwrap().ename == "ValueError",
            "{:?}",
            o.error
        );
        let wide = format!("x = {}", vec!["1"; 250].join("+"));
        assert_eq!(s.execute(&format!("{wide}\nx")).plain_text(), "250");
        // Recursion to the call limit runs on any stack (the interpreter
        // grows it on the heap), and one call more is a RecursionError.
        let down = "fn down(n) { if n == 0 { return 0 }; return down(n - 1) + 1 }";
        assert_eq!(s.execute(&format!("{down}\ndown(998)")).plain_text(), "998");
        let o = s.execute("down(1000)");
        assert_eq!(o.error.map(|e| e.ename), Some("RecursionError".to_string()));
    });
}

#[test]
fn python_levels_for_not_and_or() {
    // not a == b is not (a == b); a or b and c is a or (b and c).
    assert!(
        matches!(expr("not a == b"), ExprKind::Not(inner) if matches!(inner.kind, ExprKind::Binary(..)))
    );
    assert!(
        matches!(expr("a or b and c"), ExprKind::Or(_, rhs) if matches!(rhs.kind, ExprKind::And(..)))
    );
    assert!(
        matches!(expr("not a and b"), ExprKind::And(lhs, _) if matches!(lhs.kind, ExprKind::Not(_)))
    );
    assert!(matches!(
        expr("x is not none"),
        ExprKind::Binary(BinOp::IsNot, ..)
    ));
    assert!(matches!(
        expr("x not in xs"),
        ExprKind::Binary(BinOp::NotIn, ..)
    ));
    assert!(
        matches!(expr("x + 1 in xs"), ExprKind::Binary(BinOp::In, lhs, _) if matches!(lhs.kind, ExprKind::Binary(..)))
    );
}

#[test]
fn if_elif_else_may_span_lines() {
    let s =
        parse("if a { x = 1 }\nelif b { x = 2 }\nelif c { }\nelse {\n  x = 3\n}\ny = 1").unwrap();
    assert_eq!(s.len(), 2);
    match &s[0].kind {
        StmtKind::If(branches, otherwise) => {
            assert_eq!(branches.len(), 3);
            assert!(otherwise.is_some());
        }
        other => panic!("{other:?}"),
    }
    // An open `fn` or `if` body asks for more lines.
    assert!(matches!(
        completeness("fn f(a) {"),
        Completeness::Incomplete { .. }
    ));
    assert!(matches!(
        completeness("if x {\n  y = 1"),
        Completeness::Incomplete { .. }
    ));
}

#[test]
fn a_function_knows_its_locals() {
    // Parameters, assignments in nested blocks, loop names, unpacking and
    // a nested function's name; not the nested function's own locals, and
    // not what is only read (`a`, `h`) or written through (`x[0]`).
    let src =
        "fn f(a, b=1) { c = a; for i in 0..2 { d += i }; x[0] = 1; e, g = h; fn k() { m = 1 } }";
    let s = parse(src).unwrap();
    match &s[0].kind {
        StmtKind::Fn(f) => assert_eq!(f.locals, ["a", "b", "c", "i", "d", "e", "g", "k"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn wide_literals_are_not_deep() {
    let src = format!("x = [{}]", vec!["-1.5"; 100_000].join(", "));
    assert!(parse(&src).is_ok());
}

#[test]
fn dict_literals_and_blocks_do_not_mix_up() {
    match expr("{\"lr\": 0.1, \"betas\": (0.9, 0.999),}") {
        ExprKind::Dict(pairs) => assert_eq!(pairs.len(), 2),
        other => panic!("{other:?}"),
    }
    assert!(matches!(expr("{}"), ExprKind::Dict(p) if p.is_empty()));
    // `profile { }` and `time { }` take a block, not an empty dict as their name.
    for src in ["profile { }", "time { x = 1 }", "profile \"t.json\" { }"] {
        let stmts = parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
        assert!(
            matches!(stmts[0].kind, StmtKind::Profile(..) | StmtKind::Time(..)),
            "{src}"
        );
    }
    assert!(parse("{\"a\": }").is_err());
}

/// The REPL waits for the `def` a decorator line stands above, and for a
/// `with ... as` block's body.
#[test]
fn a_decorator_and_with_as_wait_for_their_block() {
    for src in [
        "@torch.no_grad()",
        "@torch.no_grad()\ndef f(x):",
        "with open_it() as f:",
    ] {
        assert!(
            matches!(completeness(src), Completeness::Incomplete { .. }),
            "{src:?}: {:?}",
            completeness(src)
        );
    }
    assert_eq!(
        completeness("@staticmethod\ndef f(x):\n    return x\n\n"),
        Completeness::Complete
    );
    // Adjacent strings are one; `del` takes items and attributes.
    assert!(parse("s = \"a\" 'b' f\"{1}\"").is_ok());
    assert!(parse("del xs[0], obj.name, d[\"k\"]").is_ok());
    assert!(parse("del f(x)").is_err());
}
