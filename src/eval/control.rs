//! Conditions and the statements that test them: `if`/`elif`/`else`,
//! `while`, and the expressions `and`, `or`, `not`, `in`, as Python runs
//! them. A condition on a device tensor reads its one value on the host, a
//! sync, as PyTorch's `bool(t)` is.

use super::flow::{Body, Flow};
use super::value::Key;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::eval::value::PyDict;
use crate::lang::ast::{BinOp, Block, CompClause, CompKind, Expr};
use crate::lang::Span;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::DType;

impl Interp {
    /// Python's truth of `v`: false for `false`, `none`, zero, an empty
    /// string or list; a one-element tensor's value, read on the host (a
    /// sync when it lives on a device, counted by `profile`).
    pub(crate) fn truth(&mut self, v: &Value, span: Span) -> Result<bool, Diagnostic> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => b.get(),
            Value::Int(i) => *i != 0,
            Value::Float(x) => x.get() != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            v @ (Value::List(_)
            | Value::MutList(_)
            | Value::Dict(_)
            | Value::Set(_)
            | Value::DictView(_)
            | Value::Range(_)
            | Value::Size(_)) => v.count() != Some(0),
            // An instance: its `__bool__`, else its `__len__`, else true.
            Value::Object(o) if !o.class.tuple => {
                let method = ["__bool__", "__len__"]
                    .iter()
                    .find_map(|m| match o.class.find(m) {
                        Some(Value::Function(f)) => Some(f),
                        _ => None,
                    });
                match method {
                    Some(f) => {
                        let r = self.call_bound(v, f, Vec::new(), span)?;
                        return self.truth(&r, span);
                    }
                    None => true,
                }
            }
            Value::Tensor(t) if t.numel() == 1 => {
                self.begin_op("is_nonzero");
                let value = || match t.dtype() {
                    DType::Bool => t.to_vec::<bool>()[0],
                    _ => t.to_vec::<f64>()[0] != 0.0,
                };
                self.rt.read_item(t, value).map_err(|e| e.at(span))?
            }
            Value::Tensor(t) => {
                let what = match t.numel() {
                    0 => "Boolean value of Tensor with no values is ambiguous",
                    _ => "Boolean value of Tensor with more than one value is ambiguous",
                };
                // PyTorch's class: `except RuntimeError` catches it.
                return Err(Error::Module {
                    class: "RuntimeError",
                    message: what.into(),
                    help: Some(
                        "reduce it to one value first: `(x > 0).any()`, `(x > 0).all()` or \
                         `x.sum() > 0`"
                            .into(),
                    ),
                }
                .at(span));
            }
            _ => true,
        })
    }

    /// A condition's truth (`if`, `while`, `not`, `and`, `or`).
    pub(crate) fn condition(&mut self, e: &Expr, depth: usize) -> Result<bool, Diagnostic> {
        let v = self.eval(e, depth)?;
        self.truth(&v, e.span)
    }

    /// `a and b`: a when a is false, else b (b is not evaluated otherwise).
    pub(crate) fn eval_and(&mut self, a: &Expr, b: &Expr, d: usize) -> Result<Value, Diagnostic> {
        let va = self.eval(a, d)?;
        self.short_circuit(true, va, a.span, |it| it.eval(b, d))
    }

    /// `x < y <= z`: each comparison in turn, each operand evaluated once;
    /// the first false one is the value, else the last (Python's chain).
    pub(crate) fn eval_chain(
        &mut self,
        first: &Expr,
        rest: &[(crate::lang::ast::BinOp, Expr)],
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let mut left = self.eval(first, d)?;
        let mut result = Value::None;
        for (k, (op, e)) in rest.iter().enumerate() {
            let right = self.eval(e, d)?;
            let span = crate::lang::Span::from(first.span.start..e.span.end);
            result = self.arith(*op, left, right.clone(), span)?;
            if k + 1 < rest.len() && !self.truth(&result, span)? {
                return Ok(result);
            }
            left = right;
        }
        Ok(result)
    }

    /// `a or b`: a when a is true, else b.
    pub(crate) fn eval_or(&mut self, a: &Expr, b: &Expr, d: usize) -> Result<Value, Diagnostic> {
        let va = self.eval(a, d)?;
        self.short_circuit(false, va, a.span, |it| it.eval(b, d))
    }

    /// The rest of `a and b` (`is_and`) or `a or b`, `va` being a's value
    /// (at `a_span`): a when its truth decides, else b, evaluated only then.
    pub(crate) fn short_circuit(
        &mut self,
        is_and: bool,
        va: Value,
        a_span: Span,
        b: impl FnOnce(&mut Interp) -> Result<Value, Diagnostic>,
    ) -> Result<Value, Diagnostic> {
        match self.truth(&va, a_span)? == is_and {
            true => b(self),
            false => Ok(va),
        }
    }

    /// `not a`: a bool.
    /// `a if c else b`: `c`'s truth, then a or b (only that one evaluated).
    pub(crate) fn eval_if_else(
        &mut self,
        a: &Expr,
        c: &Expr,
        b: &Expr,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        match self.condition(c, d)? {
            true => self.eval(a, d),
            false => self.eval(b, d),
        }
    }

    pub(crate) fn eval_not(&mut self, a: &Expr, d: usize) -> Result<Value, Diagnostic> {
        Ok(Value::bool(!self.condition(a, d)?))
    }

    /// `a in b` (`is_in`), or `a not in b`.
    pub(crate) fn eval_in(
        &mut self,
        is_in: bool,
        a: &Expr,
        b: &Expr,
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let (va, vb) = (self.eval(a, d)?, self.eval(b, d)?);
        Ok(Value::bool(self.contains(&va, &vb, span)? == is_in))
    }

    /// `if c { } elif c { } else { }`: the first branch whose condition holds.
    pub(crate) fn exec_if(
        &mut self,
        branches: &[(Expr, Block)],
        otherwise: Option<&Block>,
    ) -> Result<Flow, Diagnostic> {
        for (c, body) in branches {
            if self.condition(c, 0)? {
                return self.exec_block(body);
            }
        }
        match otherwise {
            Some(body) => self.exec_block(body),
            None => Ok(Flow::Next),
        }
    }

    /// `while c { }`, `condition` and `body` compiled: Ctrl-C stops it
    /// between statements, as any loop.
    pub(crate) fn exec_while(
        &mut self,
        c_span: Span,
        condition: &dyn Fn(&mut Interp) -> Result<bool, Diagnostic>,
        body: &Body,
    ) -> Result<Flow, Diagnostic> {
        self.quiet += 1;
        let r = self.run_while(c_span, condition, body);
        self.quiet -= 1;
        r
    }

    fn run_while(
        &mut self,
        c_span: Span,
        condition: &dyn Fn(&mut Interp) -> Result<bool, Diagnostic>,
        body: &Body,
    ) -> Result<Flow, Diagnostic> {
        loop {
            self.check_interrupt(c_span)?;
            if !condition(self)? {
                return Ok(Flow::Next);
            }
            if let Some(out) = self.loop_body(body)? {
                return Ok(out);
            }
        }
    }
}

impl Interp {
    /// `item in container`: an element of a list or tuple (`==` as Python
    /// compares), a key of a dict, a substring of a string; in a tensor, as
    /// PyTorch's `__contains__`: whether any element equals it (a host read).
    pub(crate) fn contains(
        &mut self,
        item: &Value,
        container: &Value,
        span: Span,
    ) -> Result<bool, Diagnostic> {
        let equal = |v: &Value| super::expr::equal(v, item);
        // An instance of the program's class: its `__contains__`, else the
        // items its `__iter__` gives, as Python's `in`.
        if let Value::Object(o) = container {
            if let Some(Value::Function(f)) = o.class.find("__contains__") {
                let arg = super::args::ArgVal::positional(item.clone(), span);
                let r = self.call_bound(container, f, vec![arg], span)?;
                return self.truth(&r, span);
            }
            if o.class.find("__iter__").is_some() || o.class.find("__getitem__").is_some() {
                let items = self.items_of(container.clone(), span)?;
                return Ok(items.iter().any(equal));
            }
        }
        Ok(match container {
            Value::List(items) => items.iter().any(equal),
            // `b"PK" in data`, `0 in data`.
            Value::Bytes(b) => super::bytes::contains(b, item).map_err(|e| e.at(span))?,
            // As it is now, unlocked: comparing may read the list itself
            // (`xs in xs`).
            Value::MutList(items) => {
                let now = std::sync::Arc::clone(&crate::runtime::lock::lock(items));
                now.iter().any(equal)
            }
            Value::Dict(pairs) | Value::Set(pairs) => pairs.contains(&self.key(item, span)?),
            Value::DictView(view) => super::dict_view::contains(view, item, &super::expr::equal),
            // `Color.RED in Color`.
            Value::Class(c) if c.enum_members().is_some() => c
                .enum_members()
                .unwrap_or_default()
                .iter()
                .any(|m| super::expr::same(m, item)),
            Value::Str(s) => match item {
                Value::Str(sub) => s.contains(&**sub),
                other => {
                    return Err(Error::wrong_type(
                        "the left of `in` a string",
                        "a string",
                        other.type_name(),
                    )
                    .at(span))
                }
            },
            // A ModuleDict's or a ParameterDict's names; a ModuleList's,
            // a Sequential's or a ParameterList's items.
            Value::Module(_) if container.elements().is_some() => {
                let items = container.elements().unwrap_or(Ok(Vec::new()));
                items.map_err(|e| e.at(span))?.iter().any(equal)
            }
            // `"betas" in opt.param_groups[0]`: its keys.
            Value::ParamGroup(g) => match item {
                Value::Str(k) => super::param_group::group_get(&g.0, g.1, k).is_ok(),
                _ => false,
            },
            // `i in range(n)`: by arithmetic, never counted out.
            Value::Range(r) => match item {
                Value::Int(i) => r.contains(*i),
                Value::Bool(b) => r.contains(b.get() as i64),
                Value::Float(f) if f.get().fract() == 0.0 && f.get().abs() < 9.2e18 => {
                    r.contains(f.get() as i64)
                }
                _ => false,
            },
            Value::Tensor(t) if t.numel() == 0 => false,
            Value::Tensor(_) => {
                let eq = BinOp::Elementwise(BinaryOp::Eq);
                let eq = self
                    .binary(eq, container.clone(), item.clone())
                    .map_err(|e| e.at(span))?;
                let Value::Tensor(eq) = eq else {
                    return self.truth(&eq, span);
                };
                let any = self
                    .rt
                    .reduce(ReduceOp::Max, &eq, None, false)
                    .map_err(|e| e.at(span))?;
                self.truth(&Value::Tensor(any), span)?
            }
            other => {
                return Err(Error::wrong_type(
                    "the right of `in`",
                    "a list, a dict, a string or a tensor",
                    other.type_name(),
                )
                .at(span))
            }
        })
    }
}

impl Interp {
    /// `[e for x in xs if c]` (a list), `(e for ...)` (a tuple, made at
    /// once), `{k: v for ...}` (a dict): the clauses nest left to right, as
    /// Python's. The `for` names are the comprehension's own, as Python 3's:
    /// a name outside it keeps its value (and one it did not have stays
    /// unbound), so `[x.shape for x in xs]` leaves no `x` holding memory.
    pub(super) fn eval_comprehension(
        &mut self,
        c: &crate::lang::ast::Comprehension,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let names: Vec<&crate::lang::ast::Name> = c
            .clauses
            .iter()
            .filter_map(|cl| match cl {
                CompClause::For(targets, _) => Some(targets),
                CompClause::If(_) => None,
            })
            .flat_map(|targets| targets.iter().flat_map(|t| t.names()))
            .collect();
        let outside: Vec<Option<Value>> = names
            .iter()
            .map(|n| self.get_var(n).map(std::borrow::Cow::into_owned))
            .collect();
        let mut items = Vec::new();
        let mut pairs: Vec<(Key, Value)> = Vec::new();
        let r = self.comprehend(c, 0, d, &mut items, &mut pairs);
        for (n, v) in names.iter().zip(outside) {
            match v {
                Some(v) => self.set_var(n, v),
                None => drop(self.remove_var(n)),
            }
        }
        r?;
        Ok(match c.kind {
            CompKind::List => Value::list(items),
            CompKind::Generator => Value::List(std::sync::Arc::new(items)),
            CompKind::Dict => Value::Dict(PyDict::new(pairs)),
            CompKind::Set => super::methods::set::set_of(self, &items, c.element.span)?,
        })
    }

    fn comprehend(
        &mut self,
        c: &crate::lang::ast::Comprehension,
        k: usize,
        d: usize,
        items: &mut Vec<Value>,
        pairs: &mut Vec<(Key, Value)>,
    ) -> Result<(), Diagnostic> {
        let Some(clause) = c.clauses.get(k) else {
            let v = self.eval(&c.element, d)?;
            match &c.key {
                Some(key) => {
                    let kv = self.eval(key, d)?;
                    // A repeated key keeps its first place and its last
                    // value (`PyDict::new`).
                    let key_value = self.key(&kv, key.span)?;
                    pairs.push((key_value, v));
                }
                None => items.push(v),
            }
            return Ok(());
        };
        match clause {
            CompClause::If(cond) => {
                let v = self.eval(cond, d)?;
                if self.truth(&v, cond.span)? {
                    self.comprehend(c, k + 1, d, items, pairs)?;
                }
            }
            CompClause::For(targets, it) => {
                let v = self.eval(it, d)?;
                let v = self.iter_method(v, it.span)?;
                // A generator's items are made as the comprehension takes them.
                if let Some(mut gen) = self.lazy_items(&v, it.span)? {
                    while let Some(item) = gen.next(self, it.span)? {
                        self.bind_loop(targets, item, it.span)?;
                        self.comprehend(c, k + 1, d, items, pairs)?;
                    }
                    return Ok(());
                }
                let each = match (&v, self.elements_of(&v)) {
                    (_, Some(each)) => each.map_err(|e| e.at(it.span))?,
                    (Value::Dict(entries), None) => {
                        entries.items().iter().map(|(k, _)| k.value()).collect()
                    }
                    (Value::Str(s), None) => super::strings::chars_of(s),
                    (other, None) => {
                        return Err(Error::wrong_type(
                            "what a comprehension's `for` iterates over",
                            "a list, a tuple, a range, a dict or a tensor",
                            other.type_name(),
                        )
                        .at(it.span))
                    }
                };
                for item in each {
                    self.bind_loop(targets, item, it.span)?;
                    self.comprehend(c, k + 1, d, items, pairs)?;
                }
            }
        }
        Ok(())
    }
}
