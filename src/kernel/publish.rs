//! A running cell's outputs as iopub messages: values as `execute_result`,
//! `mem` as `display_data`, `print` on stdout and warnings on stderr. Stream
//! text is batched (a loop that prints 10,000 lines sends a few messages, not
//! 10,000) and leaves at least every `BATCH` while the cell runs.

use std::time::Duration;

use jupyter_protocol::{
    ClearOutput, DisplayData, ExecuteResult, ExecutionCount, JupyterMessage, Media, MediaType,
    StreamContent, Transient,
};
use tokio::time::Instant;

use super::{wire, Iopub};
use crate::session::jupyter::stream_text;
use crate::session::{Output, Shown};

/// How long stream text may wait to be sent with what follows it.
pub const BATCH: Duration = Duration::from_millis(50);
/// Stream text sent at once when this much has gathered.
const MAX_PENDING: usize = 256 << 10;

pub struct Publisher<'a> {
    iopub: &'a Iopub,
    parent: &'a JupyterMessage,
    count: usize,
    /// `silent` requests publish nothing.
    silent: bool,
    /// Stream text not sent yet: (is stderr, text, when it started gathering).
    pending: Option<(bool, String, Instant)>,
    /// The text of every value shown, for `history` with output.
    pub results: Vec<String>,
}

impl<'a> Publisher<'a> {
    pub fn new(iopub: &'a Iopub, parent: &'a JupyterMessage, count: usize, silent: bool) -> Self {
        Publisher {
            iopub,
            parent,
            count,
            silent,
            pending: None,
            results: Vec::new(),
        }
    }

    pub fn push(&mut self, o: Output) {
        if let Some((stderr, text)) = stream_text(&o) {
            return self.stream(stderr, text);
        }
        match o {
            Output::Text(_) | Output::Warning(_) | Output::Stderr(_) | Output::Partial { .. } => {
                unreachable!("stream text is sent above")
            }
            Output::Value(shown) => {
                self.flush();
                self.results.push(shown.text.clone());
                let result = ExecuteResult {
                    execution_count: ExecutionCount::new(self.count),
                    data: media(shown),
                    metadata: Default::default(),
                    // An object, not null: Jupyter's schema rejects null here.
                    transient: Some(Transient::default()),
                };
                self.send(result);
            }
            Output::Clear { wait } => {
                self.flush();
                self.send(ClearOutput { wait });
            }
            Output::Display(shown) => {
                self.flush();
                let display = DisplayData {
                    data: media(shown),
                    metadata: Default::default(),
                    transient: Some(Transient::default()),
                };
                self.send(display);
            }
        }
    }

    /// When the gathered stream text is due to leave, if any is gathered.
    pub fn deadline(&self) -> Option<Instant> {
        self.pending.as_ref().map(|(_, _, since)| *since + BATCH)
    }

    pub fn flush(&mut self) {
        if let Some((stderr, text, _)) = self.pending.take() {
            let content = if stderr {
                StreamContent::stderr(&text)
            } else {
                StreamContent::stdout(&text)
            };
            self.send(content);
        }
    }

    fn stream(&mut self, stderr: bool, line: String) {
        if self.pending.as_ref().is_some_and(|(e, _, _)| *e != stderr) {
            self.flush();
        }
        match &mut self.pending {
            Some((_, text, _)) => text.push_str(&line),
            None => self.pending = Some((stderr, line, Instant::now())),
        }
        if self
            .pending
            .as_ref()
            .is_some_and(|(_, t, _)| t.len() >= MAX_PENDING)
        {
            self.flush();
        }
    }

    fn send(&self, content: impl Into<jupyter_protocol::JupyterMessageContent>) {
        if !self.silent {
            self.iopub.send(wire::child(content, self.parent));
        }
    }
}

fn media(shown: Shown) -> Media {
    let mut parts = vec![MediaType::Plain(shown.text)];
    if let Some(html) = shown.html {
        parts.push(MediaType::Html(html));
    }
    Media::new(parts)
}
