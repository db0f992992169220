//! An open text file (`open()`'s value, `files.rs` makes and uses it):
//! what is left to read, or where writes go. Its own file so that
//! `value.rs` can hold one without reaching the builtins.

use std::sync::{Arc, Mutex};

use crate::error::Error;

/// An open file: what is left to read, or where writes go.
pub struct PyFile {
    pub name: String,
    pub mode: String,
    pub(super) state: State,
}

pub(super) enum State {
    /// The file's text (read whole at `open`) and how far reading got.
    Reading {
        text: String,
        at: usize,
    },
    Writing(std::fs::File),
    /// `sys.stdout` and `sys.stderr`: what is written goes where `print`'s
    /// text goes, or to the program's stderr.
    Standard {
        stderr: bool,
    },
    /// Opened in binary mode (`"rb"`, `"wb"`, `"ab"`): what `torch.save`
    /// writes to and `torch.load` reads from, and what `f.read()` reads
    /// as bytes from `at` (`f.write(b)` appends to the file).
    Binary {
        writing: bool,
        at: u64,
        /// `gzip.open(path, "rb")`: what is read is unpacked, what is
        /// written packed (each `pickle.dump` a gzip member, which
        /// Python's gzip reads as one stream).
        gzip: bool,
    },
    Closed,
}

impl std::fmt::Debug for PyFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<file {:?} {}>", self.name, self.mode)
    }
}

pub type FileRef = Arc<Mutex<PyFile>>;

impl PyFile {
    /// `sys.stdout` or `sys.stderr`.
    pub fn standard(stderr: bool) -> PyFile {
        PyFile {
            name: if stderr { "<stderr>" } else { "<stdout>" }.into(),
            mode: "w".into(),
            state: State::Standard { stderr },
        }
    }

    /// Where a standard stream writes: Some(true) for stderr.
    pub fn standard_stream(&self) -> Option<bool> {
        match self.state {
            State::Standard { stderr } => Some(stderr),
            _ => None,
        }
    }

    /// A binary file's path and whether it is written (`torch.save(x, f)`,
    /// `torch.load(f)`); None for a text file.
    pub fn binary(&self) -> Option<(&str, bool)> {
        match self.state {
            State::Binary { writing, .. } => Some((&self.name, writing)),
            _ => None,
        }
    }

    /// Whether it is a `gzip.open` file in binary mode.
    pub fn gzipped(&self) -> bool {
        matches!(self.state, State::Binary { gzip: true, .. })
    }

    /// Python's repr: `<_io.TextIOWrapper name='a.txt' mode='r' encoding='UTF-8'>`.
    pub fn repr(&self) -> String {
        if let State::Binary { writing, .. } = self.state {
            let kind = if writing {
                "BufferedWriter"
            } else {
                "BufferedReader"
            };
            return format!("<_io.{kind} name='{}'>", self.name);
        }
        let encoding = match self.state {
            State::Standard { .. } => "utf-8",
            _ => "UTF-8",
        };
        format!(
            "<_io.TextIOWrapper name='{}' mode='{}' encoding='{encoding}'>",
            self.name, self.mode
        )
    }

    pub(super) fn text(&mut self) -> Result<(&str, &mut usize), Error> {
        match &mut self.state {
            State::Reading { text, at } => Ok((text.as_str(), at)),
            State::Writing(_) | State::Standard { .. } => Err(unsupported("not readable")),
            State::Binary { .. } => Err(no_bytes()),
            State::Closed => Err(closed()),
        }
    }

    /// The next line, with its `\n` (empty at the end).
    pub(super) fn readline(&mut self) -> Result<String, Error> {
        let (text, at) = self.text()?;
        let rest = &text[*at..];
        let line = match rest.find('\n') {
            Some(k) => &rest[..=k],
            None => rest,
        };
        let line = line.to_string();
        *at += line.len();
        Ok(line)
    }

    /// The lines not read yet, each with its `\n` (what `for line in f` gives).
    pub fn rest_lines(&mut self) -> Result<Vec<String>, Error> {
        let mut lines = Vec::new();
        loop {
            let line = self.readline()?;
            if line.is_empty() {
                return Ok(lines);
            }
            lines.push(line);
        }
    }

    pub fn close(&mut self) {
        self.state = State::Closed;
    }
}

pub(super) fn closed() -> Error {
    Error::value("I/O operation on closed file.")
}

/// Reading or writing a binary file other than through torch.save/load.
pub(super) fn no_bytes() -> Error {
    Error::value_help(
        "a file opened in binary mode reads and writes bytes, not str",
        "open text with \"r\" or \"w\"; or read bytes and `.decode()` them",
    )
}

pub(super) fn unsupported(what: &str) -> Error {
    Error::Module {
        class: "UnsupportedOperation",
        message: what.into(),
        help: None,
    }
}
