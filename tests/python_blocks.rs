//! Python's indented blocks beside cudash's braces (issue 68): each form
//! parses to the same tree as its brace form, the two mix, and bad
//! indentation is Python's `IndentationError` / `TabError` at the line.

mod common;

use cudash::lang::ast::StmtKind;
use cudash::lang::{completeness, parse, Completeness};

/// Parses both and compares their trees (spans aside: the trees are
/// printed without them).
fn same(python: &str, braces: &str) {
    let a = parse(python).unwrap_or_else(|e| panic!("{python:?}: {e:?}"));
    let b = parse(braces).unwrap_or_else(|e| panic!("{braces:?}: {e:?}"));
    assert_eq!(shape(&a), shape(&b), "{python:?} vs {braces:?}");
}

/// The statement kinds, nested, without spans.
fn shape(block: &[cudash::lang::ast::Stmt]) -> String {
    block
        .iter()
        .map(|s| match &s.kind {
            StmtKind::If(branches, otherwise) => format!(
                "if[{}]else[{}]",
                branches
                    .iter()
                    .map(|(_, b)| shape(b))
                    .collect::<Vec<_>>()
                    .join("|"),
                otherwise.as_deref().map(shape).unwrap_or_default()
            ),
            StmtKind::For(_, _, b) => format!("for[{}]", shape(b)),
            StmtKind::While(_, b) => format!("while[{}]", shape(b)),
            StmtKind::With(_, _, b) => format!("with[{}]", shape(b)),
            StmtKind::Stream(_, b) => format!("stream[{}]", shape(b)),
            StmtKind::NoGrad(b) => format!("no_grad[{}]", shape(b)),
            StmtKind::Fn(f) => {
                format!("fn {}({})[{}]", f.name.name, f.params.len(), shape(&f.body))
            }
            StmtKind::Class(c) => format!("class {}[{}]", c.name.name, shape(&c.body)),
            StmtKind::Expr(_) => "e".into(),
            StmtKind::Assign(n, _) => format!("{}=", n.name),
            other => format!("{:?}", std::mem::discriminant(other)),
        })
        .collect::<Vec<_>>()
        .join(";")
}

#[test]
fn each_block_form_is_its_brace_form() {
    same("for i in xs:\n    a\n    b\nc", "for i in xs { a; b }\nc");
    same(
        "if x:\n    a\nelif y:\n    b\nelse:\n    c\nd",
        "if x { a } elif y { b } else { c }\nd",
    );
    same("while x:\n  x = 1\n", "while x { x = 1 }");
    same(
        "def f(a, b=1):\n    c = a\n    return c\n",
        "fn f(a, b=1) { c = a; return c }",
    );
    same(
        "class Net(Module):\n    \"doc\"\n    def forward(self, x):\n        return x\n",
        "class Net(Module) { \"doc\"; fn forward(self, x) { return x } }",
    );
    same("with device(1):\n    a\n", "with device(1) { a }");
    same("with no_grad():\n    a\n", "no_grad { a }");
    same("stream s:\n    a\n", "stream s { a }");
    same("no_grad:\n    a\n", "no_grad { a }");
}

#[test]
fn blocks_nest_and_close_together() {
    same(
        "for i in xs:\n    if i:\n        for j in ys:\n            a\nb",
        "for i in xs { if i { for j in ys { a } } }\nb",
    );
    // A block closed by a line two levels out, then an `else` of the outer `if`.
    same(
        "if a:\n    if b:\n        c\nelse:\n    d",
        "if a { if b { c } } else { d }",
    );
}

#[test]
fn blank_lines_comments_and_continuations_inside_blocks() {
    same(
        "def f(x):\n\n    # a comment\n    y = x   # another\n\n\n    return y\n",
        "fn f(x) { y = x; return y }",
    );
    same("x = 1 + \\\n    2\n", "x = 1 + 2");
    same(
        "def f(a,\n      b=2,\n):\n    return a\n",
        "fn f(a, b=2) { return a }",
    );
    same("d = {\n  'a': 1,\n  'b': 2,\n}\n", "d = {'a': 1, 'b': 2}");
    same(
        "if x: a = 1\nelse: a = 2\n",
        "if x { a = 1 } else { a = 2 }",
    );
    same("for i in xs: a; b\nc", "for i in xs { a; b }\nc");
}

#[test]
fn the_two_forms_mix() {
    same(
        "for i in 0..3 {\n  if i:\n    a\n}\nwhile x:\n    for j in ys { b }\n",
        "for i in 0..3 { if i { a } }\nwhile x { for j in ys { b } }",
    );
}

#[test]
fn python_extras_parse_and_do_nothing() {
    same("pass", "pass");
    same(
        "def f(x: int, y: float = 2.0) -> int:\n    pass\n",
        "fn f(x, y=2.0) { pass }",
    );
    // An annotated name is kept as one (a dataclass's field), its
    // annotation dropped: `x: int = 3` assigns, `y: list` does not.
    let annotated = parse("x: int = 3\ny: list\n").unwrap();
    assert!(matches!(&annotated[0].kind, StmtKind::Annotated(n, Some(_)) if n.name == "x"));
    assert!(matches!(&annotated[1].kind, StmtKind::Annotated(n, None) if n.name == "y"));
    same(
        "\"\"\"A module's docstring,\nover lines.\"\"\"\nx = 1\n",
        "\"doc\"\nx = 1",
    );
    let out = common::ok(
        "\"\"\"Two\nlines.\"\"\"\ndef twice(x: int) -> int:\n    \"\"\"Doubles.\"\"\"\n    return 2 * x\nprint(twice(4))\n",
    );
    assert!(out.contains("8"), "{out}");
}

/// The indentation a line must have, as Python checks it.
#[test]
fn bad_indentation_is_pythons_error_at_the_line() {
    for (src, class, message, line) in [
        (
            "for i in xs:\nx = 1\n",
            "IndentationError",
            "expected an indented block after the `for` on line 1",
            "2:1",
        ),
        (
            "if x:\n    a\n      b\n",
            "IndentationError",
            "unexpected indent",
            "3:1",
        ),
        (
            "if x:\n    a\n  b\n",
            "IndentationError",
            "unindent does not match any outer indentation level",
            "3:1",
        ),
        (
            "if x:\n    a\n\tb\n",
            "TabError",
            "inconsistent use of tabs and spaces in indentation",
            "3:1",
        ),
    ] {
        let o = common::session().execute(src);
        let e = o.error.unwrap_or_else(|| panic!("{src:?} should fail"));
        assert_eq!(e.ename, class, "{src:?}: {}", e.report);
        assert!(e.evalue.contains(message), "{src:?}: {}", e.evalue);
        assert!(
            e.report.contains(&format!("cell:{line}")),
            "{src:?}: {}",
            e.report
        );
    }
}

/// In the REPL a `:` block goes on until a blank line, with the next line
/// indented as the block's; a bracket still open asks for more as before.
#[test]
fn the_repl_waits_for_a_blank_line_after_a_block() {
    let more = |src: &str| match completeness(src) {
        Completeness::Incomplete { indent } => Some(indent),
        _ => None,
    };
    assert_eq!(more("for i in xs:\n").as_deref(), Some("    "));
    assert_eq!(more("for i in xs:\n    a\n").as_deref(), Some("    "));
    assert_eq!(
        more("for i in xs:\n    if i:\n").as_deref(),
        Some("        ")
    );
    assert_eq!(more("for i in xs:\n    a\n\n"), None);
    assert_eq!(more("x = 1\n"), None);
    assert_eq!(more("for i in xs { a }\n"), None);
    assert!(more("f(1,\n").is_some());
}

/// `for j in 1, 2, 5:` iterates over the tuple Python reads there, as
/// `for j in (1, 2, 5):` (CPython's `timeit.autorange` writes it so).
#[test]
fn a_for_loop_over_a_tuple_without_parentheses() {
    let lines = common::script_lines_on(
        0,
        "for_tuple",
        "for j in 1, 2, 5:\n    print(j)\nfor k in \"a\", \"b\",:\n    print(k)\n",
    );
    assert_eq!(lines, ["1", "2", "5", "a", "b"]);
}
