//! Executing statements: one small function per statement, dispatched from
//! `exec`. Blocks do not open scopes. Streams, `wait` and `sync` are in
//! `streams.rs`, `mem` and `pin` in `memory.rs`, `time` and `profile` in
//! `measure.rs`.

use super::args::operand_value;
use super::flow::{Body, Flow};
use super::{docs, Interp, Output, Shown, Value};
use crate::autograd::meta::requires_grad;
use crate::autograd::{inplace, record};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::eval::value::PyDict;
use crate::lang::ast::{
    BinOp, Block, Expr, ExprKind, ForIter, IndexItem, Name, Stmt, StmtKind, Target,
};
use crate::lang::Span;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index;
use crate::runtime::shape::{broadcast_shapes, fmt_shape};
use crate::runtime::DType;
use std::sync::Arc;

impl Interp {
    pub(crate) fn exec(&mut self, s: &Stmt) -> Result<Flow, Diagnostic> {
        self.enter(s.span)?;
        let r = self.exec_kind(s);
        if self.rt.hazards_pending() {
            self.flush_hazards();
        }
        self.flush_statement_notes();
        // What an in-place statement (`x *= y`) saved under the program's hooks.
        if crate::autograd::saved_hooks::has_pending() {
            self.pack_saved(s.span)?;
        }
        if crate::autograd::anomaly::has_untraced() {
            self.trace_new_nodes();
        }
        r
    }

    fn exec_kind(&mut self, s: &Stmt) -> Result<Flow, Diagnostic> {
        match &s.kind {
            StmtKind::With(e, target, body) => return self.exec_with(e, target.as_ref(), body),
            StmtKind::Stream(name, body) => {
                self.rt
                    .need_cuda("a stream block")
                    .map_err(|e| e.at(s.span))?;
                return self.exec_stream_block(name, body);
            }
            // Loops compile their body once as they start (`compiled`).
            StmtKind::For(..) | StmtKind::While(..) => return super::compiled::looping(s)(self),
            StmtKind::Time(count, body) => return self.exec_time(count.as_ref(), body, s.span),
            StmtKind::Profile(file, body) => return self.exec_profile(file.as_ref(), body, s.span),
            StmtKind::If(branches, otherwise) => return self.exec_if(branches, otherwise.as_ref()),
            StmtKind::NoGrad(body) => return self.exec_no_grad(body),
            StmtKind::Try(t) => return self.exec_try(t),
            StmtKind::Raise(e, cause) => {
                return self.exec_raise(e.as_ref(), cause.as_ref(), s.span)
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e, 0)?,
                    None => Value::None,
                };
                return Ok(self.returning(v));
            }
            _ => {}
        }
        self.exec_simple(s).map(|()| Flow::Next)
    }

    /// A statement that holds no other statements.
    fn exec_simple(&mut self, s: &Stmt) -> Result<(), Diagnostic> {
        match &s.kind {
            StmtKind::Expr(e) => self.exec_expr(e),
            StmtKind::Assign(name, e) | StmtKind::Annotated(name, Some(e)) => {
                let v = self.eval(e, 0)?;
                self.assign(name, v);
                Ok(())
            }
            StmtKind::Annotated(_, None) => Ok(()),
            StmtKind::Unpack(targets, e) => {
                let v = self.eval(e, 0)?;
                // The count mismatch points at the whole statement, as before.
                let starred = targets.iter().any(|t| matches!(t, Target::Starred(_)));
                let span = match v.count() {
                    Some(n) if n != targets.len() && !starred => s.span,
                    Some(n) if n + 1 < targets.len() => s.span,
                    _ => e.span,
                };
                self.unpack(targets, v, span)
            }
            StmtKind::Chain(targets, e) => {
                let v = self.eval(e, 0)?;
                for t in targets {
                    match t {
                        Target::Name(name) => self.assign(name, v.clone()),
                        t => self.set_target(t, v.clone(), e.span)?,
                    }
                }
                Ok(())
            }
            StmtKind::IndexAssign(obj, items, value) => {
                self.exec_index_assign(obj, items, Rhs::Written(value), s.span)
            }
            StmtKind::Augmented(target, op, value) => {
                self.exec_augmented(target, *op, value, s.span)
            }
            StmtKind::AttrAssign(obj, attr, value) => {
                let target = self.eval(obj, 0)?;
                let v = self.eval(value, 0)?;
                self.set_attr_of(&target, &attr.name, v, value.span, attr.span)
            }
            StmtKind::Wait(e) => {
                self.begin_op("wait");
                self.exec_wait(e, s.span)
            }
            StmtKind::Pin(name) => {
                self.begin_op("pin");
                self.exec_pin(name, s.span)
            }
            StmtKind::Sync(target) => {
                self.begin_op("sync");
                self.exec_sync(target, s.span)
            }
            StmtKind::Del(targets) => self.exec_del(targets),
            StmtKind::Mem { view, target } => {
                let shown = self.mem_shown(*view, target, s.span)?;
                self.emit(Output::Display(shown));
                Ok(())
            }
            StmtKind::Help(topic) => self.exec_help(topic.as_ref()),
            StmtKind::Fn(def) => self.define(def),
            StmtKind::Class(def) => self.define_class(def),
            // Decided when the function was defined (`resolve`).
            StmtKind::Pass | StmtKind::Global(_) | StmtKind::Nonlocal(_) => Ok(()),
            StmtKind::Assert(c, message) => self.exec_assert(c, message.as_ref()),
            StmtKind::Import(items) => self.exec_import(items),
            // The statements that hold others: `exec_kind`.
            StmtKind::With(..)
            | StmtKind::Stream(..)
            | StmtKind::For(..)
            | StmtKind::Time(..)
            | StmtKind::Profile(..)
            | StmtKind::If(..)
            | StmtKind::While(..)
            | StmtKind::NoGrad(..)
            | StmtKind::Try(..)
            | StmtKind::Raise(..)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(_) => Ok(()),
            // A generator's body runs in `generator::Generator`, which
            // yields itself; no other code reaches a `yield`.
            StmtKind::Yield { .. } => Err(Error::value(
                "internal error: `yield` reached outside its generator",
            )
            .at(s.span)),
        }
    }

    /// `name = v`: a stream takes the name as its own when it has none.
    #[inline]
    pub(super) fn assign(&mut self, name: &Name, mut v: Value) {
        if let Value::Stream(s) = &v {
            if let Some(named) = self.rt.name_stream(s, &name.name) {
                v = Value::stream(named);
            }
        }
        self.set_var(name, v);
    }

    /// An expression statement shows its value (a host read); `devices`, when
    /// no variable has that name, shows the device table.
    fn exec_expr(&mut self, e: &Expr) -> Result<(), Diagnostic> {
        if matches!(&e.kind, ExprKind::Var(n) if n.name == "devices" && self.get_var(n).is_none()) {
            let text = self.devices_text();
            self.emit(Output::Text(text));
            return Ok(());
        }
        let v = self.eval(e, 0)?;
        self.expression_statement(v, e.span)
    }

    /// What an expression statement does with its value `v`: shows it,
    /// outside loops and calls.
    pub(super) fn expression_statement(&mut self, v: Value, span: Span) -> Result<(), Diagnostic> {
        if self.quiet == 0 && self.echo {
            // Inside `profile { }`, a device value is shown after the
            // profile: reading it (a sync and a copy) is not the block's work.
            if let Some(later) = self.shown_after.as_mut() {
                if v.on_a_device() {
                    later.push((v, span));
                    return Ok(());
                }
            }
            // While the stream captures a CUDA graph, a device value is not
            // shown: showing it is a host read, which a capture cannot
            // record (an explicit `print(x)` is CUDA's error, as in PyTorch).
            if v.on_a_device() && self.rt.is_current_stream_capturing() {
                return Ok(());
            }
            self.show(v, span)?;
        }
        Ok(())
    }

    /// Shows a value (a host read, as PyTorch's repr does).
    pub(super) fn show(&mut self, v: Value, span: Span) -> Result<(), Diagnostic> {
        self.begin_op("show");
        let html = self.hooks.html;
        // An object with `_repr_html_` (IPython's `HTML`, an animation) is
        // shown in a notebook as its HTML, beside its repr, as Jupyter shows it.
        let mut object_html = None;
        if let (true, Value::Object(o)) = (html, &v) {
            if o.class.find("_repr_html_").is_some() {
                let name = crate::lang::ast::Name::new("_repr_html_".into(), span);
                if let Value::Str(h) = self.call_method(v.clone(), &name, Vec::new(), span)? {
                    object_html = Some(h.to_string());
                }
            }
        }
        let shown = self
            .host_read(&[&v], || {
                let text = super::show::display_text(&v)?;
                let html = match &v {
                    // A parameter under PyTorch's line, as its text shows it.
                    Value::Tensor(t) if html => {
                        Some(match crate::autograd::meta::is_parameter(t) {
                            true => format!(
                                "<div>Parameter containing:</div>{}",
                                display::html::tensor(t)
                            ),
                            false => display::html::tensor(t),
                        })
                    }
                    _ => object_html,
                };
                Some(Shown { text, html })
            })
            .map_err(|err| err.at(span))?;
        self.flush_notes();
        self.flush_hazards();
        if let Some(shown) = shown {
            self.emit(Output::Value(shown));
        }
        Ok(())
    }

    /// `x += v` and its kin, as Python runs them: a tensor (or the view
    /// `x[i]` selects) is updated in place (`__iadd__`), so every name for
    /// it sees the change; a number is replaced by the result.
    fn exec_augmented(
        &mut self,
        target: &Expr,
        op: BinaryOp,
        value: &Expr,
        span: Span,
    ) -> Result<(), Diagnostic> {
        // `x[i] += v`: a view of x updated in place; with a tensor index,
        // Python's x[i] = x[i] + v in place: the selection is a copy,
        // updated, then written back.
        if let ExprKind::Attr(obj, attr) = &target.kind {
            return self.exec_augmented_attr(obj, attr, op, value, span);
        }
        let mut basic = None;
        let current = match &target.kind {
            ExprKind::Index(obj, items) => {
                let base = self.eval(obj, 0)?;
                if let Value::Dict(_) | Value::MutList(_) = base {
                    return self.augment_item(&base, items, op, value, span);
                }
                let t = self.indexable(&base, obj.span)?;
                let idx = self.eval_index(items, 0)?;
                let at = |e: Error| e.at(span);
                inplace::check_leaf(self.grad, &t).map_err(at)?;
                let picked = self.rt.index(&t, &idx).map_err(at)?;
                if index::is_advanced(&idx) {
                    let picked =
                        record::index(&mut self.rt, self.grad, &t, picked, &idx).map_err(at)?;
                    let v = self.eval(value, 0)?;
                    let (y, weak) = augmented_operand(&v, op, value.span)?;
                    self.begin_op(op.name());
                    let y = Operand { tensor: &y, weak };
                    inplace::binary_(&mut self.rt, self.grad, op, &picked, y).map_err(at)?;
                    self.begin_op("index_put_");
                    let write = |rt: &mut Runtime| rt.index_put(&t, &idx, &picked);
                    return inplace::index_put(
                        &mut self.rt,
                        self.grad,
                        &t,
                        &idx,
                        Some(&picked),
                        write,
                    )
                    .map_err(at);
                }
                basic = Some((t, idx));
                Value::Tensor(picked)
            }
            _ => self.eval(target, 0)?,
        };
        let v = self.eval(value, 0)?;
        if let ExprKind::Var(name) = &target.kind {
            return self.augment_name(name, op, current, v, span, value.span);
        }
        self.begin_op(op.name());
        match (&current, &target.kind) {
            // `x[i] += v`: the view of x updated in place; in a graph, x's
            // history is rebased through the view (`CopySlices`).
            (Value::Tensor(t), ExprKind::Index(..)) => {
                let at = |e: Error| e.at(span);
                let (y, weak) = augmented_operand(&v, op, value.span)?;
                let t = match basic {
                    Some((base, idx)) if requires_grad(&base) || (!weak && requires_grad(&y)) => {
                        inplace::writable(&mut self.rt, self.grad, &base, &idx, Arc::clone(t))
                            .map_err(at)?
                    }
                    _ => Arc::clone(t),
                };
                let y = Operand { tensor: &y, weak };
                inplace::binary_(&mut self.rt, self.grad, op, &t, y).map_err(at)
            }
            (Value::Tensor(t), _) => self.augment_tensor(t, op, &v, span, value.span),
            _ => Err(Error::wrong_type(
                format!("the left of `{}=`", op.symbol()),
                "a name or a tensor's elements",
                current.type_name(),
            )
            .at(target.span)),
        }
    }

    /// `assert c, message`: Python's `AssertionError` (with the message's
    /// text) when `c` is false.
    fn exec_assert(&mut self, c: &Expr, message: Option<&Expr>) -> Result<(), Diagnostic> {
        let v = self.eval(c, 0)?;
        if self.truth(&v, c.span)? {
            return Ok(());
        }
        let text = match message {
            Some(m) => {
                let v = self.eval(m, 0)?;
                self.formatted(&v, None, "").map_err(|e| e.at(m.span))?
            }
            None => String::new(),
        };
        Err(Error::Module {
            class: "AssertionError",
            message: text,
            help: None,
        }
        .at(c.span))
    }

    /// `obj.name op= v`: the object read once; a tensor is updated in
    /// place, anything else gives a new value the property takes.
    fn exec_augmented_attr(
        &mut self,
        obj: &Expr,
        attr: &Name,
        op: BinaryOp,
        value: &Expr,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let target = self.eval(obj, 0)?;
        let current = self.property(&target, &attr.name, attr.span)?;
        let v = self.eval(value, 0)?;
        if let Value::Tensor(t) = &current {
            self.begin_op(op.name());
            return self.augment_tensor(t, op, &v, span, value.span);
        }
        let r = match super::quick::quick_scalar(BinOp::Elementwise(op), &current, &v) {
            Some(r) => r,
            None => match self.in_place_operator_method(op, &current, &v, span) {
                Some(r) => r?,
                None => {
                    self.begin_op(op.name());
                    self.binary(BinOp::Elementwise(op), current, v)
                        .map_err(|e| e.at(span))?
                }
            },
        };
        match &target {
            Value::Object(_) | Value::Module(_) | Value::Class(_) | Value::Function(_) => {
                self.set_object_attr(&target, &attr.name, r, attr.span)
            }
            _ => self.set_property(&target, attr, r, value.span),
        }
    }

    /// `d[k] op= v` and `xs[i] op= v`: the item read, combined (a tensor
    /// in place), and set back, as Python's `d[k] = d[k].__iadd__(v)`.
    fn augment_item(
        &mut self,
        base: &Value,
        items: &[IndexItem],
        op: BinaryOp,
        value: &Expr,
        span: Span,
    ) -> Result<(), Diagnostic> {
        // `d[k] += v`, `d[i, j] += v`: the key made once.
        let dict_key = match base {
            Value::Dict(_) => Some(self.dict_key(items, span, 0)?),
            _ => None,
        };
        let [IndexItem::At(k)] = items else {
            if let (Value::Dict(d), Some(key)) = (base, dict_key) {
                let current = match d.get(&key) {
                    Some(v) => v,
                    None => self.missing_item(d, key.clone(), span)?,
                };
                let r = self.augmented_value(current, op, value, span)?;
                d.set(key, r);
                return Ok(());
            }
            return Err(
                Error::value("an item is updated by one key or index: `d[k] += v`").at(span),
            );
        };
        let at = match &dict_key {
            Some(key) => key.value(),
            None => self.eval(k, 0)?,
        };
        let current = match (base, &dict_key) {
            (Value::Dict(d), Some(key)) => match d.get(key) {
                Some(v) => v,
                None => self.missing_item(d, key.clone(), k.span)?,
            },
            _ => {
                let Value::Int(i) = at else {
                    return Err(
                        Error::wrong_type("a list index", "an int", at.type_name()).at(k.span)
                    );
                };
                let items = base.items().unwrap_or_default();
                let j = super::expr::list_index(i, items.len()).map_err(|e| e.at(k.span))?;
                items[j].clone()
            }
        };
        let r = self.augmented_value(current, op, value, span)?;
        match (base, dict_key) {
            (Value::Dict(d), Some(key)) => d.set(key, r),
            (Value::MutList(list), _) => {
                let mut list = crate::runtime::lock::lock(list);
                if let Value::Int(i) = at {
                    let j = super::expr::list_index(i, list.len()).map_err(|e| e.at(k.span))?;
                    Arc::make_mut(&mut list)[j] = r;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `current op v` of an augmented assignment to an item: a tensor
    /// updated in place (and given back), else the new value.
    fn augmented_value(
        &mut self,
        current: Value,
        op: BinaryOp,
        value: &Expr,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let v = self.eval(value, 0)?;
        Ok(
            match (
                &current,
                super::quick::quick_scalar(BinOp::Elementwise(op), &current, &v),
            ) {
                (_, Some(r)) => r,
                (Value::Tensor(t), None) => {
                    self.begin_op(op.name());
                    self.augment_tensor(t, op, &v, span, value.span)?;
                    current.clone()
                }
                (_, None) => match self.in_place_operator_method(op, &current, &v, span) {
                    Some(r) => r?,
                    None => {
                        self.begin_op(op.name());
                        self.binary(BinOp::Elementwise(op), current.clone(), v)
                            .map_err(|e| e.at(span))?
                    }
                },
            },
        )
    }

    /// `name op= v`, `current` the name's value: a tensor is updated in
    /// place; anything else gives a new value the name takes, as Python
    /// rebinds it (a number by a number at once, before the op is named
    /// for `profile`).
    pub(super) fn augment_name(
        &mut self,
        name: &Name,
        op: BinaryOp,
        current: Value,
        v: Value,
        span: Span,
        value_span: Span,
    ) -> Result<(), Diagnostic> {
        if let Some(r) = super::quick::quick_scalar(BinOp::Elementwise(op), &current, &v) {
            self.set_var(name, r);
            return Ok(());
        }
        self.begin_op(op.name());
        if let Value::Tensor(t) = &current {
            return self.augment_tensor(t, op, &v, span, value_span);
        }
        // `d |= e` updates the dict in place, `s |= t` the set (every name
        // for it sees it), as Python's.
        let frozen = matches!(&current, Value::Set(s) if s.is_frozen());
        if let (Value::Dict(d) | Value::Set(d), BinaryOp::BitOr, false) = (&current, op, frozen) {
            let merged = self
                .binary(BinOp::Elementwise(op), current.clone(), v)
                .map_err(|e| e.at(span))?;
            if let Value::Dict(m) | Value::Set(m) = merged {
                for (k, x) in m.items().iter() {
                    d.set(k.clone(), x.clone());
                }
            }
            return Ok(());
        }
        // `xs += ys` extends the list in place (every name for it sees it).
        if let (Value::MutList(list), BinaryOp::Add) = (&current, op) {
            let more = super::builtins::python::items_of(self, &v, value_span, "+=")?;
            Arc::make_mut(&mut crate::runtime::lock::lock(list)).extend(more);
            return Ok(());
        }
        let r = match self.in_place_operator_method(op, &current, &v, span) {
            Some(r) => r?,
            None => self
                .binary(BinOp::Elementwise(op), current, v)
                .map_err(|e| e.at(span))?,
        };
        self.set_var(name, r);
        Ok(())
    }

    /// `t op= v` in place.
    fn augment_tensor(
        &mut self,
        t: &Arc<crate::runtime::Tensor>,
        op: BinaryOp,
        v: &Value,
        span: Span,
        value_span: Span,
    ) -> Result<(), Diagnostic> {
        let (y, weak) = augmented_operand(v, op, value_span)?;
        let y = Operand { tensor: &y, weak };
        inplace::binary_(&mut self.rt, self.grad, op, t, y).map_err(|e| e.at(span))
    }

    /// `x[i] = v`: writes into the view `x[i]` selects.
    fn exec_index_assign(
        &mut self,
        obj: &Expr,
        items: &[IndexItem],
        value: Rhs,
        span: Span,
    ) -> Result<(), Diagnostic> {
        // `globals()[key] = value`: the module's variable `key`.
        if let (ExprKind::Call(f, args), [IndexItem::At(k)]) = (&obj.kind, items) {
            if args.is_empty()
                && matches!(&f.kind, ExprKind::Var(n) if n.name == "globals")
                && matches!(self.eval(f, 0), Ok(Value::Builtin(d)) if d.name == "globals")
            {
                let Value::Str(key) = self.eval(k, 0)? else {
                    return Err(
                        Error::value("globals() takes a variable's name as the key").at(k.span)
                    );
                };
                let v = value.value(self)?;
                self.vars.insert(key.to_string(), v);
                return Ok(());
            }
        }
        // `m._parameters["w"] = p`, `m._buffers[k] = t`, `m._modules[k] =
        // layer`: registered on the module, as PyTorch's dicts are its own.
        let target = match self.indexed_target(obj, items)? {
            Indexed::ModuleTable(holder, table, k) => {
                let method = match table {
                    "_parameters" => "register_parameter",
                    "_buffers" => "register_buffer",
                    _ => "add_module",
                };
                let key = self.eval(k, 0)?;
                let v = value.value(self)?;
                let call = Value::BuiltinMethod(Arc::new((holder, method)));
                let args = vec![
                    super::args::ArgVal::positional(key, k.span),
                    super::args::ArgVal::positional(v, span),
                ];
                return self.call_value(call, args, span).map(|_| ());
            }
            Indexed::Value(v) => v,
        };
        // `md["fc"] = Linear(2, 2)`, `seq[0] = Linear(2, 2)`.
        if let Value::Module(m) = &target {
            return self.module_item_assign(m, items, value, span);
        }
        // `g["lr"] = 0.01` of a parameter group.
        if let Value::ParamGroup(g) = &target {
            let key = self.group_key(items, span, 0)?;
            let v = value.value(self)?;
            return super::param_group::group_set(&g.0, g.1, &key, &v).map_err(|e| e.at(span));
        }
        if let Value::Dict(d) = &target {
            return self.dict_item_assign(obj, d, items, value, span);
        }
        // `a[k] = v` of a class with `__setitem__`.
        if let Value::Object(_) = &target {
            let key = self.item_key(items, 0)?;
            let v = value.value(self)?;
            let args = vec![
                super::args::ArgVal::positional(key, span),
                super::args::ArgVal::positional(v, span),
            ];
            let name = crate::lang::ast::Name::new("__setitem__".into(), span);
            self.call_method(target.clone(), &name, args, span)?;
            return Ok(());
        }
        if let Value::MutList(list) = &target {
            // `xs[a:b] = ys`: the part replaced by the items of `ys`.
            if let [IndexItem::Slice {
                start, stop, step, ..
            }] = items
            {
                let bounds = self.slice_bounds([start, stop, step], 0)?;
                let v = value.value(self)?;
                let new = self.items_of(v, span)?;
                let mut list = crate::runtime::lock::lock(list);
                let xs = Arc::make_mut(&mut list);
                return assign_slice(xs, bounds, new).map_err(|e| e.at(span));
            }
            // `xs[i] = v`: Python's list item assignment.
            let [IndexItem::At(k)] = items else {
                return Err(Error::value(
                    "a list item is assigned by one integer index, e.g. `xs[0] = v`",
                )
                .at(span));
            };
            let i = self.eval_int(k, 0, "a list index")?;
            let v = value.value(self)?;
            let mut list = crate::runtime::lock::lock(list);
            let j = super::expr::list_index(i, list.len()).map_err(|e| e.at(k.span))?;
            Arc::make_mut(&mut list)[j] = v;
            return Ok(());
        }
        if let Value::List(_) = &target {
            // A tuple, or a result's parts: fixed.
            return Err(Error::Spelling {
                message: "'tuple' object does not support item assignment (`(a, b)`, or a \
                          result's parts)"
                    .into(),
                label: "a tuple".into(),
                help: "make a list of it first: `xs = list(t)`, then `xs[0] = v` and \
                       `xs.append(v)` work"
                    .into(),
                class: "TypeError",
            }
            .at(obj.span));
        }
        let t = self.indexable(&target, obj.span)?;
        let idx = self.eval_index(items, 0)?;
        let v = value.value(self)?;
        self.begin_op("index_put_");
        // A Python float keeps its f64 digits until it is cast to x's dtype.
        let src = super::args::operand_value(&v)
            .map(|(t, _)| t)
            .ok_or_else(|| {
                Error::wrong_type("the assigned value", "a number or a tensor", v.type_name())
                    .at(value.span())
            })?;
        inplace::check_leaf(self.grad, &t).map_err(|e| e.at(span))?;
        if let Value::Int(_) | Value::Float(_) = v {
            let x = src.cast(DType::F64).to_vec::<f64>()[0];
            let integer = matches!(v, Value::Int(_));
            super::builtins::masked::number_fits(t.dtype(), x, integer, false)
                .map_err(|e| e.at(value.span()))?;
        }
        if index::is_advanced(&idx) {
            // PyTorch converts a number to the tensor's dtype, and fills
            // through a mask with one value of any dtype (masked_fill_);
            // any other tensor value must have the tensor's dtype.
            let mask_fill = src.ndim() == 0
                && idx
                    .iter()
                    .any(|i| matches!(i, index::Index::Tensor(m) if m.dtype() == DType::Bool));
            if matches!(v, Value::Tensor(_)) && !mask_fill && src.dtype() != t.dtype() {
                return Err(Error::dtype(
                    format!(
                        "index put requires the source and destination dtypes match, got {} for the destination and {} for the source",
                        t.dtype(),
                        src.dtype()
                    ),
                    Some(format!("convert the value first, e.g. `.to({})`", t.dtype())),
                )
                .at(span));
            }
            let lead = src.shape().iter().take_while(|&&n| n == 1).count();
            let stripped = src.view(
                src.shape()[lead..].to_vec(),
                src.strides()[lead..].to_vec(),
                src.offset(),
            );
            // A number written through a mask is `masked_fill_`, no input.
            let from = matches!(v, Value::Tensor(_)).then_some(&*src);
            let write = |rt: &mut Runtime| rt.index_put(&t, &idx, &stripped);
            return inplace::index_put(&mut self.rt, self.grad, &t, &idx, from, write)
                .map_err(|e| e.at(span));
        }
        let view = index::select(&t, &idx).map_err(|e| e.at(span))?;
        // As PyTorch's indexed assignment, the value's leading 1s go first:
        // `x[0] = ones(1, 3)` fills a row of 3.
        let lead = src.shape().iter().take_while(|&&n| n == 1).count();
        let fits =
            broadcast_shapes(view.shape(), &src.shape()[lead..]).is_some_and(|s| s == view.shape());
        if !fits {
            return Err(Error::Shape {
                message: format!(
                    "cannot assign a value of shape {} to a selection of shape {}",
                    fmt_shape(src.shape()),
                    fmt_shape(view.shape())
                ),
                help: Some(
                    "the value must broadcast to the selected shape (leading 1s aside)".into(),
                ),
            }
            .at(span));
        }
        let stripped = match lead {
            0 => Arc::clone(&src),
            _ => Arc::new(src.view(
                src.shape()[lead..].to_vec(),
                src.strides()[lead..].to_vec(),
                src.offset(),
            )),
        };
        let at = |e: Error| e.at(span);
        // In a graph, `x[i] = v` is `copy_` into the view `x[i]` (`CopySlices`).
        let view = match requires_grad(&t) || requires_grad(&src) {
            true => {
                inplace::writable(&mut self.rt, self.grad, &t, &idx, Arc::new(view)).map_err(at)?
            }
            false => Arc::new(view),
        };
        let write = |rt: &mut Runtime| rt.assign(&view, &stripped);
        inplace::copy_(&mut self.rt, self.grad, &view, &src, write).map_err(at)
    }

    /// `del a, b`: every name must exist before any is forgotten.
    /// `obj.name = v` (`setattr` too): an instance's, a module's or a
    /// class's attribute, or a property of cudash's values (`x.grad`).
    pub(super) fn set_attr_of(
        &mut self,
        target: &Value,
        name: &str,
        v: Value,
        value_span: Span,
        name_span: Span,
    ) -> Result<(), Diagnostic> {
        match target {
            Value::Object(_) | Value::Module(_) | Value::Class(_) | Value::Function(_) => {
                self.set_object_attr(target, name, v, name_span)
            }
            // `torch.backends.cudnn.benchmark = True`
            Value::Namespace(m) => {
                super::imports::set_flag(m, name, &v).map_err(|e| e.at(name_span))?;
                // The one flag that changes what cudash computes: f32
                // products on an Ampere or later GPU round to TF32.
                if m.path == "torch.backends.cuda.matmul" && name == "allow_tf32" {
                    self.rt.allow_tf32 = super::imports::tf32_allowed();
                }
                Ok(())
            }
            _ => self.set_property(
                target,
                &Name::new(name.to_string(), name_span),
                v,
                value_span,
            ),
        }
    }

    /// `d[k] = v`: the dict changes in place (every name for it sees `k`),
    /// and `os.environ[k] = v` (the session's environment).
    fn dict_item_assign(
        &mut self,
        obj: &Expr,
        d: &PyDict,
        items: &[IndexItem],
        value: Rhs,
        span: Span,
    ) -> Result<(), Diagnostic> {
        use super::value::Key;
        let key = self.dict_key(items, span, 0)?;
        let v = value.value(self)?;
        if let ExprKind::Attr(base, name) = &obj.kind {
            let is_os = matches!(self.eval(base, 0)?, Value::Namespace(m) if m.path == "os");
            if is_os && name.name == "environ" {
                let (Key::Str(k), Value::Str(v)) = (&key, &v) else {
                    return Err(Error::wrong_type(
                        "an environment variable's value",
                        "a string",
                        v.type_name(),
                    )
                    .at(value.span()));
                };
                super::environ::set_env(k, v);
                if k == "PYTORCH_CUDA_ALLOC_CONF" {
                    self.alloc_conf_set_in_environ(v).map_err(|e| e.at(span))?;
                }
                return Ok(());
            }
        }
        d.set(key, v);
        Ok(())
    }

    /// `help` lists the topics; `help NAME` explains every entry of that name.
    fn exec_help(&mut self, topic: Option<&Name>) -> Result<(), Diagnostic> {
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
        Ok(())
    }

    /// Runs the statements of a block until one leaves it (`Flow`).
    pub(crate) fn exec_block(&mut self, b: &Block) -> Result<Flow, Diagnostic> {
        for s in b {
            match self.exec(s)? {
                Flow::Next => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Next)
    }

    /// `for names in iter { body }`, the body run by `body` (compiled).
    pub(super) fn exec_for(
        &mut self,
        names: &[Target],
        iter: &ForIter,
        body: &Body,
    ) -> Result<Flow, Diagnostic> {
        self.quiet += 1;
        let r = self.run_for(names, iter, body);
        // Always end the progress display, also after an error or an interrupt.
        self.progress(u64::MAX, u64::MAX);
        self.quiet -= 1;
        r
    }

    fn run_for(
        &mut self,
        names: &[Target],
        iter: &ForIter,
        body: &Body,
    ) -> Result<Flow, Diagnostic> {
        match iter {
            ForIter::Range(a, b) => {
                let lo = self.eval_int(a, 0, "the start of a range")?;
                let hi = self.eval_int(b, 0, "the end of a range")?;
                let total = hi.saturating_sub(lo).max(0) as u64;
                for i in lo..hi {
                    self.bind_loop(names, Value::Int(i), a.span)?;
                    if let Some(out) = self.loop_body(body)? {
                        return Ok(out);
                    }
                    self.progress((i - lo) as u64 + 1, total);
                }
            }
            ForIter::Each(e) => {
                let v = self.eval(e, 0)?;
                // `for i in range(...)`: counted, as `a..b`.
                if let Value::Range(r) = &v {
                    let total = r.len();
                    for k in 0..total {
                        self.bind_loop(names, Value::Int(r.at(k)), e.span)?;
                        if let Some(out) = self.loop_body(body)? {
                            return Ok(out);
                        }
                        self.progress(k as u64 + 1, total as u64);
                    }
                    return Ok(Flow::Next);
                }
                if let Value::DataLoader(loader) = &v {
                    let out = self.for_each_batch(loader, e.span, |me, batch| {
                        me.bind_loop(names, batch, e.span)?;
                        me.loop_body(body)
                    })?;
                    return Ok(out.unwrap_or(Flow::Next));
                }
                // `for i, batch in enumerate(loader)`: counted as made.
                if let Value::Enumerate(en) = &v {
                    if let (Value::DataLoader(loader), start) = &**en {
                        let mut i = *start;
                        let out = self.for_each_batch(loader, e.span, |me, batch| {
                            let pair = Value::List(Arc::new(vec![Value::Int(i), batch]));
                            i += 1;
                            me.bind_loop(names, pair, e.span)?;
                            me.loop_body(body)
                        })?;
                        return Ok(out.unwrap_or(Flow::Next));
                    }
                }
                let v = self.iter_method(v, e.span)?;
                if let Some(out) = self.for_generated(names, &v, body, e.span)? {
                    return Ok(out);
                }
                let items = self.iterated(v, e.span)?;
                let total = items.len() as u64;
                for (k, v) in items.into_iter().enumerate() {
                    self.bind_loop(names, v, e.span)?;
                    if let Some(out) = self.loop_body(body)? {
                        return Ok(out);
                    }
                    self.progress(k as u64 + 1, total);
                }
            }
        }
        Ok(Flow::Next)
    }

    /// One pass of a loop's body: None to go on (`continue` too), or how
    /// the loop ends (`break`: the statement after it; `return`: the call's).
    pub(crate) fn loop_body(&mut self, body: &Body) -> Result<Option<Flow>, Diagnostic> {
        Ok(match body(self)? {
            Flow::Next | Flow::Continue => None,
            Flow::Break => Some(Flow::Next),
            Flow::Return => Some(Flow::Return),
        })
    }

    /// A loop's item bound to its name, or unpacked into its names (`for a,
    /// b in pairs`: a list, a tuple or a result with parts, as Python does).
    pub(super) fn bind_loop(
        &mut self,
        targets: &[Target],
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        match targets {
            [Target::Name(name)] => {
                self.set_var(name, v);
                Ok(())
            }
            [one @ (Target::Attr(..) | Target::Index(..))] => self.set_target(one, v, span),
            // `for (a, b) in pairs`, `for (x,) in loader`: the item unpacked.
            [Target::Tuple(inner, _)] => self.unpack(inner, v, span),
            _ => self.unpack(targets, v, span),
        }
    }

    /// `a, b = v`: each target gets one item of a tuple or list (a dict's
    /// keys, in order; anything iterable's items); a parenthesised one
    /// takes its item apart in turn, a starred one the rest.
    pub(super) fn unpack(
        &mut self,
        targets: &[Target],
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let items: Vec<Value> = match (&v, self.elements_of(&v)) {
            (_, Some(items)) => items.map_err(|err| err.at(span))?,
            // A dict's keys, as Python's.
            (Value::Dict(pairs), None) => pairs.items().iter().map(|(k, _)| k.value()).collect(),
            // Anything iterable (a generator, `zip`, `range`, a string, an
            // object with `__iter__`): its items, as Python unpacks.
            (other, None) => {
                let name = other.type_name();
                self.items_of(v, span).map_err(|_| {
                    Error::wrong_type(
                        "the value unpacked into names",
                        "a list or another iterable (e.g. `values, indices = x.sort()`)",
                        name,
                    )
                    .at(span)
                })?
            }
        };
        let items = spread_rest(targets, items).map_err(|err| err.at(span))?;
        for (target, v) in targets.iter().zip(items) {
            match target {
                Target::Name(name) => self.set_var(name, v),
                Target::Tuple(inner, at) => self.unpack(inner, v, *at)?,
                Target::Starred(inner) => self.set_target(inner, v, span)?,
                Target::Attr(..) | Target::Index(..) => self.set_target(target, v, span)?,
            }
        }
        Ok(())
    }

    /// One target given its value: a name, a group taken apart, or an
    /// attribute set (`self.count`).
    pub(super) fn set_target(
        &mut self,
        target: &Target,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        match target {
            Target::Name(name) => {
                self.set_var(name, v);
                Ok(())
            }
            Target::Tuple(inner, at) => self.unpack(inner, v, *at),
            Target::Attr(obj, attr) => {
                let target = self.eval(obj, 0)?;
                self.set_attr_of(&target, &attr.name, v, span, attr.span)
            }
            Target::Index(obj, items) => {
                self.exec_index_assign(obj, items, Rhs::Given(v, span), span)
            }
            Target::Starred(_) => Err(Diagnostic::syntax(
                span,
                "a starred name takes the rest of an unpacking (`first, *rest = xs`); it cannot be assigned alone",
            )),
        }
    }
}

/// What `obj[k]` is written into or deleted from: one of a module's own
/// tables (`m._parameters`, `_buffers`, `_modules`: the module's members,
/// not the dict a read makes), or the value `obj` is.
pub(crate) enum Indexed<'a> {
    ModuleTable(Value, &'static str, &'a Expr),
    Value(Value),
}

impl Interp {
    /// `obj` of `obj[k] = v` and `del obj[k]`, evaluated once.
    pub(crate) fn indexed_target<'a>(
        &mut self,
        obj: &Expr,
        items: &'a [IndexItem],
    ) -> Result<Indexed<'a>, Diagnostic> {
        if let (ExprKind::Attr(owner, attr), [IndexItem::At(k)]) = (&obj.kind, items) {
            let table = match attr.name.as_str() {
                "_parameters" => Some("_parameters"),
                "_buffers" => Some("_buffers"),
                "_modules" => Some("_modules"),
                _ => None,
            };
            if let Some(table) = table {
                let holder = self.eval(owner, 0)?;
                if let Value::Module(_) = holder {
                    return Ok(Indexed::ModuleTable(holder, table, k));
                }
                return Ok(Indexed::Value(
                    self.property(&holder, &attr.name, attr.span)?,
                ));
            }
        }
        Ok(Indexed::Value(self.eval(obj, 0)?))
    }
}

/// The value an indexed assignment writes: an expression (`x[i] = e`,
/// evaluated where the assignment reads it) or a value given (an item of
/// an unpacking, `a[0], b = pair`).
pub(crate) enum Rhs<'a> {
    Written(&'a Expr),
    Given(Value, Span),
}

impl Rhs<'_> {
    pub(crate) fn span(&self) -> Span {
        match self {
            Rhs::Written(e) => e.span,
            Rhs::Given(_, span) => *span,
        }
    }

    pub(crate) fn value(&self, it: &mut Interp) -> Result<Value, Diagnostic> {
        match self {
            Rhs::Written(e) => it.eval(e, 0),
            Rhs::Given(v, _) => Ok(v.clone()),
        }
    }
}

/// The right of `x op= v` as an operand (a number is weak, as beside `op`).
fn augmented_operand(
    v: &Value,
    op: BinaryOp,
    span: Span,
) -> Result<(Arc<crate::runtime::Tensor>, bool), Diagnostic> {
    operand_value(v).ok_or_else(|| {
        Error::wrong_type(
            format!("the right of `{}=`", op.symbol()),
            "a number or a tensor",
            v.type_name(),
        )
        .at(span)
    })
}

/// `items` laid out for `targets`, one each, the starred target's (at most
/// one) a list of what the others leave (`first, *rest = [1, 2, 3]`: 1 and
/// `[2, 3]`); Python's messages when they do not fit.
fn spread_rest(targets: &[Target], mut items: Vec<Value>) -> Result<Vec<Value>, Error> {
    let starred: Vec<usize> = (0..targets.len())
        .filter(|&k| matches!(targets[k], Target::Starred(_)))
        .collect();
    match starred.as_slice() {
        [] if items.len() == targets.len() => Ok(items),
        [] if items.len() > targets.len() => Err(Error::value(format!(
            "too many values to unpack (expected {})",
            targets.len()
        ))),
        [] => Err(Error::value(format!(
            "not enough values to unpack (expected {}, got {})",
            targets.len(),
            items.len()
        ))),
        [at] if items.len() + 1 >= targets.len() => {
            let after = targets.len() - at - 1;
            let tail = items.split_off(items.len() - after);
            let rest = items.split_off(*at);
            items.push(Value::list(rest));
            items.extend(tail);
            Ok(items)
        }
        [_] => Err(Error::value(format!(
            "not enough values to unpack (expected at least {}, got {})",
            targets.len() - 1,
            items.len()
        ))),
        _ => Err(Error::Syntax {
            message: "multiple starred expressions in assignment".into(),
            label: "here".into(),
            incomplete: false,
        }),
    }
}

/// `xs[a:b:c] = new`, as Python's list: a simple slice (no step, or 1)
/// replaced by the new items, however many (an empty slice at `a` takes
/// them there); an extended slice given one new item for each it picks.
fn assign_slice(
    xs: &mut Vec<Value>,
    (a, b, c): (Option<i64>, Option<i64>, Option<i64>),
    new: Vec<Value>,
) -> Result<(), Error> {
    let n = xs.len() as i64;
    let step = c.unwrap_or(1);
    if step == 1 {
        let clamp = |i: Option<i64>, default: i64| match i {
            None => default,
            Some(i) if i < 0 => (i + n).max(0),
            Some(i) => i.min(n),
        };
        let lo = clamp(a, 0) as usize;
        let hi = (clamp(b, n) as usize).max(lo);
        xs.splice(lo..hi, new);
        return Ok(());
    }
    let picked = super::expr::python_slice(xs.len(), a, b, step)?;
    if picked.len() != new.len() {
        return Err(Error::value(format!(
            "attempt to assign sequence of size {} to extended slice of size {}",
            new.len(),
            picked.len()
        )));
    }
    for (k, v) in picked.into_iter().zip(new) {
        xs[k] = v;
    }
    Ok(())
}
