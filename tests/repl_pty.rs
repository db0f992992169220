//! The terminal REPL end to end in a real pseudo-terminal: type, complete,
//! write a multi-line block, interrupt a long loop, read the screen.
//!
//! rustyline switches the terminal mode between prompts, which drops
//! type-ahead, so each step waits until the REPL is ready: every prompt is
//! preceded by the bracketed-paste switch `ESC [?2004h`.

use std::process::Command;
use std::time::Duration;

use expectrl::session::OsSession;
use expectrl::{ControlCode, Expect, Session};

const READY: &str = "\u{1b}[?2004h";

fn start() -> OsSession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cudash"));
    let home = std::env::temp_dir().join(format!("cudash-pty-{}", std::process::id()));
    cmd.arg("--no-color")
        .env("XDG_DATA_HOME", &home)
        .env("TERM", "xterm");
    let mut p = Session::spawn(cmd).expect("spawn cudash in a pty");
    p.set_expect_timeout(Some(Duration::from_secs(20)));
    p.expect("backend: sim").unwrap();
    p.expect(READY).unwrap();
    p
}

/// Types `input` and Enter, and waits for the next prompt.
fn line(p: &mut OsSession, input: &str) {
    p.send(format!("{input}\r")).unwrap();
    p.expect(READY).unwrap();
}

fn quit(mut p: OsSession) {
    p.send(ControlCode::EndOfTransmission).unwrap();
    assert!(exits(&mut p), "Ctrl-D exits");
}

#[test]
fn statements_values_and_the_status_line() {
    let mut p = start();
    p.send("x = [1., 2.].to(cuda:1)\r").unwrap();
    p.expect("cuda:1  allocated 512 B · reserved 2.0 MiB")
        .unwrap();
    p.expect(READY).unwrap();
    p.send("x * 2\r").unwrap();
    p.expect("[2., 4.]  f32[2] @cuda:1").unwrap();
    p.expect(READY).unwrap();
    p.send(":vars\r").unwrap();
    p.expect("f32 [2] @cuda:1").unwrap();
    p.expect(READY).unwrap();
    p.send("x + nope\r").unwrap();
    p.expect("NameError: name 'nope' is not defined").unwrap();
    p.expect(READY).unwrap();
    p.send(":watch on\r").unwrap();
    p.expect("only on a real GPU").unwrap();
    p.expect(READY).unwrap();
    quit(p);
}

#[test]
fn tab_completes_names_and_methods() {
    let mut p = start();
    line(&mut p, "weights = ones(3)");
    p.send("weig\t").unwrap();
    p.expect(">>> weights").unwrap();
    p.send(".mea\t").unwrap();
    p.expect(">>> weights.mean").unwrap();
    p.send("()\r").unwrap();
    p.expect("1.  f32[] @cpu").unwrap();
    p.expect(READY).unwrap();
    p.send("rand\t\t").unwrap();
    p.expect("randn_like").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect(READY).unwrap();
    quit(p);
}

#[test]
fn multi_line_blocks_wait_for_the_closing_brace() {
    let mut p = start();
    line(&mut p, "x = ones(2)");
    // Each further line of a block gets Python's `... ` prompt, with the
    // block's indent already typed.
    p.send("for i in 0..3 {\r").unwrap();
    p.expect(READY).unwrap();
    p.expect("... ").unwrap();
    p.send("x = x * 2\r").unwrap();
    p.expect(READY).unwrap();
    p.expect("...   ").unwrap();
    p.send("\u{8}\u{8}}\r").unwrap();
    p.expect(READY).unwrap();
    p.send("x\r").unwrap();
    p.expect("[8., 8.]  f32[2] @cpu").unwrap();
    p.expect(READY).unwrap();
    // A bracket left open continues the statement too; Ctrl-C drops the
    // unfinished cell.
    p.send("y = [1.,\r").unwrap();
    p.expect("... ").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect(">>> ").unwrap();
    p.send("y\r").unwrap();
    p.expect("NameError: name 'y' is not defined").unwrap();
    p.expect(READY).unwrap();
    quit(p);
}

/// A Python block (`for ...:`) goes on with its indentation already typed
/// until a blank line, as in Python's REPL; `elif`/`else` come back out.
#[test]
fn python_blocks_end_at_a_blank_line() {
    let mut p = start();
    line(&mut p, "total = 0");
    p.send("for i in range(4):\r").unwrap();
    p.expect(READY).unwrap();
    p.expect("...     ").unwrap();
    p.send("if i % 2 == 0:\r").unwrap();
    p.expect(READY).unwrap();
    p.expect("...         ").unwrap();
    p.send("total += i\r").unwrap();
    p.expect(READY).unwrap();
    p.expect("...         ").unwrap();
    // Back out to the `if`'s level for its `else`.
    p.send("\u{8}\u{8}\u{8}\u{8}else:\r").unwrap();
    p.expect(READY).unwrap();
    p.send("total += 10 * i\r").unwrap();
    p.expect(READY).unwrap();
    p.send("\r").unwrap();
    p.expect(READY).unwrap();
    p.send("print(f\"total = {total}\")\r").unwrap();
    p.expect("total = 42").unwrap();
    p.expect(READY).unwrap();
    quit(p);
}

#[test]
fn ctrl_c_stops_a_loop_and_keeps_variables() {
    let mut p = start();
    line(&mut p, "earlier = arange(3)");
    line(&mut p, "k = 0");
    p.send("for i in 0..1000000000 { k = k + 1 }\r").unwrap();
    std::thread::sleep(Duration::from_millis(800));
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("Interrupted").unwrap();
    p.expect(READY).unwrap();
    p.send("[k, earlier.sum().item()]\r").unwrap();
    p.expect("[0, 3]  i64[2] @cpu").unwrap();
    p.expect(READY).unwrap();
    // Ctrl-C at the prompt cancels the line being typed.
    p.send("half typed").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect(READY).unwrap();
    p.send("earlier\r").unwrap();
    p.expect("[0, 1, 2]  i64[3] @cpu").unwrap();
    p.expect(READY).unwrap();
    quit(p);
}

#[test]
fn long_loops_show_progress_after_a_second() {
    let mut p = start();
    p.send("for i in 0..1000000000 { j = i }\r").unwrap();
    p.expect("Ctrl-C stops").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("Interrupted").unwrap();
    p.expect(READY).unwrap();
    quit(p);
}

/// `cudash present FILE` in a terminal, where keys act at once (no Enter after `b`).
fn present(file: &str) -> OsSession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cudash"));
    cmd.args(["--no-color", "present", file])
        .env("TERM", "xterm");
    let mut p = Session::spawn(cmd).expect("spawn cudash present in a pty");
    p.set_expect_timeout(Some(Duration::from_secs(20)));
    p
}

const HINT: &str = "⏎ run · b back · r rerun · q quit";

fn exits(p: &mut OsSession) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while p.get_process().is_alive().unwrap_or(false) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    !p.get_process().is_alive().unwrap_or(false)
}

#[test]
fn present_steps_through_a_lesson() {
    let dir = std::env::temp_dir().join(format!("cudash-present-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lesson.cudash");
    std::fs::write(
        &file,
        "# Placement\n# where tensors **live**\n\nx = ones(2, device=cuda:1)\nx\n\n\
         # A long loop: Ctrl-C stops it.\nfor i in 0..1000000000 {\n  n = i\n}\n\nx * 2\n",
    )
    .unwrap();
    let mut p = present(file.to_str().unwrap());
    p.expect("lesson.cudash · 3 cells to run").unwrap();
    p.expect("Placement").unwrap();
    p.expect("where tensors live").unwrap();
    p.expect("── cell 1/3 ").unwrap();
    // Each statement with the REPL's prompts.
    p.expect(">>> x = ones(2, device=cuda:1)").unwrap();
    p.expect(">>> x").unwrap();
    p.expect(HINT).unwrap();
    p.send("\r").unwrap();
    p.expect("[1., 1.]  f32[2] @cuda:1").unwrap();
    p.expect("cuda:1  allocated 512 B · reserved 2.0 MiB")
        .unwrap();
    p.expect("A long loop: Ctrl-C stops it.").unwrap();
    p.expect("── cell 2/3 ").unwrap();
    p.expect(HINT).unwrap();
    // Back: cell 1 again, shown, not run.
    p.send("b").unwrap();
    p.expect("── cell 1/3 ").unwrap();
    p.expect(HINT).unwrap();
    // Rerun: the last cell that ran (cell 1) runs again.
    p.send("r").unwrap();
    p.expect("[1., 1.]  f32[2] @cuda:1").unwrap();
    p.expect(HINT).unwrap();
    p.send("\r").unwrap();
    p.expect("── cell 2/3 ").unwrap();
    p.expect(">>> for i in 0..1000000000 {").unwrap();
    p.expect("...   n = i").unwrap();
    p.expect("... }").unwrap();
    p.expect(HINT).unwrap();
    // Run the long loop, then stop it; the session keeps `x`.
    p.send("\r").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("Interrupted").unwrap();
    p.expect("── cell 3/3 ").unwrap();
    p.expect(HINT).unwrap();
    p.send("\r").unwrap();
    p.expect("[2., 2.]  f32[2] @cuda:1").unwrap();
    p.expect("end of the lesson").unwrap();
    p.send("q").unwrap();
    assert!(exits(&mut p), "q quits");
}

#[test]
fn present_shows_a_notebook_lesson() {
    let file = format!(
        "{}/notebooks/01-devices-and-placement.ipynb",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut p = present(&file);
    p.expect("Lesson 1 · Devices and placement").unwrap();
    p.expect("═══").unwrap();
    p.expect("Every tensor lives on one device:").unwrap();
    p.expect("── cell 1/13 ").unwrap();
    p.expect(HINT).unwrap();
    p.send("\r").unwrap();
    p.expect("cuda:1  NVIDIA H100 (simulated, 16.0 GiB)")
        .unwrap();
    p.expect("Where a tensor is made").unwrap();
    p.expect(HINT).unwrap();
    // Ctrl-C while waiting for a key quits too.
    p.send(ControlCode::EndOfText).unwrap();
    assert!(exits(&mut p), "Ctrl-C at the prompt quits");
}

/// `cudash script` on a terminal: `sys.stderr.isatty()` is True and a
/// tqdm bar fills the terminal's width, as tqdm's does (without a
/// terminal it is ten cells: tests/python_tqdm.rs).
#[test]
fn a_script_on_a_terminal_draws_tqdm_to_its_width() {
    let dir = std::env::temp_dir().join(format!("cudash-pty-tqdm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bar.py");
    std::fs::write(
        &file,
        // It waits until the test has sized the window.
        "import os, sys, time\nfrom tqdm import tqdm\nt = time.time()\n\
         while os.get_terminal_size(2).columns != 60 and time.time() - t < 10:\n    \
         time.sleep(0.01)\nprint('tty', sys.stderr.isatty())\n\
         for i in tqdm(range(4), mininterval=0, desc='w'):\n    pass\nprint('end')\n",
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cudash"));
    cmd.args(["--sim-devices", "0", "script"]).arg(&file);
    let mut p = Session::spawn(cmd).expect("spawn cudash in a pty");
    p.get_process_mut().set_window_size(60, 20).unwrap();
    p.set_expect_timeout(Some(Duration::from_secs(20)));
    p.expect("tty True").unwrap();
    let seen = p.expect("end").unwrap();
    let text = String::from_utf8_lossy(seen.before()).into_owned();
    let last = text
        .rsplit('\r')
        .map(str::trim_end)
        .find(|l| l.starts_with("w: 100%"))
        .unwrap_or_else(|| panic!("no finished bar in {text:?}"));
    assert_eq!(last.chars().count(), 60, "{last:?}");
    std::fs::remove_dir_all(&dir).ok();
}
