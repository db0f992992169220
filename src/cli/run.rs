//! `cudash run FILE`: a script as a transcript, optionally checked against
//! FILE.out. Notebooks go to `notebook.rs`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::transcript::{first_difference, prompted, Mode};
use crate::lesson::outputs::{mask_for_check, mask_measured_timelines};
use crate::session::{Config, Session};

pub fn run(config: Config, file: &Path, args: &[String], mode: Mode) -> u8 {
    if crate::lesson::is_notebook(file) {
        return super::notebook::run(config, file, &mode);
    }
    let src = match crate::lesson::read_text(file) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("cudash: {msg}");
            return 2;
        }
    };
    // The bare file name keeps transcripts identical wherever the script is run from.
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let plain = mode.check || mode.save;
    let mut session = match Session::open(Config {
        // No colour escapes where they would land in a file or a pager.
        color: config.color && !plain && std::io::stdout().is_terminal(),
        ..config
    }) {
        Ok(s) => s,
        Err(code) => return code,
    };
    session.set_argv(file, args);
    let interrupted = session.interrupt_on_ctrl_c();
    let mut transcript = String::new();
    let ok = session.run_script(&name, &src, mode.keep_going, |text, outcome| {
        let mut chunk = String::new();
        if !text.is_empty() {
            chunk.push_str(&prompted(text));
        }
        let out = outcome.plain_text();
        if !out.is_empty() {
            chunk.push_str(&out);
            chunk.push('\n');
        }
        if !plain {
            print!("{chunk}");
        }
        transcript.push_str(&chunk);
    });
    if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("cudash: interrupted");
        return super::INTERRUPTED;
    }
    let expected_path = expected_path(file);
    if mode.save {
        if let Err(e) = std::fs::write(&expected_path, &transcript) {
            eprintln!("cudash: cannot write `{}`: {e}", expected_path.display());
            return 2;
        }
        println!("wrote {}", expected_path.display());
        return u8::from(!ok);
    }
    if mode.check {
        return check(&expected_path, &transcript);
    }
    if let Some(code) = session.exit_code() {
        return exit_status(code);
    }
    // As `make -k`: going on past a failure still ends in failure.
    u8::from(!ok)
}

/// The process's exit status for `sys.exit(code)`: as a shell sees it
/// (modulo 256; Python's `sys.exit(-1)` exits 255).
fn exit_status(code: i32) -> u8 {
    code.rem_euclid(256) as u8
}

/// `cudash script FILE`: the file run as Python runs one. What it prints
/// goes to stdout as it is printed; no statement is echoed and no
/// expression's value shown; warnings and the error that stops it go to
/// stderr. Exit status 1 after an error, as `python FILE`.
pub fn script(config: Config, file: &Path, args: &[String]) -> u8 {
    let src = match crate::lesson::read_text(file) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("cudash: {msg}");
            return 2;
        }
    };
    let name = file.display().to_string();
    let mut session = match Session::open(Config {
        color: config.color && std::io::stderr().is_terminal(),
        ..config
    }) {
        Ok(s) => s,
        Err(code) => return code,
    };
    session.set_echo(false);
    session.set_argv(file, args);
    // What the program prints shows as it prints it (a training loop's
    // lines, a progress bar), as Python's line-buffered streams show it.
    session.set_output_sink(|o| print_output(&o));
    session.set_terminal_streams();
    let interrupted = session.interrupt_on_ctrl_c();
    let ok = session.run_script(&name, &src, false, |_, outcome| print_outcome(&outcome));
    if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("cudash: interrupted");
        return super::INTERRUPTED;
    }
    match session.exit_code() {
        Some(code) => exit_status(code),
        None => u8::from(!ok),
    }
}

/// `cudash launch --nproc-per-node N file`: the file run by N ranks at
/// once (`Session::launch`), what they print on stdout, a failure's
/// report (torchrun's summary, then the rank's error) on stderr.
pub fn launch(
    config: Config,
    (file, args): (&Path, &[String]),
    nprocs: &str,
    (nnodes, node_rank): (&str, u32),
) -> u8 {
    if nnodes != "1" || node_rank != 0 {
        eprintln!(
            "cudash launch: --nnodes {nnodes} --node-rank {node_rank}: cudash launches one node \
             (its ranks are threads of one process, over this machine's devices); ranks on \
             several machines need processes that meet over a TCP store, which is not built \
             (docs/distributed.md, *Several processes*)"
        );
        return 2;
    }
    let src = match crate::lesson::read_text(file) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("cudash: {msg}");
            return 2;
        }
    };
    let mut session = match Session::open(Config {
        color: config.color && std::io::stderr().is_terminal(),
        ..config
    }) {
        Ok(s) => s,
        Err(code) => return code,
    };
    session.set_argv(file, args);
    let n = match nprocs {
        "gpu" | "auto" => session.cuda_device_count().max(1),
        "cpu" => 1,
        n => match n.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                eprintln!(
                    "cudash launch: --nproc-per-node {n}: give a number of ranks (1 or more), \
                     or gpu (one per CUDA device)"
                );
                return 2;
            }
        },
    };
    session.set_echo(false);
    let interrupted = session.interrupt_on_ctrl_c();
    let outcome = session.launch(&file.display().to_string(), &src, n);
    print_outcome(&outcome);
    if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("cudash: interrupted");
        return super::INTERRUPTED;
    }
    u8::from(outcome.error.is_some())
}

/// What a program printed on stdout, warnings and its error's report on
/// stderr, as Python shows them.
fn print_outcome(outcome: &crate::session::Outcome) {
    for o in &outcome.outputs {
        print_output(o);
    }
    if let Some(e) = &outcome.error {
        eprint!("{}", e.report);
    }
}

/// One output of a program: stdout's lines, and stderr's (warnings too);
/// a line's flushed start at once, without its end.
fn print_output(o: &crate::session::Output) {
    use crate::session::Output;
    match o {
        Output::Warning(w) => eprintln!("warning: {w}"),
        Output::Stderr(t) => eprintln!("{t}"),
        Output::Partial { stderr, text } => crate::repl::print_partial(*stderr, text),
        Output::Clear { .. } => {}
        other => println!("{}", other.text()),
    }
}

/// `script.cudash` -> `script.cudash.out`.
pub fn expected_path(file: &Path) -> PathBuf {
    let mut p = file.as_os_str().to_owned();
    p.push(".out");
    PathBuf::from(p)
}

fn check(expected_path: &Path, actual: &str) -> u8 {
    let expected = match std::fs::read_to_string(expected_path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "cudash: cannot read the expected transcript `{}`: {e}\n(create it with `cudash run FILE --save`)",
                expected_path.display()
            );
            return 2;
        }
    };
    let (e, a) = mask_measured_timelines(mask_for_check(&expected), mask_for_check(actual));
    if e == a {
        println!("ok: transcript matches {}", expected_path.display());
        return 0;
    }
    println!("transcript differs from {}:", expected_path.display());
    print!("{}", first_difference(&e, &a, ""));
    1
}
