//! The kernel's input history, for `history_request`: tail, range and search.

use jupyter_protocol::{HistoryEntry, HistoryRequest};

/// This kernel's session number in history replies (one session per process).
pub const SESSION: usize = 1;

struct Cell {
    line: usize,
    input: String,
    /// The cell's results as plain text.
    output: String,
}

#[derive(Default)]
pub struct History {
    cells: Vec<Cell>,
}

impl History {
    pub fn push(&mut self, line: usize, input: &str, output: String) {
        self.cells.push(Cell {
            line,
            input: input.to_string(),
            output,
        });
    }

    pub fn answer(&self, req: &HistoryRequest) -> Vec<HistoryEntry> {
        let (picked, output): (Vec<&Cell>, bool) = match req {
            HistoryRequest::Tail { n, output, .. } => {
                (last(self.cells.iter().collect(), *n), *output)
            }
            HistoryRequest::Range {
                session,
                start,
                stop,
                output,
                ..
            } => {
                // 0 and negative session numbers mean this session, as in IPython.
                let ours = session.is_none_or(|s| s <= 0 || s as usize == SESSION);
                let (start, stop) = (*start as i64, *stop as i64);
                let picked = self
                    .cells
                    .iter()
                    .filter(|c| {
                        ours && c.line as i64 >= start && (stop <= 0 || (c.line as i64) < stop)
                    })
                    .collect();
                (picked, *output)
            }
            HistoryRequest::Search {
                pattern,
                unique,
                output,
                n,
                ..
            } => {
                let mut picked: Vec<&Cell> = self
                    .cells
                    .iter()
                    .filter(|c| glob(pattern, &c.input))
                    .collect();
                if *unique {
                    // Keep each input's latest run.
                    let mut seen = std::collections::HashSet::new();
                    picked.reverse();
                    picked.retain(|c| seen.insert(c.input.as_str()));
                    picked.reverse();
                }
                (last(picked, *n), *output)
            }
        };
        picked
            .into_iter()
            .map(|c| {
                if output {
                    HistoryEntry::InputOutput(SESSION, c.line, (c.input.clone(), c.output.clone()))
                } else {
                    HistoryEntry::Input(SESSION, c.line, c.input.clone())
                }
            })
            .collect()
    }
}

fn last(mut cells: Vec<&Cell>, n: i32) -> Vec<&Cell> {
    let n = n.max(0) as usize;
    if cells.len() > n {
        cells.drain(..cells.len() - n);
    }
    cells
}

/// Whether `text` matches the glob `pattern` as a whole (`*` any run, `?` one character),
/// as IPython's history search matches.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_whole_text() {
        assert!(glob("*", ""));
        assert!(glob("1*", "1 + 1"));
        assert!(glob("*+*", "1 + 1"));
        assert!(!glob("+*", "1 + 1"));
        assert!(glob("x = ?", "x = 3"));
        assert!(!glob("x = ?", "x = 33"));
        assert!(glob("a*b*c", "a--b--b--c"));
        assert!(!glob("a*b*c", "a--b--b--"));
    }

    fn history() -> History {
        let mut h = History::default();
        for (i, code) in ["x = 1", "x + 1", "y = 2", "x + 1"].iter().enumerate() {
            h.push(i + 1, code, format!("out{}", i + 1));
        }
        h
    }

    fn lines(entries: &[HistoryEntry]) -> Vec<usize> {
        entries
            .iter()
            .map(|e| match e {
                HistoryEntry::Input(_, l, _) | HistoryEntry::InputOutput(_, l, _) => *l,
            })
            .collect()
    }

    #[test]
    fn tail_range_and_search() {
        let h = history();
        let tail = h.answer(&HistoryRequest::Tail {
            n: 2,
            output: false,
            raw: true,
        });
        assert_eq!(lines(&tail), [3, 4]);
        let range = h.answer(&HistoryRequest::Range {
            session: Some(1),
            start: 2,
            stop: 3,
            output: true,
            raw: true,
        });
        assert_eq!(lines(&range), [2]);
        assert!(
            matches!(&range[0], HistoryEntry::InputOutput(1, 2, (i, o)) if i == "x + 1" && o == "out2")
        );
        let search = |unique, n| {
            lines(&h.answer(&HistoryRequest::Search {
                pattern: "x*".into(),
                unique,
                output: false,
                raw: true,
                n,
            }))
        };
        assert_eq!(search(false, i32::MAX), [1, 2, 4]);
        assert_eq!(search(true, i32::MAX), [1, 4]);
        assert_eq!(search(false, 2), [2, 4]);
        let other_session = h.answer(&HistoryRequest::Range {
            session: Some(7),
            start: 0,
            stop: 0,
            output: false,
            raw: true,
        });
        assert!(other_session.is_empty());
    }
}
