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
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while p.get_process().is_alive().unwrap_or(false) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!p.get_process().is_alive().unwrap_or(false), "Ctrl-D exits");
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
    p.expect("NameError: unknown name `nope`").unwrap();
    p.expect(READY).unwrap();
    quit(p);
}

#[test]
fn tab_completes_names_and_methods() {
    let mut p = start();
    line(&mut p, "weights = ones(3)");
    p.send("weig\t").unwrap();
    p.expect(">>> weights").unwrap();
    p.send(".su\t").unwrap();
    p.expect(">>> weights.sum").unwrap();
    p.send("()\r").unwrap();
    p.expect("3.  f32[] @cpu").unwrap();
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
    // Inside one readline the block's lines can be typed in one go.
    p.send("for i in 0..3 {\r  x = x * 2\r}\r").unwrap();
    p.expect(READY).unwrap();
    p.send("x\r").unwrap();
    p.expect("[8., 8.]  f32[2] @cpu").unwrap();
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
