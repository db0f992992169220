//! The `mem`, `pin` and `devices` statements.

use std::collections::HashSet;
use std::sync::Arc;

use super::{Interp, Output, Shown, Value};
use crate::display::{html, memory, memory_history};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{MemView, Name, SyncTarget};
use crate::lang::Span;
use crate::runtime::alloc::history::{Entry, Resolver};
use crate::runtime::Device;

impl Interp {
    /// `mem` and `mem map`: text for terminals, and (when asked) HTML tables
    /// with the segments drawn for notebooks.
    pub(crate) fn mem_shown(
        &mut self,
        view: MemView,
        target: &SyncTarget,
        statement: crate::lang::Span,
    ) -> Result<Shown, Diagnostic> {
        let map = view == MemView::Map;
        let span = match target {
            SyncTarget::Of(e) => e.span,
            _ => statement,
        };
        self.rt.need_cuda("`mem`").map_err(|e| e.at(span))?;
        let targets: Vec<Device> = match target {
            SyncTarget::Current => vec![Device::Cuda(self.rt.current_device)],
            SyncTarget::All => (0..self.rt.devices.count())
                .map(Device::Cuda)
                .chain([Device::Cpu])
                .collect(),
            SyncTarget::Of(e) => match self.eval(e, 0).map(|v| self.resolve(v))? {
                Value::Device(d) => vec![self
                    .rt
                    .check_device(d.get())
                    .map_err(|err| err.at(e.span))?],
                other => {
                    return Err(Error::wrong_type(
                        "the target of `mem`",
                        "a device or `all`",
                        other.type_name(),
                    )
                    .at(e.span))
                }
            },
        };
        if view == MemView::History {
            return self.history_shown(&targets, span);
        }
        let mut texts = Vec::new();
        let mut htmls = Vec::new();
        for d in targets {
            match d {
                // (No allocator: the meta device takes no memory.)
                Device::Meta => {}
                Device::Cpu => {
                    let host = self.rt.devices.host();
                    texts.push(memory::host_summary(host.stats()));
                    if self.hooks.html {
                        htmls.push(html::host_mem(host.stats()));
                    }
                }
                Device::Cuda(i) => {
                    let info = self
                        .rt
                        .devices
                        .info(i)
                        .cloned()
                        .ok_or_else(|| Error::value("no such device").at(span))?;
                    let owners = self.block_owners();
                    let lookup = |seg: u64, off: usize| -> Vec<String> {
                        owners
                            .iter()
                            .filter(|(dev, s, o, _)| *dev == i && *s == seg && *o == off)
                            .map(|(_, _, _, n)| n.clone())
                            .collect()
                    };
                    let gpu = self
                        .rt
                        .devices
                        .gpu(i)
                        .ok_or_else(|| Error::value("no such device").at(span))?;
                    let mut text = match map {
                        true => memory::map(&info, &gpu, &lookup),
                        false => memory::summary(&info, &gpu.allocator),
                    };
                    let mut page = match self.hooks.html {
                        true => html::mem(&info, &gpu, &lookup),
                        false => String::new(),
                    };
                    let (saved, only, grads) = self.autograd_bytes(i);
                    if saved + grads > 0 {
                        let line = memory::autograd_line(saved, only, grads);
                        text = format!("{text}\n  {line}");
                        page.push_str(&format!("<p>{}</p>", html::escape(&line)));
                    }
                    texts.push(text);
                    if self.hooks.html {
                        htmls.push(page);
                    }
                }
            }
        }
        Ok(Shown {
            text: texts.join("\n\n"),
            html: self.hooks.html.then(|| htmls.concat()),
        })
    }

    /// `mem history`: each device's allocated and reserved bytes over its
    /// recorded events (the host's allocator keeps no history: `mem history
    /// all` shows the devices).
    fn history_shown(&mut self, targets: &[Device], span: Span) -> Result<Shown, Diagnostic> {
        if targets == [Device::Cpu] {
            return Err(Error::value_help(
                "the host's pinned-memory allocator keeps no history",
                "`mem history` shows a CUDA device's: `mem history cuda:0`, or `mem history all`",
            )
            .at(span));
        }
        let mut texts = Vec::new();
        let mut htmls = Vec::new();
        let ctx = std::sync::Arc::clone(self.rt.devices.history());
        let mut resolver = Resolver::new(&ctx);
        for &d in targets {
            let Device::Cuda(i) = d else { continue };
            let (entries, dropped, enabled, saved): (Vec<Entry>, u64, bool, HashSet<u64>) = {
                let gpu = self
                    .rt
                    .devices
                    .gpu(i)
                    .ok_or_else(|| Error::value("no such device").at(span))?;
                let h = gpu.allocator.history();
                // The addresses of the blocks the session's graphs keep now.
                let saved = self
                    .saved_blocks(i)
                    .iter()
                    .filter_map(|b| gpu.allocator.address(b))
                    .collect();
                (h.entries(), h.dropped(), h.enabled(), saved)
            };
            let name = format!("cuda:{i}");
            if entries.is_empty() {
                let why = match enabled {
                    true => "nothing has been allocated there since recording began",
                    false => "recording is off: `record_memory_history(enabled=true)` turns it on",
                };
                texts.push(format!("{name} memory history: no events recorded ({why})"));
                htmls.push(format!(
                    "<p>{}</p>",
                    html::escape(texts.last().map_or("", |t| t))
                ));
                continue;
            }
            let backward = |op: u16| crate::autograd::node::is_backward_name(ctx.op_name(op));
            let kept = memory_history::kept_for_backward(&entries, &backward, &|addr| {
                saved.contains(&addr)
            });
            let mut place = |k: usize| resolver.place(entries[k].frame);
            texts.push(memory_history::text(
                &name,
                (&entries, &kept),
                dropped,
                self.hooks.width,
                &mut place,
            ));
            if self.hooks.html {
                htmls.push(memory_history::svg(
                    &name,
                    (&entries, &kept),
                    dropped,
                    &mut place,
                ));
            }
        }
        Ok(Shown {
            text: texts.join("\n\n"),
            html: self.hooks.html.then(|| htmls.concat()),
        })
    }

    /// `pin x`: page-locks a host tensor's memory in place.
    pub(crate) fn exec_pin(&mut self, name: &Name, span: Span) -> Result<(), Diagnostic> {
        let v = self
            .get_var(name)
            .map(std::borrow::Cow::into_owned)
            .ok_or_else(|| {
                Error::UnknownName {
                    name: name.name.clone(),
                    suggestion: None,
                }
                .at(name.span)
            })?;
        let Value::Tensor(t) = v else {
            return Err(
                Error::wrong_type(format!("`{}`", name.name), "a tensor", v.type_name())
                    .at(name.span),
            );
        };
        self.rt.need_cuda("`pin`").map_err(|e| e.at(span))?;
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
            return Ok(());
        }
        self.rt.pin_in_place(&t).map_err(|e| e.at(span))
    }

    /// (device, segment, offset, name) for every tensor a name reaches
    /// holding a device block (inside lists and dicts too: `xs[0]`), the
    /// optimizers' state (`exp_avg of W (Adam)`), those tensors' `.grad`,
    /// and the blocks only a graph holds ("saved by ExpBackward0 (for
    /// `loss`)").
    fn block_owners(&self) -> Vec<(u32, u64, usize, String)> {
        let mut out = Vec::new();
        let mut visit = |name: String, t: &crate::runtime::Tensor| {
            if let (Device::Cuda(d), Some(b)) = (t.device(), t.memory().and_then(|m| m.block())) {
                out.push((d, b.segment, b.offset, name));
            }
        };
        let tensors = self.reachable_tensors();
        for (name, t) in &tensors {
            visit(name.clone(), t);
        }
        // The optimizers' state, named by what PyTorch's `opt.state[p]`
        // calls it and the parameter's name.
        let mut names: Vec<(&String, &Value)> = self.named_values().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        for (opt_name, v) in &names {
            let Value::Optimizer(o) = v else { continue };
            let o = crate::runtime::lock::lock(o);
            for (k, what, t) in o.state_tensors() {
                let p = &o.params[k];
                let param = tensors
                    .iter()
                    .find(|(_, t)| Arc::ptr_eq(t, p))
                    .map(|(n, _)| n.clone())
                    .unwrap_or_else(|| format!("{opt_name}'s parameter {k}"));
                visit(format!("{what} of {param} ({})", o.name()), &t);
            }
        }
        // What autograd holds for them: a leaf's `.grad`, and the tensors a
        // graph saved for backward, named by the node that saved them when
        // no name holds their block.
        for (name, t) in &tensors {
            if let Some(g) = crate::autograd::meta::meta(t).and_then(|m| m.grad()) {
                visit(format!("{name}.grad"), &g);
            }
        }
        // Autocast's weight cache: a parameter's cast, kept for the region.
        for (at, cast) in crate::autograd::autocast::cached() {
            let of = tensors
                .iter()
                .find(|(_, t)| std::ptr::eq(&**t, at as *const crate::runtime::Tensor))
                .map_or_else(|| "a parameter".to_string(), |(n, _)| n.clone());
            visit(format!("autocast's {} cast of {of}", cast.dtype()), &cast);
        }
        let roots: Vec<&crate::runtime::Tensor> = tensors.iter().map(|(_, t)| &**t).collect();
        for (k, node, saved) in crate::autograd::engine::saved_by(&roots) {
            let (Device::Cuda(d), Some(b)) =
                (saved.device(), saved.memory().and_then(|m| m.block()))
            else {
                continue;
            };
            let place = (d, b.segment, b.offset);
            if out.iter().any(|(dv, s, o, _)| (*dv, *s, *o) == place) {
                continue;
            }
            let name = &tensors[k].0;
            out.push((
                d,
                b.segment,
                b.offset,
                format!("saved by {node} (for `{name}`)"),
            ));
        }
        out
    }

    /// Every tensor the session's names (and the running call's) reach,
    /// with how to reach it: `x`, `xs[1]`, `xs[1][0]`, `d["w"]`; names in
    /// order, each list once (a list that holds itself is not walked again).
    fn reachable_tensors(&self) -> Vec<(String, Arc<crate::runtime::Tensor>)> {
        let mut names: Vec<(&String, &Value)> = self.named_values().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        let (mut seen, mut out) = (Vec::new(), Vec::new());
        for (name, v) in names {
            walk(name.clone(), v, &mut seen, &mut out);
        }
        out
    }

    /// The blocks on device `d` that only the graphs behind the session's
    /// tensors keep (for backward): none a name reaches (a parameter or an
    /// input a graph saved is the session's, not backward's).
    fn saved_blocks(&self, d: u32) -> Vec<crate::runtime::alloc::Block> {
        let block = |t: &crate::runtime::Tensor| match t.device() {
            Device::Cuda(i) if i == d => t.memory().and_then(|m| m.block()),
            _ => None,
        };
        let tensors = self.reachable_tensors();
        let named: Vec<(u64, usize)> = tensors
            .iter()
            .filter_map(|(_, t)| block(t).map(|b| (b.segment, b.offset)))
            .collect();
        let roots: Vec<&crate::runtime::Tensor> = tensors.iter().map(|(_, t)| &**t).collect();
        crate::autograd::engine::saved_by(&roots)
            .into_iter()
            .filter_map(|(_, _, t)| block(&t))
            .filter(|b| !named.contains(&(b.segment, b.offset)))
            .collect()
    }

    /// What autograd holds on device `d`, in bytes of allocator blocks:
    /// the tensors the graphs behind the session's names saved for
    /// backward, the part of them that no name holds, and the named
    /// leaves' `.grad`s.
    fn autograd_bytes(&self, d: u32) -> (u64, u64, u64) {
        use std::collections::HashMap;
        let block_of = |t: &crate::runtime::Tensor| match t.device() {
            Device::Cuda(i) if i == d => t.memory().and_then(|m| m.block()),
            _ => None,
        };
        let (mut named, mut saved, mut grads) = (Vec::new(), HashMap::new(), HashMap::new());
        let mut roots = Vec::new();
        let tensors = self.reachable_tensors();
        for (_, t) in &tensors {
            named.extend(block_of(t).map(|b| (b.segment, b.offset)));
            if let Some(g) = crate::autograd::meta::meta(t).and_then(|m| m.grad()) {
                if let Some(b) = block_of(&g) {
                    grads.insert((b.segment, b.offset), b.size as u64);
                }
            }
            roots.push(&**t);
        }
        for (_, _, s) in crate::autograd::engine::saved_by(&roots) {
            if let Some(b) = block_of(&s) {
                saved.insert((b.segment, b.offset), b.size as u64);
            }
        }
        let only = saved
            .iter()
            .filter(|(k, _)| !named.contains(*k) && !grads.contains_key(*k))
            .map(|(_, n)| n)
            .sum();
        (saved.values().sum(), only, grads.values().sum())
    }

    pub fn devices_text(&self) -> String {
        let rows: Vec<_> = self
            .rt
            .devices
            .infos()
            .iter()
            .map(|info| {
                let a = self.rt.devices.gpu(info.index);
                let (allocated, reserved) = a
                    .map(|a| {
                        (
                            a.allocator.stats().allocated_bytes.all.current,
                            a.allocator.stats().reserved_bytes.all.current,
                        )
                    })
                    .unwrap_or((0, 0));
                (info.clone(), allocated, reserved)
            })
            .collect();
        let nccl = self.rt.devices.driver().and_then(|d| d.nccl());
        memory::devices_table(
            self.rt.devices.backend(),
            &self.rt.devices.reason,
            &rows,
            nccl.as_deref(),
        )
    }
}

/// `reachable_tensors`' walk: what `v` (reached as `name`) holds.
fn walk(
    name: String,
    v: &Value,
    seen: &mut Vec<usize>,
    out: &mut Vec<(String, Arc<crate::runtime::Tensor>)>,
) {
    match v {
        Value::Tensor(t) => out.push((name, Arc::clone(t))),
        Value::Dict(pairs) => {
            for (k, v) in pairs.items().iter() {
                walk(format!("{name}[{}]", k.repr()), v, seen, out);
            }
        }
        Value::List(_) | Value::MutList(_) => {
            if let Value::MutList(list) = v {
                let at = Arc::as_ptr(list) as usize;
                if seen.contains(&at) {
                    return;
                }
                seen.push(at);
            }
            for (i, v) in v.items().unwrap_or_default().iter().enumerate() {
                walk(format!("{name}[{i}]"), v, seen, out);
            }
        }
        // A model's parameters and buffers by their state_dict
        // names (`model.fc1.weight`), then its plain attributes.
        Value::Module(m) => {
            let at = Arc::as_ptr(m) as usize;
            if seen.contains(&at) {
                return;
            }
            seen.push(at);
            let tensors = crate::nn::module::named_parameters(m, true)
                .into_iter()
                .chain(crate::nn::module::named_buffers(m, true));
            for (key, t) in tensors {
                out.push((format!("{name}.{key}"), t));
            }
            if let Some(o) = super::value::object_of(m) {
                walk_attrs(&name, &o, seen, out);
            }
        }
        Value::Object(o) => {
            let at = Arc::as_ptr(o) as usize;
            if seen.contains(&at) {
                return;
            }
            seen.push(at);
            walk_attrs(&name, o, seen, out);
        }
        _ => {}
    }
}

/// An instance's attributes, as `name.attr`.
fn walk_attrs(
    name: &str,
    o: &super::value::Object,
    seen: &mut Vec<usize>,
    out: &mut Vec<(String, Arc<crate::runtime::Tensor>)>,
) {
    let attrs = crate::runtime::lock::lock(&o.attrs).clone();
    for (k, v) in &attrs {
        walk(format!("{name}.{k}"), v, seen, out);
    }
}
