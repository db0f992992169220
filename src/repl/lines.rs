//! A line-based REPL on standard input. With a terminal it shows prompts; piped
//! input (`cudash < script`) runs plainly. A cell runs once the parser says it is
//! complete; a blank line forces it through.

use std::io::{self, BufRead, IsTerminal, Write};

use crate::lang::{self, Completeness};
use crate::session::{Config, Session};

pub fn run(config: Config) -> u8 {
    let stdin = io::stdin();
    let tty = stdin.is_terminal();
    let mut session = match Session::open(Config {
        color: config.color && io::stdout().is_terminal(),
        ..config
    }) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if tty {
        println!("{}", session.banner());
    }
    let mut buf = String::new();
    let mut held_blank = false;
    let mut failed = false;
    let mut lines = stdin.lock().lines();
    loop {
        if tty {
            print!("{}", if buf.is_empty() { ">>> " } else { "... " });
            let _ = io::stdout().flush();
        }
        let line = match lines.next() {
            Some(Ok(l)) => l,
            Some(Err(e)) => {
                eprintln!("cudash: cannot read input: {e}");
                return 2;
            }
            None => break,
        };
        let blank = line.trim().is_empty();
        if buf.is_empty() && blank {
            continue;
        }
        // Piped input is a file: a blank line inside a Python block goes on
        // while the next line is indented (`python < file` runs it whole).
        if !tty && held_blank && !blank && !line.starts_with([' ', '\t']) {
            failed |= show(&mut session, &buf);
            buf.clear();
        }
        held_blank = blank && !tty && lang::ends_in_block(&buf);
        buf.push_str(&line);
        buf.push('\n');
        let ready = !held_blank
            && (blank || !matches!(session.is_complete(&buf), Completeness::Incomplete { .. }));
        if ready {
            failed |= show(&mut session, &buf);
            buf.clear();
        }
    }
    if !buf.trim().is_empty() {
        failed |= show(&mut session, &buf);
    }
    u8::from(failed && !tty)
}

fn show(session: &mut Session, src: &str) -> bool {
    let outcome = session.execute_guarded(src);
    let text = outcome.plain_text();
    if !text.is_empty() {
        println!("{text}");
    }
    outcome.error.is_some()
}
