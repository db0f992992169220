//! The rustyline helper: highlighting, completion and signature hints, all
//! answered by the `Session`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use nu_ansi_term::Style;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

use crate::session::Session;

pub struct ReplHelper {
    pub session: Rc<RefCell<Session>>,
    pub color: bool,
}

impl Helper for ReplHelper {}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        if line.starts_with(':') {
            let cmds = [
                ":help",
                ":vars",
                ":reset",
                ":load ",
                ":save ",
                ":backend",
                ":status on",
                ":status off",
                ":quit",
            ];
            let found = cmds
                .iter()
                .filter(|c| c.starts_with(&line[..pos]))
                .map(|c| Pair {
                    display: c.trim().to_string(),
                    replacement: c.to_string(),
                })
                .collect();
            return Ok((0, found));
        }
        let c = self.session.borrow().complete(line, pos);
        let pairs = c
            .matches
            .into_iter()
            .map(|m| Pair {
                display: m.clone(),
                replacement: m,
            })
            .collect();
        Ok((c.start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    /// The signature of the function being called, while the cursor is at the end of its arguments.
    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        if pos < line.len() || line.starts_with(':') {
            return None;
        }
        let sig = self.session.borrow().signature_at(line, pos)?;
        Some(format!("   {sig}"))
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color || line.starts_with(':') {
            return Cow::Borrowed(line);
        }
        Cow::Owned(super::highlight::highlight(line))
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if !self.color {
            return Cow::Borrowed(hint);
        }
        Cow::Owned(Style::new().dimmed().paint(hint).to_string())
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        // Re-highlight on every change: a keystroke can turn `cud` into `cuda:1`.
        self.color
    }
}

/// Every line is submitted as it is: the REPL loop (`repl::run`) reads a
/// block's further lines under its own `... ` prompt, which rustyline's
/// multi-line buffer cannot show.
impl Validator for ReplHelper {
    fn validate(&self, _: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(ValidationResult::Valid(None))
    }
}
