//! tqdm's progress bars, and a script's output shown as it is printed.
//! The fixtures' expected files are what tqdm 4.66.1 wrote under Python
//! 3.11 for the same programs; a live bar's times and rates are masked
//! (they are the machine's), everything else is compared as written.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

fn run(file: &Path) -> (String, String, Option<i32>) {
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", "0", "script"])
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/python_tqdm")
        .join(name)
}

/// A bar's line for given counts and times, and the numbers in it.
#[test]
fn format_meter_writes_what_tqdm_writes() {
    let (out, err, code) = run(&fixture("format_meter.py"));
    assert_eq!(code, Some(0), "{err}");
    let want = std::fs::read_to_string(fixture("format_meter.out")).unwrap();
    for (k, (got, want)) in out.lines().zip(want.lines()).enumerate() {
        assert_eq!(got, want, "line {}", k + 1);
    }
    assert_eq!(out.lines().count(), want.lines().count());
}

/// Rates and times are the machine's; the padding that erases a longer
/// line before goes with them.
fn masked(stderr: &str) -> String {
    let rate = fancy_regex::Regex::new(r"[0-9]+\.[0-9]+(it|img)/s").unwrap();
    let time = fancy_regex::Regex::new(r"[0-9]{2}:[0-9]{2}").unwrap();
    let pad = fancy_regex::Regex::new(r" +(?=\r|\n|$)").unwrap();
    let s = rate.replace_all(stderr, "R");
    let s = time.replace_all(&s, "T");
    pad.replace_all(&s, "").into_owned()
}

/// Bars over a range and a list, moved by `update`, with a description
/// and a postfix, `leave=False`, `disable`, `trange`, `tqdm.write` above
/// an open bar, `tqdm.auto`, a loop left by `break`, a bar on stdout with
/// a `bar_format`: every redraw, carriage returns and all.
#[test]
fn bars_draw_what_tqdm_draws() {
    let (out, err, code) = run(&fixture("bars.py"));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, std::fs::read_to_string(fixture("bars.out")).unwrap());
    let want = std::fs::read_to_string(fixture("bars.err")).unwrap();
    assert_eq!(masked(&err), masked(&want));
    assert!(err.contains("\rtrain: 100%|██████████| 4/4 ["), "{err}");
}

/// `cudash script` shows what the program prints as it prints it: a line
/// at once, and a line's start that a carriage return flushed (a progress
/// bar) before the line ends. The program waits for the test to see both.
#[test]
fn a_script_shows_its_output_as_it_prints() {
    let dir = std::env::temp_dir().join(format!("cudash-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let go = dir.join("go");
    let program = dir.join("live.py");
    std::fs::write(
        &program,
        format!(
            "import os, sys, time
def wait():
    t = time.time()
    while not os.path.exists({go:?}):
        if time.time() - t > 30:
            print('not seen in 30 s')
            sys.exit(3)
        time.sleep(0.01)
    os.remove({go:?})
def main():
    print('first line')
    wait()
    sys.stderr.write('\\rstep 1')
    wait()
    sys.stderr.write('\\rstep 2\\n')
    print('done')
main()
",
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", "0", "script"])
        .arg(&program)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "first line\n");
    std::fs::write(&go, "").unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 64];
    while !String::from_utf8_lossy(&seen).contains("step 1") {
        let n = stderr.read(&mut buf).unwrap();
        assert!(n > 0, "stderr ended: {:?}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    std::fs::write(&go, "").unwrap();
    stderr.read_to_end(&mut seen).unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&seen), "\rstep 1\rstep 2\n");
    assert_eq!(rest, "done\n");
    std::fs::remove_dir_all(&dir).ok();
}

/// In a transcript (`cudash run`), which shows each statement's outputs
/// after it, a flushed line's start waits for its end: the line is shown
/// whole, under the statement that ended it.
#[test]
fn a_transcript_keeps_a_flushed_line_whole() {
    let dir = std::env::temp_dir().join(format!("cudash-flushed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("flushed.py");
    std::fs::write(
        &file,
        "import sys\nprint('loading', end=' ', flush=True)\nprint('done')\nsys.stderr.write('\\rstep 1')\nsys.stderr.write('\\rstep 2\\n')\nprint(1, end='\\r')\nprint(2)\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", "0", "run"])
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(">>> print('done')\nloading done\n"), "{out:?}");
    assert!(out.contains("\\n')\n\rstep 1\rstep 2\n8\n"), "{out:?}");
    assert!(out.contains(">>> print(2)\n1\r2\n"), "{out:?}");
    std::fs::remove_dir_all(&dir).ok();
}
