//! Executing statements. Blocks do not open scopes.

use std::time::Instant;

use super::args::to_tensor;
use super::{docs, not_available, Counters, Interp, Output, Value};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, ExprKind, ForIter, Stmt, StmtKind, SyncTarget};
use crate::runtime::ops::index;
use crate::runtime::Device;

impl Interp {
    pub(crate) fn exec(&mut self, s: &Stmt) -> Result<(), Diagnostic> {
        self.check_interrupt(s.span)?;
        let at = |e: Error| e.at(s.span);
        match &s.kind {
            StmtKind::Expr(e) if matches!(&e.kind, ExprKind::Var(n) if n == "devices" && !self.vars.contains_key(n)) =>
            {
                let text = self.devices_text();
                self.out.push(Output::Text(text));
            }
            StmtKind::Expr(e) => {
                let v = self.eval(e, 0)?;
                if self.quiet == 0 {
                    if let Some(text) = display::value::display_text(&v) {
                        self.out.push(Output::Value(text));
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
                index::assign(&view, &src).map_err(at)?;
                self.counters.ops += 1;
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
                        let saved = self.current_device;
                        self.current_device = d;
                        let r = self.exec_block(body);
                        self.current_device = saved;
                        r?;
                    }
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
            StmtKind::Stream(..) => return Err(at(not_available("a stream block"))),
            StmtKind::Wait(e) => {
                let v = self.eval(e, 0)?;
                return Err(Error::wrong_type(
                    "the target of `wait`",
                    "a stream or an event",
                    v.type_name(),
                )
                .at(e.span));
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
                if self.devices.count() == 0 {
                    return Err(at(not_available("`pin`")));
                }
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
                    self.out.push(Output::Warning(format!(
                        "`{}` is already pinned",
                        name.name
                    )));
                } else if t.attach(self.devices.register(t.read().nbytes())).is_err() {
                    return Err(at(Error::value("this tensor's memory cannot be pinned")));
                }
            }
            StmtKind::Sync(target) => match target {
                // Every op so far runs to completion before the next: nothing is ever pending.
                SyncTarget::Current | SyncTarget::All => {}
                SyncTarget::Of(e) => match self.eval(e, 0)? {
                    // Until streams exist, device work finishes before the next statement.
                    Value::Device(_) => {}
                    other => {
                        return Err(Error::wrong_type(
                            "the target of `sync`",
                            "a stream, a device or `all`",
                            other.type_name(),
                        )
                        .at(e.span))
                    }
                },
            },
            StmtKind::Mem { map, target } => {
                let text = self.mem_text(*map, target)?;
                self.out.push(Output::Text(text));
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
                let per = start.elapsed().as_secs_f64() / n as f64;
                self.out.push(Output::Text(format!(
                    "time: {} per iteration (host wall clock, {n} iteration{}; modelled device time comes with streams)",
                    display::fmt_seconds(per),
                    if n == 1 { "" } else { "s" }
                )));
            }
            StmtKind::Profile(body) => {
                let before = self.counters.clone();
                let start = Instant::now();
                self.exec_block(body)?;
                let wall = start.elapsed().as_secs_f64();
                let d = diff(&self.counters, &before);
                self.out
                    .push(Output::Text(display::profile_table(&d, wall)));
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
                self.out.push(Output::Text(text));
            }
        }
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

fn diff(now: &Counters, before: &Counters) -> Counters {
    Counters {
        ops: now.ops - before.ops,
        allocations: now.allocations - before.allocations,
        bytes: now.bytes - before.bytes,
        h2d: (now.h2d.0 - before.h2d.0, now.h2d.1 - before.h2d.1),
        d2h: (now.d2h.0 - before.d2h.0, now.d2h.1 - before.d2h.1),
        d2d: (now.d2d.0 - before.d2d.0, now.d2d.1 - before.d2d.1),
        host_syncs: now.host_syncs - before.host_syncs,
    }
}
