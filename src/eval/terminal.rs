//! The terminal of this process's own streams, where a script or the REPL
//! prints (`Hooks::terminal`): `sys.stderr.isatty()`,
//! `os.get_terminal_size(fd)` and `shutil.get_terminal_size(fallback)`,
//! as Python gives them. Elsewhere (a notebook, a transcript) there is no
//! terminal: Python's `OSError`, and `shutil`'s fallback.

use std::io::IsTerminal;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// The names this module answers.
pub const NAMES: [&str; 2] = ["os.get_terminal_size", "shutil.get_terminal_size"];

/// Whether this process's stderr (or stdout) is a terminal.
pub(super) fn is_terminal(stderr: bool) -> bool {
    match stderr {
        true => std::io::stderr().is_terminal(),
        false => std::io::stdout().is_terminal(),
    }
}

/// The columns and lines of the terminal on descriptor `fd` (1 or 2).
fn size_of(fd: i32) -> Option<(i64, i64)> {
    crate::display::terminal::size(fd).map(|(c, l)| (i64::from(c), i64::from(l)))
}

fn terminal_size(columns: i64, lines: i64) -> Value {
    Value::named_tuple(
        "os.terminal_size",
        &[
            ("columns", Value::Int(columns)),
            ("lines", Value::Int(lines)),
        ],
    )
}

impl Interp {
    pub(super) fn call_terminal(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let size = |fd: i64| match self.hooks.terminal {
            true => i32::try_from(fd).ok().and_then(size_of),
            false => None,
        };
        if name == "os.get_terminal_size" {
            let fd = match args.first().map(|a| &a.value) {
                None => 1,
                Some(Value::Int(fd)) => *fd,
                Some(other) => {
                    return Err(Error::type_error(format!(
                        "an integer is required (got type {})",
                        super::format::python_type(other)
                    ))
                    .at(span))
                }
            };
            let (columns, lines) = size(fd).ok_or_else(|| {
                Error::Module {
                    class: "OSError",
                    message: "[Errno 25] Inappropriate ioctl for device".into(),
                    help: Some(
                        "the program's output is not a terminal here (a notebook, a pipe, a \
                         transcript): `shutil.get_terminal_size()` gives its fallback"
                            .into(),
                    ),
                }
                .at(span)
            })?;
            return Ok(terminal_size(columns, lines));
        }
        // `shutil.get_terminal_size(fallback=(80, 24))`: `COLUMNS` and
        // `LINES` first, then stdout's terminal, then the fallback.
        let fallback = match args.first().map(|a| &a.value) {
            None => (80, 24),
            Some(v) => match v.elements() {
                Some(Ok(pair)) => match pair[..] {
                    [Value::Int(c), Value::Int(l)] => (c, l),
                    _ => return Err(Error::type_error("fallback is (columns, lines)").at(span)),
                },
                _ => return Err(Error::type_error("fallback is (columns, lines)").at(span)),
            },
        };
        let env = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
        };
        let (mut columns, mut lines) = (env("COLUMNS"), env("LINES"));
        if columns <= 0 || lines <= 0 {
            let (c, l) = size(1).unwrap_or(fallback);
            if columns <= 0 {
                columns = if c > 0 { c } else { fallback.0 };
            }
            if lines <= 0 {
                lines = if l > 0 { l } else { fallback.1 };
            }
        }
        Ok(terminal_size(columns, lines))
    }
}
