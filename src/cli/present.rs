//! `cudash present FILE`: step through a lesson (a notebook or a script) in
//! the terminal, in front of a class. Narration shows as text; each code cell
//! is shown, then runs when you press Enter, and the allocator status line
//! follows it.
//!
//! Keys: Enter, space or → run the cell shown; `b` or ← go back one cell
//! (shown again, not undone: the session keeps its state); `r` runs the last
//! cell again; `q` (or Ctrl-D, or Ctrl-C while waiting) quits. Ctrl-C while a
//! cell runs stops it. Without a terminal, keys come one per line.

use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::path::Path;

use nu_ansi_term::{Color, Style};

use super::transcript::prompted;
use crate::lesson::{help_query, markdown, CellKind, Lesson};
use crate::repl::{highlight, print_outcome, status_line};
use crate::session::{Config, Session};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Run,
    Back,
    Rerun,
    Quit,
}

pub fn present(config: Config, file: &Path) -> u8 {
    let lesson = match Lesson::read(file) {
        Ok(l) => l,
        Err(msg) => {
            eprintln!("cudash: {msg}");
            return 2;
        }
    };
    let tty = io::stdin().is_terminal();
    let color = config.color && io::stdout().is_terminal();
    let mut session = match Session::open(Config { color, ..config }) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if tty && io::stdout().is_terminal() {
        session.set_progress(crate::repl::progress::bar(Default::default()));
    }
    session.interrupt_on_ctrl_c();
    let title = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut p = Presenter {
        code: (0..lesson.cells.len())
            .filter(|&i| lesson.cells[i].runs())
            .collect(),
        lesson,
        session,
        color,
        width: terminal_width(),
        keys: Keys::new(tty),
    };
    println!(
        "{}",
        p.paint(
            Style::new().bold(),
            &format!("{title} · {} cells to run", p.code.len())
        )
    );
    println!("{}\n", p.paint(Style::new().dimmed(), &p.session.banner()));
    p.present();
    0
}

struct Presenter {
    lesson: Lesson,
    /// The indices of the cells that run, in order.
    code: Vec<usize>,
    session: Session,
    color: bool,
    width: usize,
    keys: Keys,
}

impl Presenter {
    fn present(&mut self) {
        // `at`: the position (in `code`) of the cell shown and not yet run.
        let mut at = 0;
        let mut last_run: Option<usize> = None;
        let mut narrate = true;
        loop {
            self.show(at, narrate);
            let key = self.keys.next(if at < self.code.len() {
                "⏎ run · b back · r rerun · q quit"
            } else {
                "end of the lesson · b back · r rerun · q quit"
            });
            narrate = true;
            match key {
                Key::Quit => break,
                Key::Run if at < self.code.len() => {
                    self.run(self.code[at]);
                    last_run = Some(at);
                    at += 1;
                }
                Key::Run => break,
                Key::Back => at = at.saturating_sub(1),
                Key::Rerun => {
                    match last_run {
                        Some(l) => {
                            self.show_code(l);
                            self.run(self.code[l]);
                        }
                        None => println!(
                            "{}",
                            self.paint(Style::new().dimmed(), "(no cell has run yet)")
                        ),
                    }
                    narrate = false;
                }
            }
        }
    }

    /// The narration before the cell at `at` (with `narrate`), then the cell.
    /// Past the last cell: the narration after it.
    fn show(&self, at: usize, narrate: bool) {
        let from = if at == 0 { 0 } else { self.code[at - 1] + 1 };
        let to = self
            .code
            .get(at)
            .copied()
            .unwrap_or(self.lesson.cells.len());
        if narrate {
            for cell in &self.lesson.cells[from..to] {
                if cell.kind == CellKind::Markdown && !cell.source.trim().is_empty() {
                    println!(
                        "{}\n",
                        markdown::render(&cell.source, self.width, self.color)
                    );
                }
            }
        }
        if at < self.code.len() {
            self.show_code(at);
        }
    }

    fn show_code(&self, at: usize) {
        let head = format!("── cell {}/{} ", at + 1, self.code.len());
        let fill = self.width.saturating_sub(head.chars().count());
        println!(
            "{}",
            self.paint(
                Style::new().dimmed(),
                &format!("{head}{}", "─".repeat(fill))
            )
        );
        // Each statement as the REPL shows it: `>>> `, then `... ` before its
        // other lines.
        let src = self.lesson.cells[self.code[at]].source.trim_end();
        let texts = Session::statement_texts(src).unwrap_or_else(|| vec![src]);
        for text in texts {
            for line in prompted(text).lines() {
                let (prompt, code) = match line.get(..4) {
                    Some(p @ (">>> " | "... ")) => (p, &line[4..]),
                    _ => ("", line),
                };
                match self.color {
                    true => println!(
                        "{}{}",
                        Color::Green.bold().paint(prompt),
                        highlight::highlight(code)
                    ),
                    false => println!("{prompt}{code}"),
                }
            }
        }
    }

    fn run(&mut self, index: usize) {
        let src = &self.lesson.cells[index].source;
        if let Some(name) = help_query(src) {
            match self.session.inspect(name, name.len()) {
                Some(help) => println!("{help}"),
                None => println!("no builtin, method or variable named `{name}`"),
            }
        } else {
            let outcome = self.session.execute_guarded(src);
            print_outcome(&outcome, self.color);
        }
        let status = status_line(&self.session);
        if !status.is_empty() {
            println!("{}", self.paint(Color::DarkGray.normal(), &status));
        }
        println!();
    }

    fn paint(&self, style: Style, s: &str) -> String {
        if self.color {
            style.paint(s).to_string()
        } else {
            s.to_string()
        }
    }
}

/// Keys from the terminal one at a time, or lines from a pipe.
struct Keys {
    tty: bool,
}

impl Keys {
    fn new(tty: bool) -> Keys {
        Keys { tty }
    }

    /// Waits for a key, with `hint` shown while waiting.
    fn next(&mut self, hint: &str) -> Key {
        if !self.tty {
            return self.next_line();
        }
        let dim = Style::new().dimmed();
        print!("{}", dim.paint(hint));
        let _ = io::stdout().flush();
        let key = {
            let _raw = RawMode::enter();
            loop {
                let mut buf = [0u8; 8];
                let n = io::stdin().read(&mut buf).unwrap_or(0);
                if let Some(k) = parse_key(&buf[..n]) {
                    break k;
                }
            }
        };
        // Erase the hint.
        print!("\r\x1b[K");
        let _ = io::stdout().flush();
        key
    }

    fn next_line(&mut self) -> Key {
        let mut line = String::new();
        loop {
            line.clear();
            match io::stdin().lock().read_line(&mut line) {
                Ok(0) | Err(_) => return Key::Quit,
                Ok(_) => {}
            }
            match line.trim() {
                "" | "n" => return Key::Run,
                "b" => return Key::Back,
                "r" => return Key::Rerun,
                "q" => return Key::Quit,
                other => {
                    println!("unknown key `{other}`: Enter runs, b goes back, r reruns, q quits")
                }
            }
        }
    }
}

/// What a key press (the bytes one read gives) means; `None` to ignore it.
fn parse_key(bytes: &[u8]) -> Option<Key> {
    match bytes {
        [] => Some(Key::Quit),
        [b'\r' | b'\n' | b' ', ..] | [0x1b, b'[', b'C', ..] => Some(Key::Run),
        [b'b' | b'B' | 0x7f, ..] | [0x1b, b'[', b'D', ..] => Some(Key::Back),
        [b'r' | b'R', ..] => Some(Key::Rerun),
        [b'q' | b'Q' | 0x03 | 0x04, ..] => Some(Key::Quit),
        _ => None,
    }
}

/// The terminal without line buffering, echo or signals while waiting for a
/// key; restored when dropped.
struct RawMode {
    saved: libc::termios,
}

impl RawMode {
    fn enter() -> Option<RawMode> {
        // SAFETY: termios is plain data; tcgetattr fills it for a valid fd or fails.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: fd 0 and a valid pointer to a termios.
        if unsafe { libc::tcgetattr(0, &mut t) } != 0 {
            return None;
        }
        let saved = t;
        t.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
        t.c_cc[libc::VMIN] = 1;
        t.c_cc[libc::VTIME] = 0;
        // SAFETY: as above; `t` was filled by tcgetattr.
        (unsafe { libc::tcsetattr(0, libc::TCSANOW, &t) } == 0).then_some(RawMode { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `enter`.
        unsafe { libc::tcsetattr(0, libc::TCSANOW, &self.saved) };
    }
}

/// The width to wrap narration to: the terminal's, at most 100 columns.
fn terminal_width() -> usize {
    crate::repl::terminal_columns().clamp(40, 100)
}

#[cfg(test)]
mod tests {
    use super::{parse_key, Key};

    #[test]
    fn keys() {
        assert_eq!(parse_key(b"\r"), Some(Key::Run));
        assert_eq!(parse_key(b" "), Some(Key::Run));
        assert_eq!(parse_key(b"\x1b[C"), Some(Key::Run));
        assert_eq!(parse_key(b"b"), Some(Key::Back));
        assert_eq!(parse_key(b"\x1b[D"), Some(Key::Back));
        assert_eq!(parse_key(b"r"), Some(Key::Rerun));
        assert_eq!(parse_key(b"q"), Some(Key::Quit));
        assert_eq!(parse_key(b"\x03"), Some(Key::Quit));
        assert_eq!(parse_key(b""), Some(Key::Quit));
        assert_eq!(parse_key(b"x"), None);
        assert_eq!(parse_key(b"\x1b[A"), None);
    }
}
