//! Loops and function bodies run compiled (`eval::compiled`); a top-level
//! statement runs as a tree. The two must give the same values and the same
//! errors: random expressions over numbers, bools, none, strings, tensors
//! and a user function are evaluated both ways and compared.

mod common;

use proptest::prelude::*;

const SETUP: &str = "a = 3
b = -2
c = 9223372036854775807
x = 2.5
y = -0.0
t = tensor([1.5])
v = tensor([1., 2., 3.])
s = \"hi\"
fn g(p) { return p * 2 }
fn k(p, q=1) { if p > q { return p } elif p == q { return none } ; return q }
";

fn atom() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "b",
        "c",
        "x",
        "y",
        "t",
        "v",
        "s",
        "none",
        "true",
        "false",
        "0",
        "1",
        "7",
        "-3",
        "0.5",
        "1e308",
        "inf",
        "nan",
        "undefined_name",
    ])
    .prop_map(str::to_string)
}

fn expr() -> impl Strategy<Value = String> {
    atom().prop_recursive(4, 24, 2, |inner| {
        let op = prop::sample::select(vec![
            "+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=", "and", "or",
            "is", "is not", "&", "|",
        ]);
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            inner.clone().prop_map(|a| format!("(not {a})")),
            inner.clone().prop_map(|a| format!("(-{a})")),
            inner.clone().prop_map(|a| format!("g({a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("k({a}, {b})")),
            inner.clone().prop_map(|a| format!("k({a})")),
            inner.prop_map(|a| format!("abs({a})")),
        ]
    })
}

/// What running `src` after the set-up showed: the printed value, or the
/// error's class and message (not where it points: the column differs).
fn outcome(src: &str) -> String {
    let mut s = common::session();
    common::ok_in(&mut s, SETUP);
    let o = s.execute(src);
    match o.error {
        Some(e) => format!("{}: {}", e.ename, e.evalue),
        None => o.plain_text(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn compiled_code_agrees_with_the_tree_walker(e in expr()) {
        let tree = outcome(&format!("r = {e}\nprint(r)"));
        let in_loop = outcome(&format!("for i in 0..1 {{ r = {e} }}\nprint(r)"));
        let in_while = outcome(&format!("i = 0\nwhile i < 1 {{ i += 1; r = {e} }}\nprint(r)"));
        let in_fn = outcome(&format!("fn h() {{ return {e} }}\nr = h()\nprint(r)"));
        prop_assert_eq!(&tree, &in_loop, "in a for loop: {}", e);
        prop_assert_eq!(&tree, &in_while, "in a while loop: {}", e);
        prop_assert_eq!(&tree, &in_fn, "in a function: {}", e);
    }

    #[test]
    fn conditions_agree_with_the_tree_walker(e in expr()) {
        let tree = outcome(&format!("if {e} {{ r = 1 }} else {{ r = 2 }}\nprint(r)"));
        let in_loop = outcome(&format!("for i in 0..1 {{ if {e} {{ r = 1 }} else {{ r = 2 }} }}\nprint(r)"));
        prop_assert_eq!(&tree, &in_loop, "{}", e);
    }

    #[test]
    fn augmented_assignment_agrees_with_the_tree_walker(e in expr(), op in prop::sample::select(vec!["+=", "-=", "*=", "/=", "//=", "%=", "**="])) {
        let tree = outcome(&format!("r = {e}\nr {op} a\nprint(r)"));
        let in_loop = outcome(&format!("r = {e}\nfor i in 0..1 {{ r {op} a }}\nprint(r)"));
        prop_assert_eq!(&tree, &in_loop, "r = {}; r {} a", e, op);
    }
}

/// A failing statement in a compiled loop still puts every global back.
#[test]
fn a_failure_in_a_compiled_loop_undoes_the_statement() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "n = 0\nfn f(i) { if i == 3 { return nope } ; return i }",
    );
    let o = s.execute("for i in 0..5 { n = f(i) }");
    assert_eq!(common::ok_in(&mut s, "print(n)").trim(), "0");
    let e = o.error.unwrap();
    assert_eq!(e.ename, "NameError");
}
