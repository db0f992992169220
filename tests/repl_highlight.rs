//! Golden snapshots of highlighted input lines and coloured tags (ANSI codes
//! escaped so the snapshot is readable).

use cudash::repl::highlight::{color_tags, highlight};

fn visible(s: &str) -> String {
    s.replace('\u{1b}', "␛")
}

#[test]
fn highlighted_lines() {
    let lines = [
        "x = [1., 2.].to(cuda:1)  # move it",
        "with device(0) { h = randn(2, 3, dtype=f16, device=cuda) }",
        "stream s { B = A.sum() }",
        "for i in 0..10 { y = x @ x.T; print(\"step\", i) }",
        "sync all; mem map cuda:2; del y",
        "z = x.to(cpu, non_blocking=true) is none",
    ];
    let out: Vec<String> = lines
        .iter()
        .map(|l| format!("{l}\n{}\n", visible(&highlight(l))))
        .collect();
    insta::assert_snapshot!(out.join("\n"));
}

#[test]
fn coloured_tags() {
    insta::assert_snapshot!(visible(&color_tags(
        "[1., 2.]  f32[2] @cuda:0\n[3.]  f32[1] @cuda:1\n[4.]  f32[1] @cpu pinned\nemail@example.com stays"
    )));
}
