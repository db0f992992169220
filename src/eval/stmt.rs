//! Executing statements. Blocks do not open scopes.

use std::time::Instant;

use super::args::to_tensor;
use super::{docs, Interp, Output, Shown, Value};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, ExprKind, ForIter, Stmt, StmtKind, SyncTarget};
use crate::runtime::ops::index;
use crate::runtime::Device;

impl Interp {
    pub(crate) fn exec(&mut self, s: &Stmt) -> Result<(), Diagnostic> {
        self.check_interrupt(s.span)?;
        let r = self.exec_kind(s);
        self.flush_hazards();
        r
    }

    fn exec_kind(&mut self, s: &Stmt) -> Result<(), Diagnostic> {
        let at = |e: Error| e.at(s.span);
        match &s.kind {
            StmtKind::Expr(e) if matches!(&e.kind, ExprKind::Var(n) if n == "devices" && !self.vars.contains_key(n)) =>
            {
                let text = self.devices_text();
                self.emit(Output::Text(text));
            }
            StmtKind::Expr(e) => {
                let v = self.eval(e, 0)?;
                if self.quiet == 0 {
                    self.host_read(&v);
                    self.flush_hazards();
                    if let Some(text) = super::show::display_text(&v) {
                        let html = match &v {
                            Value::Tensor(t) if self.html => Some(display::html::tensor(t)),
                            _ => None,
                        };
                        self.emit(Output::Value(Shown { text, html }));
                    }
                }
            }
            StmtKind::Assign(name, e) => {
                let v = self.eval(e, 0)?;
                self.set_var(&name.name, v);
            }
            StmtKind::IndexAssign(obj, items, value) => {
                let target = self.eval(obj, 0)?;
                let t = self.indexable(&target, obj.span)?;
                let idx = self.eval_index(items, 0)?;
                let view = index::select(&t, &idx).map_err(at)?;
                let v = self.eval(value, 0)?;
                let src = to_tensor(&v).ok_or_else(|| {
                    Error::wrong_type("the assigned value", "a number or a tensor", v.type_name())
                        .at(value.span)
                })?;
                self.rt.assign(&view, &src).map_err(at)?;
            }
            StmtKind::Del(names) => {
                for n in names {
                    if !self.vars.contains_key(&n.name) {
                        return Err(Error::UnknownName {
                            name: n.name.clone(),
                            suggestion: super::suggest::closest(
                                &n.name,
                                self.vars.keys().map(String::as_str),
                            ),
                        }
                        .at(n.span));
                    }
                }
                for n in names {
                    self.remove_var(&n.name);
                }
            }
            StmtKind::With(e, body) => {
                let v = self.eval(e, 0)?;
                match v {
                    Value::Device(Device::Cuda(d)) => {
                        let saved = self.rt.current_device;
                        self.rt.current_device = d;
                        let r = self.exec_block(body);
                        self.rt.current_device = saved;
                        r?;
                    }
                    Value::Stream(st) => self.with_stream(&st, body)?,
                    Value::Device(Device::Cpu) => {
                        return Err(Error::value_help(
                            "`with` takes a CUDA device or a stream, not cpu",
                            "tensors go to cpu by default; write `with device(n) { }` for a CUDA device",
                        )
                        .at(e.span))
                    }
                    other => {
                        return Err(Error::wrong_type("the target of `with`", "a device or a stream", other.type_name()).at(e.span))
                    }
                }
            }
            StmtKind::Stream(name, body) => {
                self.rt.need_cuda("a stream block").map_err(at)?;
                self.exec_stream_block(name, body)?
            }
            StmtKind::Wait(e) => {
                let v = self.eval(e, 0)?;
                let waiter = self.rt.current_stream().map_err(at)?;
                self.wait_for(waiter, &v).map_err(|err| err.at(e.span))?;
            }
            StmtKind::Pin(name) => {
                let v = self.vars.get(&name.name).cloned().ok_or_else(|| {
                    Error::UnknownName {
                        name: name.name.clone(),
                        suggestion: None,
                    }
                    .at(name.span)
                })?;
                let Value::Tensor(t) = v else {
                    return Err(Error::wrong_type(
                        format!("`{}`", name.name),
                        "a tensor",
                        v.type_name(),
                    )
                    .at(name.span));
                };
                self.rt.need_cuda("`pin`").map_err(at)?;
                if t.device() != Device::Cpu {
                    return Err(Error::value_help(
                        format!(
                            "`{}` is on {}: only host tensors can be pinned",
                            name.name,
                            t.device()
                        ),
                        "pinned (page-locked) memory is host memory",
                    )
                    .at(name.span));
                }
                if t.is_pinned() {
                    self.emit(Output::Warning(format!(
                        "`{}` is already pinned",
                        name.name
                    )));
                } else {
                    self.rt.pin_in_place(&t).map_err(at)?;
                }
            }
            StmtKind::Sync(target) => match target {
                SyncTarget::Current if self.rt.devices.count() > 0 => {
                    self.rt.sync_device(self.rt.current_device)
                }
                SyncTarget::Current => {}
                SyncTarget::All => self.rt.sync_all(),
                SyncTarget::Of(e) => match self.eval(e, 0)? {
                    Value::Stream(st) => self.rt.sync_stream(st.key),
                    Value::Device(Device::Cuda(d)) => self.rt.sync_device(d),
                    // Host work is synchronous: nothing to wait for.
                    Value::Device(Device::Cpu) => {}
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
            },
            StmtKind::Mem { map, target } => {
                let shown = self.mem_shown(*map, target)?;
                self.emit(Output::Display(shown));
            }
            StmtKind::For(var, iter, body) => self.exec_for(&var.name, iter, body)?,
            StmtKind::Time(count, body) => {
                let n = match count {
                    Some(e) => self.eval_int(e, 0, "the iteration count of `time`")?,
                    None => 1,
                };
                if n < 1 {
                    return Err(Error::value("`time` needs at least 1 iteration").at(s.span));
                }
                self.exec_time(n, body)?;
            }
            StmtKind::Profile(body) => {
                let before = self.rt.counters.clone();
                let segments = self.rt.total_segments();
                let start = Instant::now();
                self.exec_block(body)?;
                let wall = start.elapsed().as_secs_f64();
                let mut d = self.rt.counters.since(&before);
                d.segments = self.rt.total_segments() - segments;
                let model = self.rt.modelled_on();
                self.emit(Output::Text(display::profile_table(
                    &d,
                    wall,
                    model.as_deref(),
                )));
            }
            StmtKind::Help(topic) => {
                let text = match topic {
                    None => docs::overview(),
                    Some(t) => {
                        let found = docs::lookup(&t.name);
                        if found.is_empty() {
                            let names = docs::DOCS.iter().map(|d| d.name);
                            return Err(Error::UnknownName {
                                name: t.name.clone(),
                                suggestion: super::suggest::closest(&t.name, names),
                            }
                            .at(t.span));
                        }
                        found
                            .iter()
                            .map(|d| d.help_text())
                            .collect::<Vec<_>>()
                            .join("\n\n")
                    }
                };
                self.emit(Output::Text(text));
            }
        }
        Ok(())
    }

    /// `time N { }`: device time per iteration between two events on the
    /// current stream (modelled on sim); host wall clock when no device work ran.
    fn exec_time(&mut self, n: i64, body: &Block) -> Result<(), Diagnostic> {
        let key = self.rt.current_stream().ok();
        let start_mark = key.map(|k| self.rt.mark(k));
        let before = self.rt.counters.clone();
        let start = Instant::now();
        self.quiet += 1;
        let r = (0..n).try_for_each(|i| {
            let r = self.exec_block(body);
            self.progress(i as u64 + 1, n as u64);
            r
        });
        self.progress(n as u64, n as u64);
        self.quiet -= 1;
        r?;
        let wall = start.elapsed().as_secs_f64() / n as f64;
        let d = self.rt.counters.since(&before);
        let iterations = format!("{n} iteration{}", if n == 1 { "" } else { "s" });
        let device_work = d.kernels + d.h2d.0 + d.d2h.0 + d.d2d.0 > 0;
        let text = match (key, start_mark) {
            (Some(k), Some(m0)) if device_work => {
                let m1 = self.rt.finish_stream(k);
                let per = (m1.time - m0.time) / n as f64;
                let stream = self.rt.stream_ref(k).name;
                let mut text = format!(
                    "time: {} per iteration (device time on cuda:{} stream `{stream}`, {}; {iterations})",
                    display::fmt_seconds(per),
                    k.device,
                    self.rt.modelled_on().unwrap_or_default(),
                );
                let bytes = d.h2d.1 + d.d2h.1 + d.d2d.1;
                if bytes > 0 && per > 0.0 {
                    let rate = bytes as f64 / n as f64 / per / 1e9;
                    text.push_str(&format!("\n      copies: {rate:.1} GB/s"));
                }
                text
            }
            _ => format!(
                "time: {} per iteration (host wall clock, {iterations})",
                display::fmt_seconds(wall)
            ),
        };
        self.emit(Output::Text(text));
        Ok(())
    }

    fn exec_block(&mut self, b: &Block) -> Result<(), Diagnostic> {
        b.iter().try_for_each(|s| self.exec(s))
    }

    fn exec_for(&mut self, var: &str, iter: &ForIter, body: &Block) -> Result<(), Diagnostic> {
        self.quiet += 1;
        let r = self.run_for(var, iter, body);
        // Always end the progress display, also after an error or an interrupt.
        self.progress(u64::MAX, u64::MAX);
        self.quiet -= 1;
        r
    }

    fn run_for(&mut self, var: &str, iter: &ForIter, body: &Block) -> Result<(), Diagnostic> {
        match iter {
            ForIter::Range(a, b) => {
                let lo = self.eval_int(a, 0, "the start of a range")?;
                let hi = self.eval_int(b, 0, "the end of a range")?;
                let total = hi.saturating_sub(lo).max(0) as u64;
                for i in lo..hi {
                    self.set_var(var, Value::Int(i));
                    self.exec_block(body)?;
                    self.progress((i - lo) as u64 + 1, total);
                }
            }
            ForIter::Each(e) => {
                let items: Vec<Value> = match self.eval(e, 0)? {
                    Value::List(items) => items.as_ref().clone(),
                    Value::Tensor(t) if t.ndim() > 0 => (0..t.shape()[0] as i64)
                        .map(|i| index::select(&t, &[index::Index::At(i)]).map(Value::tensor))
                        .collect::<Result<_, _>>()
                        .map_err(|err| err.at(e.span))?,
                    other => {
                        return Err(Error::wrong_type(
                            "what `for` iterates over",
                            "a range `a..b`, a list or a tensor",
                            other.type_name(),
                        )
                        .at(e.span))
                    }
                };
                let total = items.len() as u64;
                for (k, v) in items.into_iter().enumerate() {
                    self.set_var(var, v);
                    self.exec_block(body)?;
                    self.progress(k as u64 + 1, total);
                }
            }
        }
        Ok(())
    }
}
