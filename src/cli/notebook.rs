//! `cudash run lesson.ipynb`: a notebook's code cells run as a script.
//! `--check` compares each cell's fresh outputs with the ones saved in the
//! notebook (timings masked); `--save` writes them into it, as Jupyter would.

use std::io::IsTerminal;
use std::path::Path;

use super::transcript::{first_difference, prompted, Mode};
use crate::lesson::outputs::{self, comparable, mask_measured_timelines, CellOutput};
use crate::lesson::{help_query, Cell, Lesson};
use crate::session::{Config, Session};

pub fn run(config: Config, file: &Path, mode: &Mode) -> u8 {
    let lesson = match Lesson::read(file) {
        Ok(l) => l,
        Err(msg) => {
            eprintln!("cudash: {msg}");
            return 2;
        }
    };
    if mode.check || mode.save {
        check_or_save(config, file, lesson, mode.save)
    } else {
        transcript(config, &lesson, mode.keep_going)
    }
}

/// Each code cell's statements and outputs, as `cudash run` shows a script.
/// A cell tagged `raises-exception` may fail; any other failure stops the run.
fn transcript(config: Config, lesson: &Lesson, keep_going: bool) -> u8 {
    let mut session = match Session::open(Config {
        color: config.color && std::io::stdout().is_terminal(),
        ..config
    }) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let interrupted = session.interrupt_on_ctrl_c();
    let mut failed = false;
    for (i, cell) in lesson.cells.iter().enumerate() {
        if !cell.runs() {
            continue;
        }
        if let Some(name) = help_query(&cell.source) {
            print!("{}", prompted(cell.source.trim()));
            match session.inspect(name, name.len()) {
                Some(help) => println!("{help}"),
                None => println!("no builtin, method or variable named `{name}`"),
            }
            continue;
        }
        let name = format!("cell {}", i + 1);
        let ok = session.run_script(&name, &cell.source, false, |text, outcome| {
            if !text.is_empty() {
                print!("{}", prompted(text));
            }
            let out = outcome.plain_text();
            if !out.is_empty() {
                println!("{out}");
            }
        });
        if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!("cudash: interrupted at cell {}", i + 1);
            return super::INTERRUPTED;
        }
        if !ok && !cell.expects_error {
            failed = true;
            if !keep_going {
                eprintln!("cudash: stopped at cell {} (tag it `raises-exception` if its error is part of the lesson)", i + 1);
                break;
            }
        }
    }
    // As `make -k`: going on past a failure still ends in failure.
    u8::from(failed)
}

/// The outputs Jupyter would save for a cell.
fn fresh_outputs(session: &mut Session, cell: &Cell) -> Vec<CellOutput> {
    match help_query(&cell.source) {
        Some(_) => Vec::new(),
        None => outputs::from_outcome(session.execute(&cell.source)),
    }
}

fn check_or_save(config: Config, file: &Path, lesson: Lesson, save: bool) -> u8 {
    let mut session = match Session::open(config) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let interrupted = session.interrupt_on_ctrl_c();
    if save {
        session.enable_html();
    }
    let mut notebook = lesson
        .notebook
        .expect("a notebook lesson keeps its notebook");
    let mut count = 0;
    let mut problems = 0;
    for (i, cell) in lesson.cells.iter().enumerate() {
        if !cell.runs() {
            if cell.kind == crate::lesson::CellKind::Code {
                notebook.set_outputs(i, &[], None);
            }
            continue;
        }
        count += 1;
        let fresh = fresh_outputs(&mut session, cell);
        if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!("cudash: interrupted at cell {}; nothing written", i + 1);
            return super::INTERRUPTED;
        }
        let failed = fresh.iter().any(|o| matches!(o, CellOutput::Error { .. }));
        if failed != cell.expects_error {
            problems += 1;
            let what = if failed {
                "fails but is not tagged `raises-exception`"
            } else {
                "is tagged `raises-exception` but runs without error"
            };
            println!("cell {} {what}:\n{}", i + 1, indent(&cell.source));
            if failed {
                println!("{}", indent(&comparable(&fresh)));
            }
        }
        if save {
            notebook.set_outputs(i, &fresh, Some(count));
        } else if let Some(diff) = difference(&cell.saved, &fresh) {
            problems += 1;
            println!(
                "cell {} shows other outputs than saved:\n{}\n{diff}",
                i + 1,
                indent(&cell.source)
            );
        }
    }
    if save {
        if let Err(e) = std::fs::write(file, notebook.to_json_string()) {
            eprintln!("cudash: cannot write `{}`: {e}", file.display());
            return 2;
        }
        println!("wrote the outputs of {count} cells into {}", file.display());
    } else if problems == 0 {
        println!(
            "ok: {count} cells match the outputs saved in {}",
            file.display()
        );
    }
    u8::from(problems > 0)
}

/// The first lines where `fresh` differs from `saved`, or `None` when they agree.
fn difference(saved: &[CellOutput], fresh: &[CellOutput]) -> Option<String> {
    let (s, f) = mask_measured_timelines(comparable(saved), comparable(fresh));
    if s == f {
        return None;
    }
    Some(first_difference(&s, &f, "  "))
}

fn indent(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
