//! The terminal REPL: rustyline with highlighting, completion, hints and
//! multi-line input; coloured device tags; a live allocator status line; meta
//! commands. It talks only to `Session`. Without a terminal (`cudash < script`)
//! it falls back to plain line-by-line input.

mod columns;
pub mod helper;
pub mod highlight;
pub mod lines;
pub mod progress;

use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nu_ansi_term::{Color, Style};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{CompletionType, Config as RlConfig, Editor, ExternalPrinter};

pub use columns::terminal_columns;

use crate::display::wrap;
use crate::lang::Completeness;
use crate::session::Output;
use crate::session::{Config, Outcome, Session};
use crate::vocab::human_bytes;
use helper::ReplHelper;

pub fn run(config: Config) -> u8 {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return lines::run(config);
    }
    let rl_config = RlConfig::builder()
        .completion_type(CompletionType::List)
        .auto_add_history(false)
        .build();
    let mut rl: Editor<ReplHelper, DefaultHistory> = match Editor::with_config(rl_config) {
        Ok(rl) => rl,
        Err(e) => {
            // The user's options still hold (devices, seed, memory, colour).
            eprintln!("cudash: cannot start the line editor ({e}); reading plain lines instead");
            return lines::run(config);
        }
    };
    let color = config.color;
    let mut s = match Session::open(config) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let shown = progress::Shown::default();
    s.set_progress(progress::bar(shown.clone()));
    // What a statement prints shows as it prints it (a long loop's lines,
    // a tqdm bar), as in Python's REPL.
    s.set_terminal_streams();
    s.set_output_sink(move |o| {
        let own_progress = matches!(o, Output::Partial { .. });
        shown.around(own_progress, || print_output(&o, color, terminal_columns()));
    });
    // `profile`'s timeline fills the terminal (transcripts keep 80 columns).
    s.set_width(terminal_columns());
    let session = Rc::new(RefCell::new(s));
    // Ctrl-C while a statement runs stops it; while typing, rustyline cancels the line.
    session.borrow().interrupt_on_ctrl_c();

    rl.set_helper(Some(ReplHelper {
        session: Rc::clone(&session),
        color,
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }

    let mut repl = Repl {
        session,
        color,
        status: true,
        transcript: Vec::new(),
        watching: None,
    };
    println!("{}", repl.session.borrow().banner());
    let paint_prompt = |p: &str| match color {
        true => Color::Green.bold().paint(p).to_string(),
        false => p.to_string(),
    };
    let (prompt, more) = (paint_prompt(">>> "), paint_prompt("... "));
    // A cell is read line by line, as Python's REPL does: `>>> ` for its
    // first line, `... ` (with the block's indent typed for you) while the
    // parser says it is not finished; a blank line runs it as it is.
    let mut cell = String::new();
    let mut indent = String::new();
    loop {
        let read = match cell.is_empty() {
            true => rl.readline(&prompt),
            false => rl.readline_with_initial(&more, (&indent, "")),
        };
        match read {
            Ok(input) => {
                if cell.is_empty() && input.trim().is_empty() {
                    continue;
                }
                if !input.trim().is_empty() {
                    let _ = rl.add_history_entry(input.trim_end());
                    if let Some(h) = &history {
                        let _ = rl.append_history(h);
                    }
                }
                if cell.is_empty() && input.starts_with(':') {
                    let input = input.trim_end();
                    if let Some(arg) = input.strip_prefix(":watch") {
                        repl.watch(arg.trim(), &mut rl);
                    } else if repl.meta(input) {
                        break;
                    }
                    continue;
                }
                cell.push_str(input.trim_end());
                cell.push('\n');
                let blank = input.trim().is_empty();
                if !blank {
                    let done = repl.session.borrow().is_complete(&cell);
                    if let Completeness::Incomplete { indent: next } = done {
                        indent = next;
                        continue;
                    }
                }
                let src = std::mem::take(&mut cell);
                repl.run_cell(src.trim_end());
            }
            // Ctrl-C while typing drops the whole cell, as in Python.
            Err(ReadlineError::Interrupted) => cell.clear(),
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("cudash: {e}");
                break;
            }
        }
    }
    repl.stop_watching();
    0
}

struct Repl {
    session: Rc<RefCell<Session>>,
    color: bool,
    status: bool,
    /// Cells that ran without error, for `:save`.
    transcript: Vec<String>,
    /// `:watch on`: the stop flag of the thread printing drained streams.
    watching: Option<Arc<AtomicBool>>,
}

impl Repl {
    fn run_cell(&mut self, src: &str) {
        let outcome = self.session.borrow_mut().execute_guarded(src);
        if outcome.error.is_none() {
            self.transcript.push(src.to_string());
        }
        print_outcome(&outcome, self.color);
        if self.status {
            let line = status_line(&self.session.borrow());
            if !line.is_empty() {
                println!("{}", self.paint(Style::new().dimmed(), &line));
            }
        }
    }

    /// `:watch on|off`: on a GPU, a thread polls the streams and prints a
    /// line above the prompt whenever one drains.
    fn watch(&mut self, arg: &str, rl: &mut Editor<ReplHelper, DefaultHistory>) {
        match arg {
            "off" => {
                self.stop_watching();
                println!("stopped watching streams");
            }
            "on" if self.watching.is_some() => println!("already watching streams"),
            "on" => {
                let Some(mut watcher) = self.session.borrow().stream_watcher() else {
                    println!("{}", watch_unavailable());
                    return;
                };
                let mut printer = match rl.create_external_printer() {
                    Ok(p) => p,
                    Err(e) => {
                        println!("cannot watch streams in this terminal: {e}");
                        return;
                    }
                };
                let stop = Arc::new(AtomicBool::new(false));
                let stopped = Arc::clone(&stop);
                std::thread::spawn(move || {
                    while !stopped.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(100));
                        for line in watcher.poll() {
                            if printer.print(format!("{line}\n")).is_err() {
                                return;
                            }
                        }
                    }
                });
                self.watching = Some(stop);
                println!("watching streams: a line whenever one drains (`:watch off` stops)");
            }
            _ => println!("usage: :watch on|off"),
        }
    }

    fn stop_watching(&mut self) {
        if let Some(stop) = self.watching.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    fn paint(&self, style: Style, s: &str) -> String {
        if self.color {
            style.paint(s).to_string()
        } else {
            s.to_string()
        }
    }

    /// Runs a `:command`; returns true to quit.
    fn meta(&mut self, input: &str) -> bool {
        let (cmd, arg) = input
            .split_once(' ')
            .map_or((input, ""), |(c, a)| (c, a.trim()));
        match cmd {
            ":quit" | ":q" | ":exit" => return true,
            ":help" => println!("{}", meta_help()),
            ":vars" => {
                let vars = self.session.borrow().vars();
                if vars.is_empty() {
                    println!("no variables");
                }
                for v in vars {
                    let bytes = if v.bytes > 0 {
                        human_bytes(v.bytes as u128)
                    } else {
                        String::new()
                    };
                    println!("{:<16} {:<40} {:>12}", v.name, v.summary, bytes);
                }
            }
            ":reset" => {
                self.session.borrow_mut().reset();
                self.transcript.clear();
                println!("every variable forgotten; the generator is reseeded");
            }
            ":backend" => println!("{}", self.session.borrow().devices_table()),
            ":status" => match arg {
                "on" => self.status = true,
                "off" => self.status = false,
                _ => println!("usage: :status on|off"),
            },
            ":load" => match std::fs::read_to_string(arg) {
                Ok(src) => self.run_cell(&src),
                Err(e) => println!("cannot read `{arg}`: {e}"),
            },
            ":save" => {
                let text = self.transcript.join("\n") + "\n";
                match std::fs::write(arg, text) {
                    Ok(()) => println!("saved {} cell(s) to {arg}", self.transcript.len()),
                    Err(e) => println!("cannot write `{arg}`: {e}"),
                }
            }
            other => println!("unknown command `{other}`; :help lists them"),
        }
        false
    }
}

/// Why `:watch` has nothing to report on this session's devices.
fn watch_unavailable() -> &'static str {
    ":watch reports streams draining while you type, which happens only on a real GPU \
     (`--backend cuda`). Simulated and emulated devices complete queued work at sync points \
     (`sync`, a host read, an event's `.sync()`), so no stream drains by itself: the status line \
     shows what is pending, and `sync` drains it."
}

fn meta_help() -> &'static str {
    ":help           this list (`help` explains the language)\n\
     :vars           variables: name, dtype, shape, device, bytes\n\
     :reset          forget every variable\n\
     :load FILE      run a script\n\
     :save FILE      write the cells that ran as a script\n\
     :backend        the device table\n\
     :status on|off  the allocator line after each statement\n\
     :watch on|off   a line whenever a stream drains (real GPUs only)\n\
     :quit           leave (Ctrl-D too); Ctrl-C cancels the line or stops a running loop"
}

/// Prints what a statement produced: values and text, warnings in yellow,
/// the error report last. With `color`, device tags are coloured.
/// What a statement showed, in the terminal: long warnings and error
/// reports broken between words to its width.
pub fn print_outcome(o: &Outcome, color: bool) {
    let width = terminal_columns();
    for out in &o.outputs {
        print_output(out, color, width);
    }
    if let Some(e) = &o.error {
        print!("{}", wrap::report(&e.report, width));
    }
}

/// A line's flushed start (`Output::Partial`), shown at once without its
/// end: the terminal, or the file or pipe a script's output goes to.
pub fn print_partial(stderr: bool, text: &str) {
    use std::io::Write;
    let _ = match stderr {
        true => write!(std::io::stderr(), "{text}").and_then(|()| std::io::stderr().flush()),
        false => write!(std::io::stdout(), "{text}").and_then(|()| std::io::stdout().flush()),
    };
}

/// One output in the terminal; a line's flushed start (`Partial`) at
/// once, without its end.
fn print_output(out: &Output, color: bool, width: usize) {
    match out {
        Output::Warning(s) if color => {
            println!("{}", Color::Yellow.paint(wrap::warning(s, width)))
        }
        Output::Warning(s) => println!("{}", wrap::warning(s, width)),
        // Clearing the screen only makes sense on a terminal.
        Output::Clear { .. } => {
            if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                print!("\x1b[H\x1b[2J");
            }
        }
        Output::Partial { stderr, text } => print_partial(*stderr, text),
        o if color => println!("{}", highlight::color_tags(o.text())),
        o => println!("{}", o.text()),
    }
}

/// One dim line per device with activity: allocated, reserved and peak, and
/// each stream with queued work.
pub fn status_line(session: &Session) -> String {
    session
        .status()
        .devices
        .iter()
        .filter(|d| d.reserved > 0 || !d.streams.is_empty())
        .map(|d| {
            let mut line = format!(
                "cuda:{}  allocated {} · reserved {} · peak {}",
                d.index,
                human_bytes(d.allocated as u128),
                human_bytes(d.reserved as u128),
                human_bytes(d.peak_allocated as u128)
            );
            for s in &d.streams {
                line.push_str(&format!(" · {} {} pending", s.name, s.pending));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `$XDG_DATA_HOME/cudash/history`, else `~/.local/share/cudash/history`.
fn history_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    let dir = base.join("cudash");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("history"))
}
