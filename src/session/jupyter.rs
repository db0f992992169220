//! What the Jupyter kernel and the lessons (`cudash run` on a notebook,
//! `cudash present`) share about a cell: the stream text each output makes,
//! an error as a traceback's lines, and a `?name` help query.

use crate::display::wrap;
use crate::eval::Output;

use super::ErrorReport;

/// Columns a notebook's warnings and tracebacks are broken to, between
/// words: Jupyter's output areas break longer lines anywhere, mid-word too.
pub const NOTEBOOK_WIDTH: usize = 100;

/// The stream text an output makes, `(is stderr, text)`, as the kernel sends it.
pub fn stream_text(o: &Output) -> Option<(bool, String)> {
    match o {
        Output::Text(t) => Some((false, format!("{t}\n"))),
        Output::Stderr(t) => Some((true, format!("{t}\n"))),
        Output::Partial { stderr, text } => Some((*stderr, text.clone())),
        Output::Warning(w) => Some((true, format!("{}\n", wrap::warning(w, NOTEBOOK_WIDTH)))),
        _ => None,
    }
}

/// An error report as the lines of a Jupyter traceback.
pub fn traceback(e: &ErrorReport) -> Vec<String> {
    wrap::report(e.report.trim_end(), NOTEBOOK_WIDTH)
        .lines()
        .map(String::from)
        .collect()
}

/// The name in a help query (`zeros?`, `?zeros`, `x.sum??`), if the cell is
/// one. Jupyter opens its help in the pager; a notebook saves no output for it.
pub fn help_query(code: &str) -> Option<&str> {
    let code = code.trim();
    let name = code.trim_start_matches('?').trim_end_matches('?');
    let is_name = !name.is_empty()
        && name
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
    (name.len() < code.len() && is_name).then_some(name)
}
