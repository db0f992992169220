//! Where names live, as Python decides it, now that the interpreter finds
//! a function's locals by slot and the session's variables by a slot each
//! name remembers (`lang::resolve`, `eval::Globals`): the results must be
//! the ones looking each name up afresh would give.

mod common;

use common::{err, err_in, ok, ok_in};

#[test]
fn a_local_shadows_a_global_of_the_same_name_only_inside_its_function() {
    let src = "a = 10\nfn f(x) { a = x * 2; return a }\nfn g() { return a }\nprint(f(3), a, g())";
    assert_eq!(ok(src), "6 10 10");
}

#[test]
fn a_name_read_before_the_body_assigns_it_is_unbound_not_the_global() {
    // Python's UnboundLocalError: the name is local everywhere in the body.
    let (class, message) = err("a = 1\nfn f() { b = a; a = 2; return b }\nf()");
    assert_eq!(class, "UnboundLocalError", "{message}");
}

#[test]
fn positional_keyword_and_default_arguments_bind_alike() {
    let src = "fn f(a, b=5) { return a * 10 + b }\nprint(f(1, 2), f(1), f(b=3, a=4), f(1, b=7))";
    assert_eq!(ok(src), "12 15 43 17");
}

#[test]
fn a_parameter_default_inside_a_function_reads_that_functions_local() {
    let src = "fn outer() { k = 7; fn inner(a=k) { return a }; return inner() }\nprint(outer())";
    assert_eq!(ok(src), "7");
}

#[test]
fn recursion_gives_each_call_its_own_slots() {
    let src = "fn fib(n) { if n < 2 { return n }; a = fib(n - 1); b = fib(n - 2); return a + b }\nprint(fib(15))";
    assert_eq!(ok(src), "610");
}

#[test]
fn a_global_assigned_in_a_loop_is_read_back_by_every_statement() {
    let src = "i = 0\ntotal = 0\nwhile i < 100 { i += 1; total = total + i }\nprint(i, total)";
    assert_eq!(ok(src), "100 5050");
}

#[test]
fn a_failed_statement_gives_back_every_global_it_assigned_even_in_a_loop() {
    let mut s = common::session();
    ok_in(&mut s, "i = 0\nj = 5");
    let (class, _) = err_in(
        &mut s,
        "while i < 10 { i += 1; j = j + 1; if i == 3 { nope } }",
    );
    assert_eq!(class, "NameError");
    assert_eq!(ok_in(&mut s, "print(i, j)"), "0 5");
    // A later statement saves its own old values again, `del` too.
    let (class, _) = err_in(&mut s, "if true { i = 4; del j; nope }");
    assert_eq!(class, "NameError");
    assert_eq!(ok_in(&mut s, "print(i, j)"), "0 5");
}

#[test]
fn a_remembered_slot_is_not_trusted_after_reset_or_in_another_session() {
    let mut s = common::session();
    ok_in(&mut s, "x = 1\nfn f() { return x }");
    assert_eq!(ok_in(&mut s, "print(f())"), "1");
    s.reset();
    let (class, _) = err_in(&mut s, "x");
    assert_eq!(class, "NameError");
    ok_in(&mut s, "y = 2\nx = 3");
    assert_eq!(ok_in(&mut s, "print(x, y)"), "3 2");
    let mut other = common::session();
    ok_in(&mut other, "x = 9");
    assert_eq!(ok_in(&mut other, "print(x)"), "9");
    assert_eq!(ok_in(&mut s, "print(x)"), "3");
}

#[test]
fn a_deleted_global_is_gone_and_can_be_set_again() {
    let mut s = common::session();
    ok_in(&mut s, "x = 1\ndel x");
    let (class, _) = err_in(&mut s, "x");
    assert_eq!(class, "NameError");
    assert_eq!(ok_in(&mut s, "x = 2\nprint(x)"), "2");
}

#[test]
fn integers_compare_exactly_as_in_python() {
    assert_eq!(
        ok("print(2**53 + 1 == 2**53, 2**53 + 1 > 2**53)"),
        "False True"
    );
    assert_eq!(
        ok("print(3 < 3.5, 2.0 == 2, 1e300 * 10 > 1)"),
        "True True True"
    );
}

#[test]
fn integer_overflow_in_a_loop_is_an_error_not_a_wrap() {
    let (class, message) = err("x = 2**62\nwhile true { x = x + x }");
    assert_eq!(class, "ValueError", "{message}");
    assert!(message.contains("overflow"), "{message}");
}
