//! Streams and synchronisation statements: `stream s { }`, `with s { }`,
//! `wait`, `sync`, host reads, and the hazard warnings and notes the runtime
//! reports. (Stream and event methods are in `methods/stream.rs`.)

use std::sync::Arc;

use super::flow::Flow;
use super::{Interp, Output, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Expr, Name, SyncTarget};
use crate::lang::Span;
use crate::runtime::event::StreamRef;
use crate::runtime::stream::StreamKey;
use crate::runtime::{Device, Tensor};

impl Interp {
    /// `default`: the current device's default stream.
    pub(crate) fn default_stream(&self) -> Option<Value> {
        self.rt.default_stream().map(Value::stream)
    }

    /// `stream s { }`: `s` is created on the current device on first use
    /// (after `del s`, or after a failed first block, the stream of that name
    /// is found again).
    pub(crate) fn exec_stream_block(
        &mut self,
        name: &Name,
        body: &Block,
    ) -> Result<Flow, Diagnostic> {
        let s = match self.get_var(name).as_deref() {
            Some(Value::Stream(s)) => (**s).clone(),
            Some(other) => {
                return Err(Error::value_help(
                    format!("`{}` is {}, not a stream", name.name, other.type_name()),
                    "pick another name for the stream, or `del` the variable first",
                )
                .at(name.span))
            }
            None => {
                let s = self
                    .rt
                    .new_stream(Some(&name.name))
                    .map_err(|e| e.at(name.span))?;
                self.set_var(name, Value::stream(s.clone()));
                s
            }
        };
        self.with_stream(&s, body)
    }

    /// Runs `body` with `s` as the current stream (and its device as the
    /// current device); both are restored afterwards, also after an error.
    pub(crate) fn with_stream(&mut self, s: &StreamRef, body: &Block) -> Result<Flow, Diagnostic> {
        let saved = self.rt.enter_stream(s.key);
        let r = self.exec_block(body);
        self.rt.restore(saved);
        r
    }

    /// Makes `waiter` wait for a stream's queued work or an event.
    pub(crate) fn wait_for(&mut self, waiter: StreamKey, target: &Value) -> Result<(), Error> {
        match target {
            Value::Stream(s) => self.rt.wait_stream(waiter, s.key),
            Value::Event(e) => self.rt.wait_event(waiter, e),
            other => Err(Error::wrong_type(
                "what `wait` waits for",
                "a stream or an event",
                other.type_name(),
            )),
        }
    }

    /// `wait STREAM_OR_EVENT`: the current stream waits for it.
    pub(crate) fn exec_wait(&mut self, e: &Expr, span: Span) -> Result<(), Diagnostic> {
        let v = self.eval(e, 0)?;
        let waiter = self.rt.current_stream().map_err(|err| err.at(span))?;
        self.wait_for(waiter, &v).map_err(|err| err.at(e.span))
    }

    /// `sync`, `sync all`, `sync s`, `sync e`, `sync cuda:1`.
    pub(crate) fn exec_sync(&mut self, target: &SyncTarget, span: Span) -> Result<(), Diagnostic> {
        let r = match target {
            SyncTarget::Current if self.rt.devices.count() > 0 => {
                self.rt.sync_device(self.rt.current_device)
            }
            SyncTarget::Current => Ok(()),
            SyncTarget::All => self.rt.sync_all(),
            SyncTarget::Of(e) => match self.eval(e, 0).map(|v| self.resolve(v))? {
                Value::Stream(st) => self.rt.sync_stream(st.key),
                Value::Device(d) => match d.get() {
                    Device::Cuda(d) => self.rt.sync_device(d),
                    // Host work is synchronous, and the meta device runs
                    // nothing: nothing to wait for.
                    Device::Cpu | Device::Meta => Ok(()),
                },
                Value::Event(ev) => self.rt.sync_event(&ev),
                other => {
                    return Err(Error::wrong_type(
                        "the target of `sync`",
                        "a stream, an event, a device or `all`",
                        other.type_name(),
                    )
                    .at(e.span))
                }
            },
        };
        r.map_err(|e| e.at(span))
    }

    /// A blocking host read of every tensor in `values` (display, `print`),
    /// then `show`, which renders them.
    pub(crate) fn host_read<R>(
        &mut self,
        values: &[&Value],
        show: impl FnOnce() -> R,
    ) -> Result<R, Error> {
        let mut tensors = Vec::new();
        for v in values {
            collect_tensors(v, &mut tensors);
        }
        // A class's `__str__` and `__repr__` run first (they are the
        // program's code); the text is then made with what they returned.
        let texts = self
            .user_texts(values)
            .map_err(|d| Error::Located(Box::new(d)))?;
        let tensors: Vec<&Tensor> = tensors.iter().map(|t| &**t).collect();
        // A Python program reads a tensor as PyTorch writes it.
        let python = self.python_program();
        self.rt.show(&tensors, || {
            super::python_text::with_pytorch_text(python, || super::user_text::with(texts, show))
        })
    }

    /// In a Python program, the warnings a statement's ops gave, shown as
    /// the statement ends: Python shows a warning where it is raised, once
    /// from each place (`warn_once`). Cells show theirs after the whole
    /// top-level statement, repeats counted.
    #[inline]
    pub(crate) fn flush_statement_notes(&mut self) {
        if self.rt.notes_pending() && self.python_program() {
            self.flush_notes();
        }
    }

    /// Shows the runtime's notes (a non-blocking copy that had to block) as warnings.
    pub(crate) fn flush_notes(&mut self) {
        for note in self.rt.take_notes() {
            self.warn_once(note);
        }
    }

    /// Turns the hazards the runtime found into warnings; a warning repeated
    /// within one top-level statement (a loop) is shown once and counted.
    pub(crate) fn flush_hazards(&mut self) {
        for msg in self.rt.take_hazards() {
            self.warn_once(msg);
        }
    }

    /// A warning, shown once per top-level statement (a loop repeats it
    /// as a count at the end).
    pub(crate) fn warn_once(&mut self, msg: String) {
        // `warnings.filterwarnings("ignore", category=C)` hides warnings
        // of Python's categories (`FutureWarning: ...`); cudash's own
        // (a race between streams) carry none and stay.
        if let Some((category, _)) = msg.split_once(": ") {
            if self.ignored_warnings.iter().any(|c| c == category) {
                return;
            }
            // In a Python program, Python's default filter: a warning of
            // Python's categories once from each place (source and
            // statement) however often that place runs.
            if category.ends_with("Warning") && self.python_program() {
                let place = self.running_source().map_or(0, |s| Arc::as_ptr(s) as usize);
                let key = (msg, place, self.statement_at.get());
                if !self.warned_at.contains(&key) {
                    self.emit(Output::Warning(key.0.clone()));
                    self.warned_at.insert(key);
                }
                return;
            }
        }
        match self.warned.iter_mut().find(|(m, _)| *m == msg) {
            Some((_, n)) => *n += 1,
            None => {
                self.emit(Output::Warning(msg.clone()));
                self.warned.push((msg, 1));
            }
        }
    }

    /// A warning PyTorch gives once a process (`TORCH_WARN_ONCE`).
    pub(crate) fn warn_once_in_session(&mut self, msg: &'static str) {
        if !self.warned_in_session.contains(&msg) {
            self.warned_in_session.push(msg);
            self.warn_once(msg.to_string());
        }
    }

    pub(crate) fn summarise_repeats(&mut self) {
        for (_, n) in std::mem::take(&mut self.warned) {
            if n > 1 {
                self.emit(Output::Warning(format!(
                    "(the warning above came {} more time{} in this statement)",
                    n - 1,
                    if n == 2 { "" } else { "s" }
                )));
            }
        }
    }
}

fn collect_tensors(v: &Value, out: &mut Vec<Arc<Tensor>>) {
    // Every tensor inside, each list or dict once (one may hold itself).
    v.each_tensor(&mut |t| out.push(Arc::new(t.alias())));
}
