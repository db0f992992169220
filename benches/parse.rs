//! Parsing speed (issue 68's target: a 500-line program in at most 10 ms):
//! the pasted programs of tests/pasted/, repeated to at least 500 lines,
//! parsed as `cudash script` parses them (lexer, layout of Python's blocks,
//! parser, scopes), beside CPython's own `compile()` of the same text when
//! `python3` is there. Run with `cargo bench --bench parse`; prints a
//! markdown table row.

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pasted");
    let mut one = String::new();
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/pasted")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    names.sort();
    for p in names {
        one.push_str(&std::fs::read_to_string(p).expect("a program"));
        one.push('\n');
    }
    let mut src = String::new();
    while src.lines().count() < 500 {
        src.push_str(&one);
    }
    let lines = src.lines().count();
    // As `cudash script` reads a `.py` file: Python's dialect, where
    // cudash's statement words (`mem`, `sync`) are plain names.
    let python = cudash::lang::Dialect::Python;
    cudash::lang::parse_as(&src, python).expect("the pasted programs parse");
    let rounds = if quick { 5 } else { 50 };
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(cudash::lang::parse_as(black_box(&src), python).is_ok());
        best = best.min(t.elapsed().as_secs_f64());
    }
    // CPython compiling the very same text (it is Python).
    let file = std::env::temp_dir().join("cudash-parse-bench.py");
    // (Without `from __future__`, which CPython takes only at a file's top.)
    let python: String = src
        .lines()
        .filter(|l| !l.starts_with("from __future__"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&file, python).expect("a temporary file");
    let script = format!(
        "import time\nsrc = open({:?}).read()\nbest = 1e9\nfor _ in range({rounds}):\n    \
         t = time.perf_counter(); compile(src, 'p', 'exec'); best = min(best, time.perf_counter() - t)\nprint(best)",
        file.display().to_string()
    );
    let cpython = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<f64>().ok());
    let _ = std::fs::remove_file(&file);
    let reference = cpython.map_or("n/a".to_string(), |s| format!("{:.2} ms", s * 1e3));
    let met = if best <= 0.010 { "yes" } else { "**no**" };
    println!("| parse a {lines}-line pasted program (best of {rounds}) | {:.2} ms | CPython `compile()`: {reference} | ≤ 10 ms | {met} |", best * 1e3);
}
