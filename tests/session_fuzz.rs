//! Random programs through `Session::execute` on simulated devices: never a
//! panic, and a variable no statement assigns keeps its value.

mod common;

use proptest::prelude::*;

fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "x",
        "y",
        "z",
        "keep2",
        "1",
        "2.5",
        "-1",
        "0",
        "3",
        "ones(2, 3)",
        "zeros(3)",
        "randn(4)",
        "arange(6)",
        "[1, 2]",
        "[[1., 2.], [3., 4.]]",
        "cuda:0",
        "cuda:1",
        "cuda:5",
        "cpu",
        "f16",
        "i32",
        "bool",
        "\"s\"",
        "(",
        ")",
        "[",
        "]",
        ",",
        "+",
        "-",
        "*",
        "/",
        "**",
        "@",
        "//",
        "%",
        "&",
        "|",
        "^",
        "~",
        "+=",
        "//=",
        "==",
        "<",
        "is",
        ".",
        "..",
        ":",
        "=",
        ";",
        "\n",
        ".sum()",
        ".T",
        ".to(cuda:1)",
        ".to(f16)",
        ".cpu()",
        ".reshape(-1)",
        ".item()",
        ".mean(dim=0)",
        "[0]",
        "[1:]",
        ".fill_(3)",
        ".add_(1)",
        ".clamp(0, 1)",
        "where(",
        "maximum(",
        ".pin()",
        "mem",
        "sync",
        "del x",
        "for i in 0..3 {",
        "}",
        "with device(1) {",
        "profile {",
        "help",
        "empty_cache()",
        "scatter(ones(4), [cuda:0, cuda:1])",
        "all_reduce([",
        "reduce_scatter(",
        "all_gather([x.to(cuda:0), x.to(cuda:1)])",
        "broadcast(",
        "[cuda:0, cuda:1]",
        "op=\"avg\"",
        "zeros(2**24, device=cuda)",
        "randn(4, device=cuda:0)",
        "stream s {",
        "with s {",
        "wait s",
        "wait default",
        "sync s",
        "s.pending",
        "e = event()",
        "e.record()",
        "e.sync()",
        ".record_stream(s)",
        "time 2 {",
        ".cuda()",
        "[tensor([7])]",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_statements_never_panic_or_touch_other_variables(programs in prop::collection::vec(prop::collection::vec(piece(), 1..12), 1..8)) {
        let mut s = common::sim_session(2, 64 << 20);
        prop_assert!(s.execute("keep = arange(3)\nx = ones(2)\ny = 2").error.is_none());
        for parts in programs {
            let src = parts.join(" ");
            let _ = s.execute(&src);
            prop_assert_eq!(s.execute("keep").plain_text(), "[0, 1, 2]  i64[3] @cpu", "after {:?}", src);
            prop_assert_eq!(s.check_invariants(), Ok(()), "after {:?}", src);
        }
    }
}
