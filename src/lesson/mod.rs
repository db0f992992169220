//! Lessons: a Jupyter notebook (`.ipynb`) or a cudash script read as a list
//! of cells, run through a `Session` exactly as the Jupyter kernel runs them,
//! and compared with the outputs saved in the notebook.
//!
//! `cudash run`, `cudash present` and the notebook checks in CI all go
//! through here.

pub mod ipynb;
pub mod markdown;
pub mod multiline;
pub mod outputs;

pub use crate::session::jupyter::help_query;
pub mod script;

use std::path::Path;

pub use outputs::CellOutput;

/// What a cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// Explanation, rendered as text.
    Markdown,
    /// cudash code.
    Code,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub kind: CellKind,
    pub source: String,
    /// Tagged `raises-exception`: the cell shows an error on purpose.
    pub expects_error: bool,
    /// The outputs saved with the cell (notebooks only).
    pub saved: Vec<CellOutput>,
}

impl Cell {
    pub fn code(source: impl Into<String>) -> Cell {
        Cell {
            kind: CellKind::Code,
            source: source.into(),
            expects_error: false,
            saved: Vec::new(),
        }
    }

    pub fn markdown(source: impl Into<String>) -> Cell {
        Cell {
            kind: CellKind::Markdown,
            ..Cell::code(source)
        }
    }

    /// A code cell with something to run (Jupyter skips blank ones).
    pub fn runs(&self) -> bool {
        self.kind == CellKind::Code && !self.source.trim().is_empty()
    }
}

#[derive(Debug, Clone)]
pub struct Lesson {
    pub cells: Vec<Cell>,
    /// The notebook as read, to write outputs back into (notebooks only).
    pub notebook: Option<ipynb::Notebook>,
}

impl Lesson {
    /// Reads a notebook (by its `.ipynb` extension) or a script.
    pub fn read(path: &Path) -> Result<Lesson, String> {
        let text = read_text(path)?;
        if is_notebook(path) {
            let nb = ipynb::Notebook::parse(&text).map_err(|e| {
                format!(
                    "`{}` is not a notebook cudash can read: {e}",
                    path.display()
                )
            })?;
            Ok(Lesson {
                cells: nb.cells()?,
                notebook: Some(nb),
            })
        } else {
            Ok(Lesson {
                cells: script::cells(&text),
                notebook: None,
            })
        }
    }

    /// How many cells run.
    pub fn code_cells(&self) -> usize {
        self.cells.iter().filter(|c| c.runs()).count()
    }
}

/// A file's text, with a clear message when it is unreadable or not UTF-8.
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{}` is not valid UTF-8 text (first bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

pub fn is_notebook(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}
