//! Parsing speed (issue 68's target: a 500-line program in at most 10 ms):
//! the pasted programs of tests/pasted/, their first ~500 lines and then
//! all of them as one file, parsed as `cudash script` parses them (lexer,
//! layout of Python's blocks, parser, scopes), beside CPython's own
//! `compile()` of the same text when `python3` is there. The second row
//! shows whether parsing stays linear in a file's length (the time per
//! thousand lines should match the first row's). Run with
//! `cargo bench --bench parse`; prints markdown table rows.

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pasted");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/pasted")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    names.sort();
    let programs: Vec<String> = names
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("a program") + "\n")
        .collect();
    // Whole programs until at least 500 lines, then every program.
    let mut small = String::new();
    for program in programs.iter().cycle() {
        if small.lines().count() >= 500 {
            break;
        }
        small.push_str(program);
    }
    let all = programs.concat();
    let rounds = if quick { 5 } else { 50 };
    for (src, rounds, target) in [(&small, rounds, Some(0.010)), (&all, rounds / 5, None)] {
        row(src, rounds, target);
    }
}

/// Parses `src` `rounds` times and prints the best time beside CPython's.
fn row(src: &str, rounds: usize, target: Option<f64>) {
    let lines = src.lines().count();
    // As `cudash script` reads a `.py` file: Python's dialect, where
    // cudash's statement words (`mem`, `sync`) are plain names.
    let python = cudash::lang::Dialect::Python;
    cudash::lang::parse_as(src, python).expect("the pasted programs parse");
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(cudash::lang::parse_as(black_box(src), python).is_ok());
        best = best.min(t.elapsed().as_secs_f64());
    }
    let reference =
        cpython(src, rounds).map_or("n/a".to_string(), |s| format!("{:.2} ms", s * 1e3));
    let per_thousand = best * 1e3 / lines as f64 * 1000.0;
    let (target, met) = match target {
        Some(t) if best <= t => (format!("≤ {:.0} ms", t * 1e3), "yes"),
        Some(t) => (format!("≤ {:.0} ms", t * 1e3), "**no**"),
        None => ("linear".to_string(), "see ms per 1,000 lines"),
    };
    println!(
        "| parse {lines} lines of pasted programs (best of {rounds}) | {:.2} ms ({per_thousand:.2} ms per 1,000 lines) | CPython `compile()`: {reference} | {target} | {met} |",
        best * 1e3
    );
}

/// CPython's best `compile()` of the same text, in seconds.
fn cpython(src: &str, rounds: usize) -> Option<f64> {
    let file = std::env::temp_dir().join(format!("cudash-parse-bench-{}.py", std::process::id()));
    // (Without `from __future__` and `import *`, which CPython takes only
    // at a file's top and at module level.)
    let python: String = src
        .lines()
        .filter(|l| !l.starts_with("from __future__"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&file, python).ok()?;
    let script = format!(
        "import time\nsrc = open({:?}).read()\nbest = 1e9\nfor _ in range({rounds}):\n    \
         t = time.perf_counter(); compile(src, 'p', 'exec'); best = min(best, time.perf_counter() - t)\nprint(best)",
        file.display().to_string()
    );
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
        .ok();
    let _ = std::fs::remove_file(&file);
    String::from_utf8(out?.stdout)
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()
}
