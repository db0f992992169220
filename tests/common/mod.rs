//! Helpers shared by the integration tests.
#![allow(dead_code)]

use cudash::session::{Config, Session};

pub fn session() -> Session {
    Session::new(Config::default()).unwrap()
}

/// A session with no CUDA devices at all (`--sim-devices 0`).
pub fn cpu_session() -> Session {
    Session::new(Config {
        sim_devices: 0,
        ..Config::default()
    })
    .unwrap()
}

/// A session with `n` simulated devices of `memory` bytes each.
pub fn sim_session(n: u32, memory: usize) -> Session {
    Session::new(Config {
        sim_devices: n,
        sim_memory: memory,
        ..Config::default()
    })
    .unwrap()
}

/// Runs `src` in a fresh session and returns everything it showed, errors included.
pub fn run(src: &str) -> String {
    session().execute(src).plain_text()
}

/// Runs `src` and panics if it fails; returns the output.
pub fn ok(src: &str) -> String {
    let o = session().execute(src);
    if let Some(e) = &o.error {
        panic!("`{src}` failed:\n{}", e.report);
    }
    o.plain_text()
}

/// Runs `src`, which must fail; returns the error class and message.
pub fn err(src: &str) -> (String, String) {
    let o = session().execute(src);
    let text = o.plain_text();
    let e = o
        .error
        .unwrap_or_else(|| panic!("`{src}` should have failed but printed:\n{text}"));
    (e.ename, e.evalue)
}

/// Runs `src`, which must fail; returns the error class and its whole report.
pub fn err_report(src: &str) -> (String, String) {
    let o = session().execute(src);
    let e = o
        .error
        .unwrap_or_else(|| panic!("`{src}` should have failed"));
    (e.ename, e.report)
}

/// Runs `src` in session `s`; panics if it fails.
pub fn ok_in(s: &mut Session, src: &str) -> String {
    let o = s.execute(src);
    if let Some(e) = &o.error {
        panic!("`{src}` failed:\n{}", e.report);
    }
    o.plain_text()
}

/// Runs `src` in session `s`, which must fail; returns the error class and message.
pub fn err_in(s: &mut Session, src: &str) -> (String, String) {
    let o = s.execute(src);
    let e = o.error.unwrap_or_else(|| panic!("`{src}` should fail"));
    (e.ename, e.evalue)
}

/// `ok!("x = 1; x" => "1")`: the output of a fresh session equals the text.
#[macro_export]
macro_rules! shows {
    ($src:expr => $want:expr) => {
        assert_eq!(common::ok($src), $want, "source: {}", $src)
    };
}

/// `cudash --sim-devices 0 script NAME.py` of `src`, run in a directory
/// of its own (removed after): what it wrote on stdout and on stderr, and
/// whether it succeeded.
pub fn script_streams(name: &str, src: &str) -> (String, String, bool) {
    script_streams_on(0, name, src)
}

/// The lines `cudash --sim-devices N script NAME.py` of `src` printed; it
/// must succeed and print nothing on stderr.
pub fn script_lines_on(devices: u32, name: &str, src: &str) -> Vec<String> {
    let (out, err, ok) = script_streams_on(devices, name, src);
    assert!(err.is_empty() && ok, "{err}");
    out.lines().map(str::to_string).collect()
}

/// [`script_streams`] with `devices` simulated GPUs.
pub fn script_streams_on(devices: u32, name: &str, src: &str) -> (String, String, bool) {
    script_streams_with(&["--sim-devices", &devices.to_string()], name, src)
}

/// The lines `cudash --backend emu script NAME.py` of `src` printed (the
/// CUDA backend's own code, its kernels compiled for the CPU); it must
/// succeed and print nothing on stderr.
pub fn script_lines_on_emu(name: &str, src: &str) -> Vec<String> {
    let (out, err, ok) = script_streams_with(&["--backend", "emu"], name, src);
    assert!(err.is_empty() && ok, "{err}");
    out.lines().map(str::to_string).collect()
}

/// The warnings a session's statement gave.
pub fn warnings(o: &cudash::session::Outcome) -> Vec<String> {
    o.outputs
        .iter()
        .filter_map(|x| match x {
            cudash::eval::Output::Warning(w) => Some(w.clone()),
            _ => None,
        })
        .collect()
}

fn script_streams_with(options: &[&str], name: &str, src: &str) -> (String, String, bool) {
    let dir = std::env::temp_dir().join(format!("cudash-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("{name}.py");
    std::fs::write(dir.join(&file), src).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(options)
        .args(["script", &file])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.success(),
    )
}

/// `cudash --sim-devices 0 script PATH` of a file that is already there
/// (a fixture): what it wrote on stdout and on stderr, and whether it
/// succeeded.
pub fn script_file(path: &std::path::Path) -> (String, String, bool) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", "0", "script"])
        .arg(path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.success(),
    )
}

/// A fixture program's output against the `.out` file beside it (what
/// CPython printed running it), line by line.
pub fn assert_prints_its_out_file(program: &std::path::Path) {
    let (out, err, ok) = script_file(program);
    assert!(ok && err.is_empty(), "{err}");
    let want = std::fs::read_to_string(program.with_extension("out")).unwrap();
    for (k, (got, want)) in out.lines().zip(want.lines()).enumerate() {
        assert_eq!(got, want, "{} line {}", program.display(), k + 1);
    }
    assert_eq!(out.lines().count(), want.lines().count(), "{out}");
}

/// How many random programs a property test runs: `CUDASH_PROGRAMS`, or
/// `default` (what fits in CI).
pub fn program_cases(default: u32) -> u32 {
    std::env::var("CUDASH_PROGRAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The same random programs on every run (CI stays reproducible), unless
/// `CUDASH_PROGRAMS_SEED` picks others; `seed` by default.
pub fn program_rng(seed: u64) -> proptest::test_runner::TestRng {
    use proptest::test_runner::{RngAlgorithm, TestRng};
    let seed: u64 = std::env::var("CUDASH_PROGRAMS_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(seed);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}
