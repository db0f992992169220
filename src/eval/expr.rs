//! Evaluating expressions.

use crate::eval::value::PyDict;
use std::sync::Arc;

use super::args::{operand_value, ArgVal};
use super::literal::{literal_list, literal_value, scalar, Lit, Scalar};
use super::quick::{compare, quick_scalar};
use super::value::Key;
use super::{docs, Interp, Value, MAX_DEPTH};
use crate::autograd;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{BinOp, Expr, ExprKind, IndexItem, Name, Scope};
use crate::lang::token::DeviceLit;
use crate::lang::Span;
use crate::runtime::element::Num;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{Device, Tensor};

/// A slice's start, stop and step, each left out or an int.
type SliceBounds = (Option<i64>, Option<i64>, Option<i64>);

impl Interp {
    /// `v` with `cuda` (no index) made the current CUDA device, also inside
    /// lists: what a value means where it is used.
    pub(crate) fn resolve(&self, v: Value) -> Value {
        match v {
            Value::CurrentCuda => Value::device(Device::Cuda(self.rt.current_device)),
            // PyTorch's devices as strings: `device="cuda:1"`, `.to("cpu")`.
            Value::Str(s) if super::spelling::device_string(&s).is_some() => {
                match super::spelling::device_string(&s) {
                    Some(Value::CurrentCuda) => Value::device(Device::Cuda(self.rt.current_device)),
                    Some(v) => v,
                    None => Value::Str(s),
                }
            }
            Value::List(items)
                if items
                    .iter()
                    .any(|i| matches!(i, Value::CurrentCuda | Value::List(_))) =>
            {
                Value::List(Arc::new(
                    items.iter().map(|i| self.resolve(i.clone())).collect(),
                ))
            }
            v => v,
        }
    }

    /// The arguments of a call, resolved (`resolve`).
    pub(crate) fn resolve_args(&self, args: Vec<ArgVal>) -> Vec<ArgVal> {
        args.into_iter()
            .map(|a| ArgVal {
                value: self.resolve(a.value),
                ..a
            })
            .collect()
    }

    /// The value of `e`. What loops evaluate most (numbers, names, plain
    /// arithmetic, calls) is decided here, in a function small enough to
    /// cost little per node; everything else is `eval_node`.
    pub(crate) fn eval(&mut self, e: &Expr, depth: usize) -> Result<Value, Diagnostic> {
        match &e.kind {
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Float(x) => Ok(Value::float(*x)),
            ExprKind::Var(name) => self.lookup(name, e.span),
            ExprKind::Binary(op, a, b)
                if depth < MAX_DEPTH && !matches!(op, BinOp::In | BinOp::NotIn) =>
            {
                let (va, vb) = (self.eval(a, depth + 1)?, self.eval(b, depth + 1)?);
                self.arith(*op, va, vb, e.span)
            }
            ExprKind::Call(callee, args) if depth < MAX_DEPTH => {
                self.eval_call(callee, args, e.span, depth + 1)
            }
            _ => self.eval_node(e, depth),
        }
    }

    /// `a op b` of two values (the operation at `span`): numbers by
    /// `quick_scalar` at once, anything else named for `profile` and done
    /// by `binary`.
    #[inline(always)]
    pub(crate) fn arith(
        &mut self,
        op: BinOp,
        a: Value,
        b: Value,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match quick_scalar(op, &a, &b) {
            Some(v) => Ok(v),
            None => self.arith_general(op, a, b, span),
        }
    }

    #[inline(never)]
    fn arith_general(
        &mut self,
        op: BinOp,
        a: Value,
        b: Value,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        if let Some(r) = self.operator_method(op, &a, &b, span) {
            return r;
        }
        match matches!(a, Value::Tensor(_)) || matches!(b, Value::Tensor(_)) {
            true => self.begin_op(op.name()),
            false => self.begin_python_op(op.name()),
        }
        let v = self.binary(op, a, b).map_err(|err| err.at(span));
        self.packed_after(v, span)
    }

    #[inline(never)]
    fn eval_node(&mut self, e: &Expr, depth: usize) -> Result<Value, Diagnostic> {
        if depth > MAX_DEPTH {
            return Err(Error::value_help(
                format!("this expression nests more than {MAX_DEPTH} levels deep"),
                "split it into several statements",
            )
            .at(e.span));
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Float(x) => Ok(Value::float(*x)),
            ExprKind::Str(s) => Ok(Value::Str(Arc::new(s.clone()))),
            ExprKind::Bytes(b) => Ok(Value::Bytes(Arc::new(b.clone()))),
            ExprKind::FString(parts) => self.eval_fstring(parts, d),
            ExprKind::Lambda(def) => Ok(Value::Function(Arc::new(self.function_of(def)?))),
            ExprKind::Comprehension(c) => self.eval_comprehension(c, d),
            ExprKind::Bool(b) => Ok(Value::bool(*b)),
            ExprKind::None => Ok(Value::None),
            ExprKind::DType(t) => Ok(Value::dtype(*t)),
            // `cuda` and `cpu` are names (`lookup_builtin`); `cuda:1` is not.
            ExprKind::Device(DeviceLit::Cpu) => Ok(Value::device(Device::Cpu)),
            ExprKind::Device(DeviceLit::Cuda(i)) => self
                .rt
                .cuda(*i)
                .map(Value::device)
                .map_err(|err| err.at(e.span)),
            ExprKind::Var(name) => self.lookup(name, e.span),
            ExprKind::List(items) => self.eval_list(items, e.span, d),
            ExprKind::Tuple(items) => Ok(Value::List(Arc::new(self.eval_items(items, d)?))),
            ExprKind::Starred(_) => Err(Diagnostic::syntax(
                e.span,
                "`*xs` spreads its items into a list, a tuple or a call's arguments, not here",
            )),
            ExprKind::Dict(pairs) => self.eval_dict(pairs, d),
            ExprKind::Set(items) => {
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    values.push(self.eval(item, d)?);
                }
                super::methods::set::set_of(self, &values, e.span)
            }
            ExprKind::Neg(inner) => {
                let v = self.eval(inner, d)?;
                // `-x` of a class of the program's: `x.__neg__()`.
                if let Some(r) = self.unary_method(&v, "__neg__", e.span) {
                    return r;
                }
                self.begin_op("neg");
                self.negate(v).map_err(|err| err.at(e.span))
            }
            ExprKind::Pos(inner) => self.eval_pos(inner, d, e.span),
            ExprKind::Invert(inner) => {
                let v = self.eval(inner, d)?;
                self.begin_op("bitwise_not");
                self.invert(v).map_err(|err| err.at(e.span))
            }
            // Each in a function of its own: `eval` recurses, so its frame
            // stays small (a debug build keeps every arm's temporaries in it).
            ExprKind::And(a, b) => self.eval_and(a, b, d),
            ExprKind::Or(a, b) => self.eval_or(a, b, d),
            ExprKind::Not(inner) => self.eval_not(inner, d),
            ExprKind::IfElse(a, c, b) => self.eval_if_else(a, c, b, d),
            ExprKind::Matches(subject, pattern) => {
                let v = self.eval(subject, d)?;
                self.matches(&v, pattern, d).map(Value::bool)
            }
            ExprKind::Walrus(name, value) => {
                let v = self.eval(value, d)?;
                self.assign(name, v.clone());
                Ok(v)
            }
            ExprKind::Binary(op @ (BinOp::In | BinOp::NotIn), a, b) => {
                self.eval_in(*op == BinOp::In, a, b, e.span, d)
            }
            ExprKind::Binary(op, a, b) => {
                let (va, vb) = (self.eval(a, d)?, self.eval(b, d)?);
                self.arith(*op, va, vb, e.span)
            }
            ExprKind::Compare(first, rest) => self.eval_chain(first, rest, d),
            ExprKind::Call(callee, args) => self.eval_call(callee, args, e.span, d),
            ExprKind::Attr(obj, name) => {
                self.no_module_path(e)?;
                let v = self.eval(obj, d)?;
                self.property(&v, &name.name, name.span)
            }
            ExprKind::Index(obj, items) => self.eval_indexed(obj, items, e.span, d),
        }
    }

    /// `obj[items]`: a dict's entry, a list's item or slice, or a tensor's
    /// view or selection. Apart from `eval`, which recurses: its frame stays
    /// small (a debug build keeps every arm's temporaries in it).
    fn eval_indexed(
        &mut self,
        obj: &Expr,
        items: &[IndexItem],
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let v = self.eval(obj, d)?;
        match &v {
            Value::Dict(dict) => return self.dict_get(dict, items, span, d),
            Value::DictView(view) => return Err(super::dict_view::not_subscriptable(view).at(span)),
            // `Color["RED"]`: an Enum's member by name.
            Value::Class(c) if super::enums::is_enum(c) => {
                let key = self.item_key(items, d)?;
                return super::enums::enum_by_name(c, &key).map_err(|e| e.at(span));
            }
            // `Box[int]`: the class's `__class_getitem__` (typing's
            // `Generic[T]`).
            Value::Class(c) if c.find("__class_getitem__").is_some() => {
                let key = self.item_key(items, d)?;
                let name = crate::lang::ast::Name::new("__class_getitem__".into(), span);
                let arg = super::args::ArgVal::positional(key, span);
                return self.call_method(v.clone(), &name, vec![arg], span);
            }
            // `opt.param_groups[0]["lr"]`.
            Value::ParamGroup(g) => {
                let key = self.group_key(items, span, d)?;
                return super::param_group::group_get(&g.0, g.1, &key).map_err(|e| e.at(span));
            }
            Value::List(list) => return self.list_get(list, false, items, span, d),
            // `x.shape[1:]` is a torch.Size too; `x.shape[0]` an int.
            Value::Size(list) => {
                return Ok(match self.list_get(list, false, items, span, d)? {
                    Value::List(part) => Value::Size(part),
                    one => one,
                })
            }
            // A named tuple's `r[0]`, `r[-1]`, `r[:2]`: its fields' values.
            Value::Object(o) if o.class.tuple => {
                let list = Arc::new(o.tuple_items());
                return self.list_get(&list, false, items, span, d);
            }
            // `b[0]`: an int; `b[4:8]`: bytes.
            Value::Bytes(bytes) => {
                let at = self.list_at(items, span, d)?;
                return index_sequence(
                    bytes,
                    "index",
                    at,
                    span,
                    |c| Value::Int(c as i64),
                    |b| Value::Bytes(Arc::new(b)),
                );
            }
            // `s[0]`, `s[:30]`: a string's characters.
            Value::Str(text) => {
                let chars: Vec<char> = text.chars().collect();
                let at = self.list_at(items, span, d)?;
                return index_sequence(
                    &chars,
                    "string index",
                    at,
                    span,
                    |c| Value::Str(Arc::new(c.to_string())),
                    |cs| Value::Str(Arc::new(cs.into_iter().collect())),
                );
            }
            // `ds[a:b]`, `ds[idx]` of a TensorDataset: PyTorch's
            // `tuple(tensor[index] for tensor in self.tensors)`, for any
            // index a tensor takes (the "What is torch.nn really?"
            // tutorial's `train_ds[i * bs: i * bs + bs]`).
            Value::Dataset(ds) if matches!(**ds, crate::data::dataset::Dataset::Tensors(_)) => {
                let idx = self.eval_index(items, d)?;
                if let [Index::At(i)] = idx[..] {
                    return self.dataset_sample(ds, i, span);
                }
                let crate::data::dataset::Dataset::Tensors(tds) = &**ds else {
                    unreachable!("matched above");
                };
                let parts = tds
                    .tensors
                    .iter()
                    .map(|t| self.index_tensor(t, &idx, span))
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(Value::List(Arc::new(parts)));
            }
            // `ds[i]` of a `Dataset(get, n)` or a Subset.
            Value::Dataset(ds) => {
                let [IndexItem::At(e)] = items else {
                    return Err(
                        Error::value("a dataset takes one sample number, e.g. `ds[0]`").at(span),
                    );
                };
                let i = self.eval_int(e, d, "a sample number")?;
                return self.dataset_sample(ds, i, e.span);
            }
            // `ds[i]`, `a[1:3]`, `a[i, :]` of a class with `__getitem__`
            // (a Dataset's): the key as Python makes it.
            Value::Object(_) => {
                let key = self.item_key(items, d)?;
                let arg = super::args::ArgVal {
                    keyword: None,
                    value: key,
                    span,
                };
                let name = crate::lang::ast::Name::new("__getitem__".into(), span);
                return self.call_method(v.clone(), &name, vec![arg], span);
            }
            // `md["fc"]` of a ModuleDict, `pd["w"]` of a ParameterDict.
            Value::Module(m) if super::param_containers::dict_of(m).is_some() => {
                let key = self.group_key(items, span, d)?;
                return self.container_key(m, &key, span);
            }
            // `seq[0]`, `layers[-1]`, `seq[1:]` of a Sequential, a ModuleList
            // or a ParameterList (a slice is a new one: PyTorch's Sequential
            // keeps the children's names, a ModuleList or a ParameterList
            // counts from 0 again).
            Value::Module(m) if v.elements().is_some() => {
                let (name, layer) = {
                    let m = crate::runtime::lock::lock(m);
                    (m.type_name.to_string(), m.layer.clone())
                };
                let entries = super::param_containers::entries(m);
                let positions: Vec<Value> = (0..entries.len() as i64).map(Value::Int).collect();
                let at = self.list_at(items, span, d)?;
                // PyTorch's containers' own words for a position past the end.
                if let ListAt::One(i, at) = at {
                    if list_index(i, entries.len()).is_err() {
                        return Err(Error::Module {
                            class: "IndexError",
                            message: format!("index {i} is out of range"),
                            help: Some(format!("it holds {} items", entries.len())),
                        }
                        .at(at));
                    }
                }
                let entry = |k: &Value| match k {
                    Value::Int(k) => entries[*k as usize].clone(),
                    _ => unreachable!("positions are ints"),
                };
                return match pick(&positions, false, at, span)? {
                    Value::List(picked) => {
                        use crate::nn::layers::Layer;
                        let renumber = matches!(layer, Layer::ParameterList | Layer::ModuleList);
                        let new = crate::nn::Module::new(&name, layer).into_ref();
                        for (j, k) in picked.iter().enumerate() {
                            let (key, c) = entry(k);
                            let key = if renumber { j.to_string() } else { key };
                            self.container_assign(&new, &key, c, span)?;
                        }
                        Ok(Value::Module(new))
                    }
                    k => Ok(entry(&k).1),
                };
            }
            Value::MutList(list) => {
                // The index first: it may read the list itself.
                let at = self.list_at(items, span, d)?;
                let now = Arc::clone(&crate::runtime::lock::lock(list));
                return pick(&now, true, at, span);
            }
            _ => {}
        }
        let t = self.indexable(&v, obj.span)?;
        let idx = self.eval_index(items, d)?;
        self.index_tensor(&t, &idx, span)
    }

    /// `t[idx]`: the view or selection, recorded where `t` requires grad.
    fn index_tensor(
        &mut self,
        t: &Arc<Tensor>,
        idx: &[Index],
        span: Span,
    ) -> Result<Value, Diagnostic> {
        self.begin_op("index");
        let r = self.rt.index(t, idx).map_err(|err| err.at(span))?;
        let r = autograd::record::index(&mut self.rt, self.grad, t, r, idx)
            .map_err(|err| err.at(span))?;
        Ok(Value::Tensor(r))
    }

    /// Sample `i` of a dataset (from the end where negative), or
    /// PyTorch's IndexError at `span`.
    fn dataset_sample(
        &mut self,
        ds: &Arc<crate::data::dataset::Dataset>,
        i: i64,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let n = ds.len();
        let k = if i < 0 { i + n as i64 } else { i };
        if !(0..n as i64).contains(&k) {
            return Err(Error::IndexOutOfRange {
                index: i,
                dim: 0,
                size: n,
            }
            .at(span));
        }
        self.dataset_item(ds, k as usize, span)
    }

    /// The one string index of a parameter group (`g["lr"]`) or a
    /// ModuleDict (`md["fc"]`).
    pub(super) fn group_key(
        &mut self,
        items: &[IndexItem],
        span: Span,
        d: usize,
    ) -> Result<String, Diagnostic> {
        if let [IndexItem::At(e)] = items {
            if let Value::Str(k) = self.eval(e, d)? {
                return Ok(k.to_string());
            }
        }
        Err(Error::value("this is indexed by a name: `g[\"lr\"]`, `md[\"fc\"]`").at(span))
    }

    /// `torch.zeros`, `torch.cuda.synchronize`, `F.relu` written where no
    /// variable holds the module: the cudash form, as an error.
    fn no_module_path(&self, e: &Expr) -> Result<(), Diagnostic> {
        if !matches!(e.kind, ExprKind::Attr(..)) {
            return Ok(());
        }
        let mut path = Vec::new();
        let mut at = e;
        while let ExprKind::Attr(obj, name) = &at.kind {
            path.push(name.name.as_str());
            at = obj;
        }
        let ExprKind::Var(root) = &at.kind else {
            return Ok(());
        };
        if self.get_var(root).is_some() {
            return Ok(());
        }
        path.push(&root.name);
        path.reverse();
        match super::spelling::dotted_hint(&path) {
            Some(hint) => Err(hint.at(e.span)),
            None => Ok(()),
        }
    }

    /// Slot `k` of the running call's locals (`name`, read at `span`).
    #[inline]
    pub(super) fn read_local(
        &self,
        k: usize,
        name: &Name,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match self.frames.last().and_then(|f| f.slots.get(k)) {
            Some(Some(Value::Int(i))) => Ok(Value::Int(*i)),
            Some(Some(Value::Float(x))) => Ok(Value::Float(*x)),
            Some(Some(v)) => Ok(v.clone()),
            _ => self.lookup(name, span),
        }
    }

    /// A variable's value: the running call's local (by its slot), or
    /// the session's variable, or a builtin name.
    pub(super) fn lookup(&self, name: &Name, span: Span) -> Result<Value, Diagnostic> {
        match self.get_var(name).as_deref() {
            // Numbers, what loops read most, copied without the general clone.
            Some(&Value::Int(i)) => Ok(Value::Int(i)),
            Some(&Value::Float(x)) => Ok(Value::Float(x)),
            Some(v) => Ok(v.clone()),
            // An enclosing function's local it has not assigned.
            None if matches!(name.scope, Scope::Free(_)) && !self.frames.is_empty() => {
                Err(Error::FreeUnbound {
                    name: name.name.to_string(),
                }
                .at(span))
            }
            // A local the body has not assigned yet: Python's UnboundLocalError.
            None if name.scope != Scope::Global && !self.frames.is_empty() => Err(Error::Unbound {
                name: name.name.to_string(),
            }
            .at(span)),
            None => self.lookup_builtin(&name.name, span),
        }
    }

    /// A name no variable holds: `inf`, a builtin, PyTorch's spelling of
    /// a value, or a `NameError`.
    #[inline(never)]
    fn lookup_builtin(&self, name: &str, span: Span) -> Result<Value, Diagnostic> {
        // Python's float('inf') and float('nan'), as torch.inf and torch.nan.
        match name {
            "inf" => return Ok(Value::float(f64::INFINITY)),
            "nan" => return Ok(Value::float(f64::NAN)),
            // The devices, where no variable has taken their names: `cuda`
            // stays without an index until it is used (`resolve`).
            "cpu" => return Ok(Value::device(Device::Cpu)),
            "cuda" => {
                return self
                    .rt
                    .cuda(None)
                    .map(|_| Value::CurrentCuda)
                    .map_err(|err| err.at(span))
            }
            _ => {}
        }
        if name == "default" {
            if let Some(s) = self.default_stream() {
                return Ok(s);
            }
        }
        // Python's `sum`, `max`, `min` in a Python program: over a tensor
        // they iterate its rows (`torch.sum` reduces it whole).
        if matches!(name, "sum" | "max" | "min") && self.python_program() {
            if let Some(v) = super::imports::native_member("builtins", name) {
                return Ok(v);
            }
        }
        if let Some(doc) = docs::function(name) {
            return Ok(Value::Builtin(doc));
        }
        // Python's `True`, PyTorch's `float32`: the same values here.
        if let Some(v) = super::spelling::value(name) {
            return Ok(v);
        }
        if let Some(hint) = super::spelling::name_hint(name) {
            return Err(hint.at(span));
        }
        let known = self.known_names();
        // Python's short number builtins are never what a mistyped variable
        // meant (`out` is not `oct`): left out of the suggestion.
        let rarely_meant = [
            "oct", "hex", "bin", "chr", "ord", "divmod", "exec", "eval", "globals",
        ];
        let known = known
            .iter()
            .map(String::as_str)
            .filter(|n| !rarely_meant.contains(n));
        Err(Error::UnknownName {
            name: name.to_string(),
            suggestion: super::suggest::closest(name, known),
        }
        .at(span))
    }

    /// `xs[i]` (from the end when negative) or `xs[a:b:c]` (a new list of
    /// the same kind, as Python slices one).
    fn list_get(
        &mut self,
        list: &[Value],
        grows: bool,
        items: &[IndexItem],
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let at = self.list_at(items, span, d)?;
        pick(list, grows, at, span)
    }

    /// A list's index as written: one integer, or a slice's bounds.
    fn list_at(&mut self, items: &[IndexItem], span: Span, d: usize) -> Result<ListAt, Diagnostic> {
        match items {
            [IndexItem::At(k)] => {
                let v = self.eval(k, d)?;
                // `xs[slice(1, 7, 2)]`: a slice object, as `xs[1:7:2]`.
                if let Some((a, b, c)) = super::value::slice_bounds(&v) {
                    return Ok(ListAt::Slice(a, b, c));
                }
                Ok(ListAt::One(self.int_of(v, k, "a list index")?, k.span))
            }
            [IndexItem::Slice {
                start, stop, step, ..
            }] => {
                let (a, b, c) = self.slice_bounds([start, stop, step], d)?;
                Ok(ListAt::Slice(a, b, c))
            }
            _ => Err(Error::value(
                "a list takes one integer index or a slice, e.g. `parts[0]`, `losses[-10:]`",
            )
            .at(span)),
        }
    }

    fn dict_get(
        &mut self,
        dict: &super::value::PyDict,
        items: &[IndexItem],
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let [IndexItem::At(k)] = items else {
            let key = self.dict_key(items, span, d)?;
            return match dict.get(&key) {
                Some(v) => Ok(v),
                None => self.missing_item(dict, key, span),
            };
        };
        let kv = self.eval(k, d)?;
        let key = self.key(&kv, k.span)?;
        if let Some(v) = dict.get(&key) {
            return Ok(v);
        }
        // `x.sort()[0]`: by position, as a named tuple, in a dict keyed by
        // names only (cudash's language; in a Python program a dict is
        // Python's, its KeyError included).
        let pairs = dict.items();
        if matches!(kv, Value::Int(_))
            && !self.python_program()
            && dict.missing().is_none()
            && !pairs.is_empty()
            && !pairs.keys().any(Key::is_number)
        {
            let values: Vec<Value> = pairs.values().cloned().collect();
            return self.list_get(&values, false, items, span, d);
        }
        self.missing_item(dict, key, span)
    }

    /// The key of `d[k]`, or of `d[i, j]` (the tuple `(i, j)`, as Python's).
    pub(crate) fn dict_key(
        &mut self,
        items: &[IndexItem],
        span: Span,
        d: usize,
    ) -> Result<Key, Diagnostic> {
        let mut parts = Vec::with_capacity(items.len());
        for item in items {
            let IndexItem::At(e) = item else {
                return Err(Error::Module {
                    class: "TypeError",
                    message: "unhashable type: 'slice'".into(),
                    help: Some("a dict is read by key: `d[k]`; a slice reads a list".into()),
                }
                .at(span));
            };
            parts.push(self.eval(e, d)?);
        }
        let (v, at) = match (parts.len(), items) {
            (1, [IndexItem::At(e)]) => (parts.remove(0), e.span),
            _ => (Value::List(Arc::new(parts)), span),
        };
        self.key(&v, at)
    }

    /// `d[k]` of a key `d` lacks: a `defaultdict`'s `factory()`, kept
    /// under `k`; a `Counter`'s 0, not kept; any other dict's KeyError.
    pub(crate) fn missing_item(
        &mut self,
        dict: &super::value::PyDict,
        key: Key,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match dict.missing() {
            Some(super::value::Missing::Factory(f)) => {
                let v = self.call_value(f.clone(), Vec::new(), span)?;
                dict.set(key, v.clone());
                Ok(v)
            }
            Some(super::value::Missing::Count) => Ok(Value::Int(0)),
            None => Err(super::methods::dict::key_error(&key, &dict.items()).at(span)),
        }
    }

    pub(crate) fn indexable(&self, v: &Value, span: Span) -> Result<Arc<Tensor>, Diagnostic> {
        match v {
            Value::Tensor(t) => Ok(Arc::clone(t)),
            // Python's own words for what no subscript reads (`x.grad[0]`
            // before a backward pass: `'NoneType' object is not subscriptable`).
            Value::None | Value::Int(_) | Value::Float(_) | Value::Bool(_) => Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "'{}' object is not subscriptable",
                    super::format::python_type(v)
                ),
                help: None,
            }
            .at(span)),
            other => {
                Err(Error::wrong_type("the indexed value", "a tensor", other.type_name()).at(span))
            }
        }
    }

    /// A slice's bounds as written (`a:b:c`, each left out or an int).
    pub(super) fn slice_bounds(
        &mut self,
        parts: [&Option<Expr>; 3],
        d: usize,
    ) -> Result<SliceBounds, Diagnostic> {
        let mut bound = |p: &Option<Expr>| {
            p.as_ref()
                .map(|e| self.eval_int(e, d, "a slice bound"))
                .transpose()
        };
        Ok((bound(parts[0])?, bound(parts[1])?, bound(parts[2])?))
    }

    /// What `obj[...]` hands `__getitem__` or `__setitem__`: one item's
    /// value, a `slice` for `a:b:c`, a tuple of them for several.
    pub(crate) fn item_key(&mut self, items: &[IndexItem], d: usize) -> Result<Value, Diagnostic> {
        let mut parts = Vec::with_capacity(items.len());
        for item in items {
            parts.push(match item {
                IndexItem::At(e) => self.eval(e, d)?,
                IndexItem::Slice {
                    start, stop, step, ..
                } => {
                    let (a, b, c) = self.slice_bounds([start, stop, step], d)?;
                    super::value::slice_value(a, b, c)
                }
                IndexItem::Ellipsis => super::value::ellipsis(),
            });
        }
        Ok(match parts.len() {
            1 => parts.remove(0),
            _ => Value::List(Arc::new(parts)),
        })
    }

    /// A uint8 index is a mask, as PyTorch still reads it (with its
    /// deprecation warning): its nonzero elements pick.
    fn byte_mask(&mut self, t: &Arc<Tensor>) -> Result<Arc<Tensor>, Error> {
        self.warn_once(
            "UserWarning: indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
                .into(),
        );
        self.rt.cast(t, crate::runtime::DType::Bool)
    }

    pub(crate) fn eval_index(
        &mut self,
        items: &[IndexItem],
        d: usize,
    ) -> Result<Vec<Index>, Diagnostic> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(match item {
                IndexItem::Ellipsis => Index::Ellipsis,
                IndexItem::At(e) => match self.eval(e, d)? {
                    Value::Int(i) => Index::At(i),
                    Value::None => Index::NewAxis,
                    Value::Bool(b) => Index::Tensor(Arc::new(Tensor::scalar(b.get()))),
                    Value::Tensor(t) if t.dtype() == crate::runtime::DType::U8 => {
                        Index::Tensor(self.byte_mask(&t).map_err(|err| err.at(e.span))?)
                    }
                    Value::Tensor(t) if t.ndim() == 0 && t.dtype().is_int() => {
                        Index::At(t.to_vec::<i64>()[0])
                    }
                    Value::Tensor(t) => Index::Tensor(t),
                    // `x[[0, 2]]` in a Python program: a list of indices
                    // (or of bools, a mask), as a tensor of them.
                    list @ Value::MutList(_) => {
                        Index::Tensor(Arc::new(super::literal::literal_tensor_from_value(
                            &list,
                            e.span,
                            crate::runtime::DType::F32,
                        )?))
                    }
                    // `x[range(n), y]`: a range is a sequence of indices.
                    Value::Range(r) => {
                        let v: Vec<i64> = (0..r.len()).map(|k| r.at(k)).collect();
                        let n = v.len();
                        Index::Tensor(Arc::new(Tensor::from_vec(v, vec![n])))
                    }
                    // `x[s]` of a `slice` object (a class's `__getitem__`
                    // handing its key on).
                    v @ Value::Object(_) if super::value::slice_bounds(&v).is_some() => {
                        let (a, b, c) = super::value::slice_bounds(&v).unwrap_or_default();
                        Index::Slice(a, b, c)
                    }
                    // `x[nonzero(m, as_tuple=true)]`, `x[key]` of a tuple
                    // key (ints, slices, tensors, None): the tuple's items
                    // are the index itself, as in Python (`x[()]`, no item:
                    // the whole tensor, a 0-d one's element).
                    Value::List(parts) if items.len() == 1 => {
                        for p in parts.iter() {
                            out.push(match p {
                                Value::Tensor(t) if t.dtype() == crate::runtime::DType::U8 => {
                                    Index::Tensor(self.byte_mask(t).map_err(|err| err.at(e.span))?)
                                }
                                Value::Tensor(t) => Index::Tensor(Arc::clone(t)),
                                Value::Int(i) => Index::At(*i),
                                Value::None => Index::NewAxis,
                                v => match super::value::slice_bounds(v) {
                                    Some((a, b, c)) => Index::Slice(a, b, c),
                                    None => {
                                        return Err(Error::wrong_type(
                                            "a part of an index",
                                            "an int, a slice, `none` or a tensor",
                                            v.type_name(),
                                        )
                                        .at(e.span))
                                    }
                                },
                            });
                        }
                        continue;
                    }
                    other => {
                        return Err(Error::wrong_type(
                            "an index",
                            "an int, a slice, `none`, `...`, or a tensor of indices or a mask",
                            other.type_name(),
                        )
                        .at(e.span))
                    }
                },
                IndexItem::Slice {
                    start, stop, step, ..
                } => {
                    let (a, b, c) = self.slice_bounds([start, stop, step], d)?;
                    Index::Slice(a, b, c)
                }
            });
        }
        Ok(out)
    }

    pub(crate) fn eval_int(&mut self, e: &Expr, d: usize, what: &str) -> Result<i64, Diagnostic> {
        let v = self.eval(e, d)?;
        self.int_of(v, e, what)
    }

    /// `v` as an index: an int, a one-element integer tensor, or what an
    /// instance's `__index__` gives.
    fn int_of(&mut self, v: Value, e: &Expr, what: &str) -> Result<i64, Diagnostic> {
        match v {
            Value::Int(i) => Ok(i),
            Value::Tensor(t) if t.numel() == 1 && t.dtype().is_int() => Ok(t.to_vec::<i64>()[0]),
            // An instance's `__index__` (an IntEnum's member).
            Value::Object(o) => {
                let v = Value::Object(Arc::clone(&o));
                let Some(Value::Function(f)) = o.class.find("__index__") else {
                    return Err(Error::wrong_type(what, "an int", v.type_name()).at(e.span));
                };
                match self.call_bound(&v, f, Vec::new(), e.span)? {
                    Value::Int(i) => Ok(i),
                    other => Err(Error::wrong_type(
                        "what __index__ returned",
                        "an int",
                        other.type_name(),
                    )
                    .at(e.span)),
                }
            }
            other => Err(Error::wrong_type(what, "an int", other.type_name()).at(e.span)),
        }
    }

    /// A string (a file name).
    pub(crate) fn eval_str(&mut self, e: &Expr, what: &str) -> Result<String, Diagnostic> {
        match self.eval(e, 0)? {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(Error::wrong_type(what, "a string", other.type_name()).at(e.span)),
        }
    }

    /// `[...]`: a tensor literal when every leaf is a number, otherwise a list.
    /// `[...]`: a tensor when every leaf is a number; else (and `[]`) a
    /// Python list, as `losses = []` then `losses.append(x)` needs.
    ///
    /// In a Python program (a `.py` file) `[...]` is always Python's list,
    /// as PyTorch's programs mean it: `[0] * 10` repeats, `xs + [3]` joins,
    /// `[1, 2].append(3)` grows it.
    fn eval_list(&mut self, items: &[Expr], span: Span, d: usize) -> Result<Value, Diagnostic> {
        if items.is_empty() {
            return Ok(Value::list(Vec::new()));
        }
        let spread = items.iter().any(|e| matches!(e.kind, ExprKind::Starred(_)));
        if self.python_program() || spread {
            return Ok(Value::list(self.eval_items(items, d + 1)?));
        }
        let tree = self.literal_tree(items, span, d, false)?;
        Ok(match literal_value(tree)? {
            Value::List(items) => Value::list(items.to_vec()),
            v => v,
        })
    }

    /// A display's items evaluated in order, a starred one's (`*xs`) spread
    /// in from its iteration.
    fn eval_items(&mut self, items: &[Expr], d: usize) -> Result<Vec<Value>, Diagnostic> {
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            match &item.kind {
                ExprKind::Starred(inner) => {
                    let v = self.eval(inner, d)?;
                    values.extend(self.items_of(v, inner.span)?);
                }
                _ => values.push(self.eval(item, d)?),
            }
        }
        Ok(values)
    }

    /// `{k: v, ...}`: keys are strings or ints; a repeated key keeps its first
    /// place and its last value, as Python's. A list literal in it is a
    /// Python list, of numbers too (`"milestones": [30, 80]`, `"w": []`
    /// grown by `append`), and a tuple keeps its numbers (`"betas": (0.9,
    /// 0.999)` keeps its digits), as the Python values a dict holds.
    fn eval_dict(&mut self, pairs: &[(Expr, Expr)], d: usize) -> Result<Value, Diagnostic> {
        let mut out: Vec<(Key, Value)> = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            // `{**defaults, "lr": 0.1}`: the items of a dict, in order.
            if let ExprKind::Starred(m) = &k.kind {
                match self.eval(m, d)? {
                    Value::Dict(other) => {
                        out.extend(other.items().iter().map(|(k, v)| (k.clone(), v.clone())));
                        continue;
                    }
                    other => {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: format!(
                                "'{}' object is not a mapping",
                                super::format::python_type(&other)
                            ),
                            help: None,
                        }
                        .at(m.span))
                    }
                }
            }
            let kv = self.eval(k, d)?;
            let key = self.key(&kv, k.span)?;
            let value = match &v.kind {
                ExprKind::List(items) => {
                    super::literal::python_list(self.literal_tree(items, v.span, d + 1, false)?)
                }
                _ => self.eval(v, d)?,
            };
            match out.iter_mut().find(|(old, _)| *old == key) {
                Some(slot) => slot.1 = value,
                None => out.push((key, value)),
            }
        }
        Ok(Value::Dict(PyDict::new(out)))
    }

    /// A bracketed literal's items; tuples inside nest as lists do for
    /// `tensor([(1, 2), (3, 4)])` (`tuples`), else they are values (`[(0,
    /// x), (1, y)]` is a list of pairs).
    fn literal_tree(
        &mut self,
        items: &[Expr],
        span: Span,
        d: usize,
        tuples: bool,
    ) -> Result<Lit, Diagnostic> {
        let mut kids = Vec::with_capacity(items.len());
        for item in items {
            kids.push(match &item.kind {
                ExprKind::List(inner) => self.literal_tree(inner, item.span, d + 1, tuples)?,
                ExprKind::Tuple(inner) if tuples => {
                    self.literal_tree(inner, item.span, d + 1, tuples)?
                }
                _ => Lit::Leaf(self.eval(item, d)?, item.span),
            });
        }
        Ok(Lit::Node(kids, span))
    }

    /// `+x`: Python's: a number itself (`+True` is 1), a tensor itself
    /// (`torch.positive`; PyTorch refuses a bool tensor), an instance's
    /// `__pos__`.
    fn eval_pos(&mut self, inner: &Expr, d: usize, span: Span) -> Result<Value, Diagnostic> {
        let v = self.eval(inner, d)?;
        if let Some(r) = self.unary_method(&v, "__pos__", span) {
            return r;
        }
        match v {
            Value::Bool(b) => Ok(Value::Int(b.get() as i64)),
            Value::Int(_) | Value::Float(_) => Ok(v),
            Value::Tensor(t) if t.dtype() == crate::runtime::DType::Bool => {
                Err(Error::runtime("The `+` operator, on a bool tensor is not supported.").at(span))
            }
            Value::Tensor(_) | Value::Sparse(_) => Ok(v),
            other => Err(Error::wrong_type(
                "the operand of unary `+`",
                "a number or a tensor",
                other.type_name(),
            )
            .at(span)),
        }
    }

    fn negate(&mut self, v: Value) -> Result<Value, Error> {
        match v {
            Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(overflow),
            Value::Float(x) => Ok(Value::float(-x.get())),
            Value::Bool(b) => Ok(Value::Int(-(b.get() as i64))),
            Value::Tensor(t) => autograd::record::unary(&mut self.rt, self.grad, UnaryOp::Neg, &t)
                .map(Value::Tensor),
            Value::Sparse(s) => {
                let v = self.rt.unary(UnaryOp::Neg, &s.values)?;
                Ok(Value::Sparse(Arc::new(autograd::sparse::map_values(&s, v))))
            }
            other => Err(Error::wrong_type(
                "the operand of unary `-`",
                "a number or a tensor",
                other.type_name(),
            )),
        }
    }

    /// `~x`: bitwise not; on a bool tensor logical not. Python's `~True`
    /// is -2 (the int), and so is cudash's.
    fn invert(&mut self, v: Value) -> Result<Value, Error> {
        match v {
            Value::Int(i) => Ok(Value::Int(!i)),
            Value::Bool(b) => Ok(Value::Int(!(b.get() as i64))),
            Value::Tensor(t) => self.rt.unary(UnaryOp::BitNot, &t).map(Value::Tensor),
            other => Err(Error::wrong_type(
                "the operand of `~`",
                "an integer, a bool or a tensor of them",
                other.type_name(),
            )),
        }
    }

    pub(crate) fn binary(&mut self, op: BinOp, a: Value, b: Value) -> Result<Value, Error> {
        match op {
            BinOp::Is => return Ok(Value::bool(same(&a, &b))),
            BinOp::IsNot => return Ok(Value::bool(!same(&a, &b))),
            BinOp::In | BinOp::NotIn => {
                return Err(Error::value("internal error: `in` reached the arithmetic"))
            }
            _ => {}
        }
        if let (Some(x), Some(y)) = (scalar(&a), scalar(&b)) {
            return scalar_binary(op, x, y, &|| self.python_program());
        }
        if matches!(a, Value::Sparse(_)) || matches!(b, Value::Sparse(_)) {
            return self.sparse_binary(op, &a, &b);
        }
        if let Some(r) = super::strings::string_binary(op, &a, &b) {
            return r;
        }
        // A named tuple orders, joins and repeats as the tuple it is
        // (`sys.version_info >= (3, 8)`).
        let as_tuple = |v: &Value| match v {
            Value::Object(o) if o.class.tuple => Some(Value::List(Arc::new(o.tuple_items()))),
            _ => None,
        };
        let (ta, tb) = (as_tuple(&a), as_tuple(&b));
        if (ta.is_some() || tb.is_some())
            && !matches!(op, BinOp::Elementwise(BinaryOp::Eq | BinaryOp::Ne))
        {
            return self.binary(op, ta.unwrap_or(a), tb.unwrap_or(b));
        }
        if let Some(r) = super::sequences::sequence_binary(op, &a, &b) {
            return r;
        }
        if let BinOp::Elementwise(bop) = op {
            if let Some(r) = super::dict_view::view_binary(bop, &a, &b) {
                return r;
            }
            if let Some(r) = super::methods::set::set_binary(bop, &a, &b) {
                return r;
            }
            // `a | b` of dicts (Python 3.9): a new dict (`a`'s kind, an
            // OrderedDict's or a defaultdict's), `b`'s values over `a`'s.
            if let (BinaryOp::BitOr, Value::Dict(x), Value::Dict(y)) = (bop, &a, &b) {
                let merged = x.copy_with((*x.items()).clone());
                for (k, v) in y.items().iter() {
                    merged.set(k.clone(), v.clone());
                }
                return Ok(Value::Dict(merged));
            }
        }
        // `"%d/%d" % (i, n)`: printf-style formatting.
        if let (Value::Str(fmt), BinOp::Elementwise(BinaryOp::Rem)) = (&a, op) {
            return self.percent_format(fmt, b);
        }
        match (&a, &b, op) {
            (Value::Tensor(_), _, _) | (_, Value::Tensor(_), _) => self.tensor_binary(op, &a, &b),
            (_, _, BinOp::Elementwise(BinaryOp::Eq)) => Ok(Value::bool(equal(&a, &b))),
            (_, _, BinOp::Elementwise(BinaryOp::Ne)) => Ok(Value::bool(!equal(&a, &b))),
            _ => Err(Error::wrong_type(
                format!("the operands of `{}`", op.symbol()),
                "numbers or tensors",
                format!("{} and {}", a.type_name(), b.type_name()),
            )),
        }
    }

    fn tensor_binary(&mut self, op: BinOp, a: &Value, b: &Value) -> Result<Value, Error> {
        let operand = |v: &Value| -> Result<(Arc<Tensor>, bool), Error> {
            operand_value(v).ok_or_else(|| {
                Error::wrong_type(
                    format!("an operand of `{}`", op.symbol()),
                    "a number or a tensor",
                    v.type_name(),
                )
            })
        };
        let (ta, wa) = operand(a)?;
        let (tb, wb) = operand(b)?;
        if op == BinOp::Elementwise(BinaryOp::Div) && wa && !wb {
            // `3 / x` is `x.reciprocal() * 3`, as Python's `__rtruediv__`
            // on a tensor runs it: two kernels, rounded twice.
            let one = Tensor::scalar(1i64);
            let reciprocal = autograd::record::binary(
                &mut self.rt,
                self.grad,
                BinaryOp::Div,
                Operand {
                    tensor: &one,
                    weak: true,
                },
                Operand::strong(&tb),
            )?;
            let r = autograd::record::binary(
                &mut self.rt,
                self.grad,
                BinaryOp::Mul,
                Operand::strong(&reciprocal),
                Operand {
                    tensor: &ta,
                    weak: true,
                },
            )?;
            return Ok(Value::Tensor(r));
        }
        let r = match op {
            BinOp::Elementwise(op) => autograd::autocast::binary(
                &mut self.rt,
                self.grad,
                op,
                Operand {
                    tensor: &ta,
                    weak: wa,
                },
                Operand {
                    tensor: &tb,
                    weak: wb,
                },
            )?,
            BinOp::MatMul => {
                autograd::autocast::matmul(&mut self.rt, self.grad, "matmul", &ta, &tb)?
            }
            // Answered before any tensor is looked at (`binary`).
            BinOp::Is | BinOp::IsNot | BinOp::In | BinOp::NotIn => {
                return Err(Error::value(
                    "internal error: an object comparison reached a tensor op",
                ))
            }
        };
        Ok(Value::Tensor(r))
    }

    fn eval_call(
        &mut self,
        callee: &Expr,
        args: &[crate::lang::ast::Arg],
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        // A user function called with its arguments in order, the common
        // call, binds them as it evaluates them. (Evaluating them cannot
        // change what the name holds: only top-level code assigns globals.)
        if let ExprKind::Var(n) = &callee.kind {
            if args.iter().all(crate::lang::ast::Arg::positional) {
                if let Some(f) = self.user_function(n, args.len()) {
                    return self.call_in_order(f, &|it, k| it.eval(&args[k].value, d), span);
                }
            }
        }
        self.no_module_path(callee)?;
        // A method call evaluates its receiver first.
        let receiver = match &callee.kind {
            ExprKind::Attr(obj, _) => Some(self.eval(obj, d)?),
            _ => None,
        };
        self.call_after(receiver, callee, args, span, d)
    }

    /// The call `obj.f(...)` with `obj` already evaluated as `this` (the
    /// compiled method call's way back: `obj` is not evaluated twice).
    pub(super) fn call_on(
        &mut self,
        this: Value,
        call: &Expr,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        match &call.kind {
            ExprKind::Call(callee, args) if matches!(callee.kind, ExprKind::Attr(..)) => {
                self.call_after(Some(this), callee, args, call.span, d)
            }
            _ => self.eval(call, d),
        }
    }

    /// A call once its receiver (for `obj.f(...)`) is known: the arguments
    /// evaluated, then the method, builtin, function or value called; what
    /// it saved for backward under the program's hooks packed right after.
    fn call_after(
        &mut self,
        receiver: Option<Value>,
        callee: &Expr,
        args: &[crate::lang::ast::Arg],
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let v = self.call_receiving(receiver, callee, args, span, d);
        self.packed_after(v, span)
    }

    fn call_receiving(
        &mut self,
        receiver: Option<Value>,
        callee: &Expr,
        args: &[crate::lang::ast::Arg],
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let receiver = match (receiver, &callee.kind) {
            (Some(v), ExprKind::Attr(_, name)) => Some((v, name)),
            _ => None,
        };
        // `tensor([...])` and `x.new_tensor([...])` read their literal's
        // numbers exactly (an f64 literal keeps its digits), so it goes to
        // them as a list rather than an f32 tensor.
        let exact = match &callee.kind {
            ExprKind::Var(n) => n.name == "tensor",
            // `x.new_tensor([...])`, `torch.tensor([...])`
            ExprKind::Attr(_, n) => n.name == "new_tensor" || n.name == "tensor",
            _ => false,
        };
        let mut vals = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let data = match &a.keyword {
                Some(k) => k.name == "data",
                None => i == 0,
            };
            // An optimizer's `betas=(0.9, 0.999)` and a schedule's
            // `max_lr=[1.0, 0.1]` are Python floats: their digits are kept
            // (an f32 tensor would round them).
            let pair = a
                .keyword
                .as_ref()
                .is_some_and(|k| matches!(k.name.as_str(), "betas" | "max_lr"));
            let value = match &a.value.kind {
                ExprKind::List(items) | ExprKind::Tuple(items) if (exact && data) || pair => {
                    literal_list(self.literal_tree(items, a.value.span, d, true)?)
                }
                _ => self.eval(&a.value, d)?,
            };
            if a.spread != crate::lang::ast::Spread::No {
                self.spread_arg(a, value, &mut vals)?;
                continue;
            }
            vals.push(ArgVal {
                keyword: a.keyword.clone(),
                value,
                span: a.value.span,
            });
        }
        // Forward-mode AD: a dual tensor given to a native op (a tensor's
        // method, a builtin) must come back with a tangent on the result.
        let dual_in = crate::autograd::forward_ad::active()
            && (receiver
                .as_ref()
                .is_some_and(|(r, _)| super::forward_ad::is_dual(r))
                || vals.iter().any(|a| super::forward_ad::is_dual(&a.value)));
        if dual_in {
            let native = match &receiver {
                Some((Value::Tensor(_), name)) => Some(name.name.clone()),
                Some((Value::Namespace(m), name)) if super::forward_ad::ops_namespace(m.path) => {
                    Some(format!("{}.{}", m.path, name.name))
                }
                Some(_) => None,
                // (A name is looked up again by the call: no side effects.)
                None if matches!(callee.kind, ExprKind::Var(_)) => match self.eval(callee, d)? {
                    Value::Builtin(doc) => Some(doc.name.to_string()),
                    Value::Native(f) => Some(f.name.to_string()),
                    _ => None,
                },
                None => None,
            };
            if let Some(op) = native.as_deref().and_then(super::forward_ad::linear_op) {
                let r = self.call_linear(op, receiver, callee, vals, span, d);
                return super::forward_ad::check_carried(native.as_deref().unwrap_or(""), r, span);
            }
            let r = self.call_dispatch(receiver, callee, vals, span, d);
            return match native {
                Some(name) => super::forward_ad::check_carried(&name, r, span),
                None => r,
            };
        }
        self.call_dispatch(receiver, callee, vals, span, d)
    }

    /// A call of a [`super::forward_ad::Linear`] op on dual tensors: the
    /// op, then its result's tangent, the same op of the arguments'
    /// tangents (PyTorch's `auto_linear`), computed with tangents off.
    fn call_linear(
        &mut self,
        op: &super::forward_ad::Linear,
        receiver: Option<(Value, &crate::lang::ast::Name)>,
        callee: &Expr,
        vals: Vec<ArgVal>,
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        let tangent_receiver = receiver.clone();
        let out = self.call_dispatch(receiver, callee, vals.clone(), span, d)?;
        let Value::Tensor(out) = out else {
            return Ok(out);
        };
        use crate::autograd::forward_ad;
        if !out.dtype().is_float() || forward_ad::tangent(&out).is_some() {
            return Ok(Value::Tensor(out));
        }
        // The op's own record counted it as computing no tangent: this is
        // where it gets one.
        forward_ad::take_unhandled();
        let shift = matches!(tangent_receiver, Some((Value::Tensor(_), _))) as usize;
        let receiver = match tangent_receiver {
            Some((Value::Tensor(t), name)) if op.receiver_is_input() => {
                let t = self.tangent_or_zeros(&t).map_err(|e| e.at(span))?;
                Some((Value::Tensor(t), name))
            }
            other => other,
        };
        let args = self
            .tangent_args(op, &vals, shift)
            .map_err(|e| e.at(span))?;
        let tangent =
            forward_ad::suspended(|| self.call_dispatch(receiver, callee, args, span, d))?;
        match tangent {
            Value::Tensor(t) if t.shape() == out.shape() => {
                Ok(Value::Tensor(forward_ad::give(out, t)))
            }
            _ => Ok(Value::Tensor(out)),
        }
    }

    /// A call with its receiver and arguments evaluated.
    fn call_dispatch(
        &mut self,
        receiver: Option<(Value, &crate::lang::ast::Name)>,
        callee: &Expr,
        vals: Vec<ArgVal>,
        span: Span,
        d: usize,
    ) -> Result<Value, Diagnostic> {
        match receiver {
            // `xs.append(v)` keeps `v` itself (Python stores the object).
            // `xs.append(v)` and a module's function (`datautils.make(xs)`)
            // take the arguments themselves.
            Some((recv @ (Value::MutList(_) | Value::OwnModule(_) | Value::Dict(_)), name)) => {
                self.call_method(recv, name, vals, span)
            }
            // A method of the program's own class (`self.memory.push(xs)`,
            // `A.build(xs)`): the arguments themselves, as any function of
            // the program's takes them.
            Some((recv, name))
                if matches!(recv, Value::Class(_) | Value::Super(_))
                    || super::value::class_of(&recv)
                        .is_some_and(|c| c.find(&name.name).is_some()) =>
            {
                self.call_method(recv, name, vals, span)
            }
            // `random.shuffle(xs)` changes the list itself.
            Some((recv @ Value::Namespace(m), name))
                if takes_lists_themselves(&format!("{}.{}", m.path, name.name)) =>
            {
                self.call_method(recv, name, vals, span)
            }
            // `dict.fromkeys(keys, [])` keeps the one list for every key.
            Some((recv @ Value::Builtin(doc), name))
                if takes_lists_themselves(&format!("{}.{}", doc.name, name.name)) =>
            {
                self.call_method(recv, name, vals, span)
            }
            Some((recv, name)) => self.call_method(recv, name, snapshot(vals), span),
            None => match self.eval(callee, d)? {
                // `print` shows a list as it is (one that holds itself as `[...]`).
                // ... and `str(x.shape)` shows a torch.Size, not a tuple.
                // `isinstance(xs, list)`, `type(xs)` and `hash(xs)` ask of
                // the list itself.
                Value::Builtin(doc)
                    if matches!(
                        doc.name,
                        "print" | "str" | "repr" | "format" | "isinstance" | "type" | "hash"
                    ) =>
                {
                    self.call_builtin(doc, vals, span)
                }
                Value::Builtin(doc) => self.call_builtin(doc, snapshot(vals), span),
                // A user function gets its arguments as they are (a list
                // by reference, as in Python).
                Value::Function(f) => self.call_function(f, vals, span),
                v @ (Value::Class(_)
                | Value::Module(_)
                | Value::Method(_)
                | Value::BuiltinMethod(_)
                | Value::Object(_)
                | Value::GradMode(_)
                | Value::Decorated(_)) => self.call_value(v, vals, span),
                Value::Native(f) if takes_lists_themselves(f.name) => {
                    self.call_native(f, vals, span)
                }
                Value::Native(f) => self.call_native(f, snapshot(vals), span),
                Value::ExcClass(c) => self.make_exception(c, vals),
                // Python's `bool(x)`: `bool` is also cudash's name of the dtype.
                Value::DType(t) if t.get() == crate::vocab::DType::Bool && vals.len() <= 1 => {
                    match vals.first() {
                        None => Ok(Value::bool(false)),
                        Some(a) if a.keyword.is_none() => {
                            let (v, at) = (a.value.clone(), a.span);
                            self.truth(&v, at).map(Value::bool)
                        }
                        Some(a) => Err(Error::Module {
                            class: "TypeError",
                            message: "bool() takes no keyword arguments".into(),
                            help: None,
                        }
                        .at(a.span)),
                    }
                }
                // `device = torch.device("cuda")`, then `device(1)`: the
                // variable hides the builtin of that name.
                other if shadowed_builtin(callee).is_some() => {
                    let name = shadowed_builtin(callee).unwrap_or_default();
                    Err(Error::Spelling {
                        message: format!(
                            "`{name}` is your variable here ({}), which hides the builtin `{name}`",
                            other.type_name()
                        ),
                        label: "your variable, not the builtin".into(),
                        help: format!(
                            "the variable wins, as in Python; reach the builtin as `torch.{name}(...)` (after `import torch`), or give the variable another name"
                        ),
                        class: "TypeError",
                    }
                    .at(callee.span))
                }
                other => {
                    Err(
                        Error::wrong_type("the called value", "a function", other.type_name())
                            .at(callee.span),
                    )
                }
            },
        }
    }
}

impl Interp {
    /// `*xs`: its items as positional arguments; `**d`: its entries as
    /// keyword arguments (string keys).
    fn spread_arg(
        &mut self,
        a: &crate::lang::ast::Arg,
        value: Value,
        vals: &mut Vec<ArgVal>,
    ) -> Result<(), Diagnostic> {
        let span = a.value.span;
        match a.spread {
            crate::lang::ast::Spread::Entries => {
                let Value::Dict(pairs) = &value else {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                            "argument after ** must be a mapping, not {}",
                            value.type_name()
                        ),
                        help: None,
                    }
                    .at(span));
                };
                for (k, v) in pairs.items().iter() {
                    let Some(k) = k.as_str() else {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: "keywords must be strings".into(),
                            help: None,
                        }
                        .at(span));
                    };
                    vals.push(ArgVal {
                        keyword: Some(crate::lang::ast::Name::new(k.to_string(), span)),
                        value: v.clone(),
                        span,
                    });
                }
            }
            _ => {
                let items = match self.elements_of(&value) {
                    Some(items) => items.map_err(|e| e.at(span))?,
                    None => {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: format!(
                                "argument after * must be an iterable, not {}",
                                value.type_name()
                            ),
                            help: None,
                        }
                        .at(span))
                    }
                };
                vals.extend(items.into_iter().map(|value| ArgVal {
                    keyword: None,
                    value,
                    span,
                }));
            }
        }
        Ok(())
    }
}

/// The builtin a called variable's name hides (`device` set to a device,
/// then called), if it is one.
fn shadowed_builtin(callee: &Expr) -> Option<String> {
    match &callee.kind {
        ExprKind::Var(n) if super::docs::function(&n.name).is_some() => Some(n.name.clone()),
        _ => None,
    }
}

/// A list's index, evaluated (`Interp::list_at`).
enum ListAt {
    /// One position, and where it was written.
    One(i64, Span),
    Slice(Option<i64>, Option<i64>, Option<i64>),
}

/// The item or the slice `at` picks from `list` (a slice of a `list()` is
/// a new `list()`, of a tuple a tuple).
/// `span`: the indexing, where a bad slice step is reported.
/// `s[i]` or `s[a:b:c]` of a string's characters or of bytes: the one
/// item as `one` makes it, a slice as `many` joins it; past the end
/// Python's words for each (`string index out of range`, `index out of
/// range`).
fn index_sequence<T: Copy>(
    elems: &[T],
    what: &str,
    at: ListAt,
    span: Span,
    one: impl Fn(T) -> Value,
    many: impl Fn(Vec<T>) -> Value,
) -> Result<Value, Diagnostic> {
    match at {
        ListAt::One(i, at) => match list_index(i, elems.len()) {
            Ok(j) => Ok(one(elems[j])),
            Err(_) => Err(Error::Module {
                class: "IndexError",
                message: format!("{what} out of range"),
                help: Some(match elems.len() {
                    0 => "it is empty".into(),
                    n => format!("it holds {n} items: index 0 to {}, or -1 to -{n}", n - 1),
                }),
            }
            .at(at)),
        },
        ListAt::Slice(a, b, c) => {
            let picked = python_slice(elems.len(), a, b, c.unwrap_or(1)).map_err(|e| e.at(span))?;
            Ok(many(picked.into_iter().map(|k| elems[k]).collect()))
        }
    }
}

fn pick(list: &[Value], grows: bool, at: ListAt, span: Span) -> Result<Value, Diagnostic> {
    match at {
        // Python's words: `list index out of range`.
        ListAt::One(i, span) => match list_index(i, list.len()) {
            Ok(j) => Ok(list[j].clone()),
            Err(_) => Err(Error::Module {
                class: "IndexError",
                message: format!(
                    "{} index out of range",
                    if grows { "list" } else { "tuple" }
                ),
                help: Some(match list.len() {
                    0 => "it is empty".into(),
                    n => format!("it holds {n} items: index 0 to {}, or -1 to -{n}", n - 1),
                }),
            }
            .at(span)),
        },
        ListAt::Slice(a, b, c) => {
            let picked = python_slice(list.len(), a, b, c.unwrap_or(1))
                .map_err(|e| e.at(span))?
                .into_iter()
                .map(|k| list[k].clone())
                .collect();
            Ok(match grows {
                true => Value::list(picked),
                false => Value::List(Arc::new(picked)),
            })
        }
    }
}

/// Position `i` of a list of `n` items, counting from the end when negative.
pub(crate) fn list_index(i: i64, n: usize) -> Result<usize, Error> {
    let j = if i < 0 { i + n as i64 } else { i };
    match (0..n as i64).contains(&j) {
        true => Ok(j as usize),
        false => Err(Error::IndexOutOfRange {
            index: i,
            dim: 0,
            size: n,
        }),
    }
}

/// The positions Python's `xs[start:stop:step]` picks from `n` items.
pub(super) fn python_slice(
    n: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> Result<Vec<usize>, Error> {
    let n = n as i64;
    if step == 0 {
        return Err(Error::value("slice step cannot be zero"));
    }
    // Negative bounds count from the end, then clamp, as Python's slice.indices.
    let at = |v: i64, lo: i64, hi: i64| (if v < 0 { v + n } else { v }).clamp(lo, hi);
    let (mut k, end) = match step > 0 {
        true => (at(start.unwrap_or(0), 0, n), at(stop.unwrap_or(n), 0, n)),
        false => (
            start.map_or(n - 1, |v| at(v, -1, n - 1)),
            stop.map_or(-1, |v| at(v, -1, n - 1)),
        ),
    };
    let mut out = Vec::new();
    while (step > 0 && k < end) || (step < 0 && k > end) {
        out.push(k as usize);
        k += step;
    }
    Ok(out)
}

/// Python's functions that take a list itself, not a reading of it:
/// `random.shuffle(xs)` changes it, `copy.copy(xs)` makes another list,
/// `dict.fromkeys(keys, xs)` gives every key that list.
fn takes_lists_themselves(name: &str) -> bool {
    matches!(
        name,
        "random.shuffle" | "copy.copy" | "copy.deepcopy" | "dict.fromkeys"
    )
}

/// Builtins and methods read a `list()` argument as it is at the call.
fn snapshot(args: Vec<ArgVal>) -> Vec<ArgVal> {
    args.into_iter()
        .map(|a| match &a.value {
            // A builtin reads a list, and a shape, as a tuple.
            Value::MutList(_) | Value::Size(_) => ArgVal {
                value: Value::List(a.value.items().unwrap_or_default()),
                ..a
            },
            _ => a,
        })
        .collect()
}

fn overflow() -> Error {
    Error::value_help(
        "integer overflow: the result does not fit in 64 bits",
        "use floats for very large numbers (`2.0 ** 70`)",
    )
}

/// Python's ZeroDivisionError, in its words.
fn zero_division(message: &str) -> Error {
    Error::Module {
        class: "ZeroDivisionError",
        message: message.into(),
        help: Some(
            "a divisor of 0 has no result for Python's numbers (a tensor's gives inf or nan)"
                .into(),
        ),
    }
}

/// Python-like arithmetic on plain numbers.
/// `python()`: whether a Python program runs (asked only at a zero
/// divisor), whose floats raise ZeroDivisionError where cudash's own
/// language gives IEEE's inf or nan (`0. / 0.` is its nan).
fn scalar_binary(
    op: BinOp,
    a: Scalar,
    b: Scalar,
    python: &dyn Fn() -> bool,
) -> Result<Value, Error> {
    use Scalar::*;
    let ints = match (a, b) {
        (Float(_), _) | (_, Float(_)) => None,
        _ => Some((a.as_i64(), b.as_i64())),
    };
    let (x, y) = (a.as_f64(), b.as_f64());
    let cmp = |r: bool| Ok(Value::bool(r));
    let op = match op {
        BinOp::Elementwise(op) => op,
        BinOp::MatMul => {
            return Err(Error::wrong_type(
                "the operands of `@`",
                "tensors with at least one dimension",
                "numbers",
            ))
        }
        BinOp::Is => return cmp(x == y),
        BinOp::IsNot => return cmp(x != y),
        BinOp::In | BinOp::NotIn => {
            return Err(Error::value("internal error: `in` reached the arithmetic"))
        }
    };
    // Integers compare exactly, as Python's do (2**53 + 1 != 2**53).
    if let Some(r) = match ints {
        Some((i, j)) => compare(op, i, j),
        None => compare(op, x, y),
    } {
        return cmp(r);
    }
    if op.is_bitwise() || op.is_shift() {
        let Some((i, j)) = ints else {
            return Err(Error::wrong_type(
                format!("the operands of `{}`", op.symbol()),
                "integers or bools",
                "a float",
            ));
        };
        let r = match op {
            BinaryOp::BitAnd => i & j,
            BinaryOp::BitOr => i | j,
            BinaryOp::BitXor => i ^ j,
            _ if j < 0 => return Err(Error::value("negative shift count")),
            // Python's ints have no width: `>>` by any count keeps the sign.
            BinaryOp::Shr => i >> j.min(63),
            _ if i == 0 => 0,
            _ => match u32::try_from(j).ok().and_then(|j| i.checked_shl(j)) {
                Some(r) if r >> j == i => r,
                _ => return Err(overflow()),
            },
        };
        if op.is_shift() {
            return Ok(Value::Int(r));
        }
        // bool op bool stays bool, as in Python.
        return Ok(match (a, b) {
            (Bool(_), Bool(_)) => Value::bool(r != 0),
            _ => Value::Int(r),
        });
    }
    if let Some((i, j)) = ints {
        let r = match op {
            BinaryOp::Add => i.checked_add(j),
            BinaryOp::Sub => i.checked_sub(j),
            BinaryOp::Mul => i.checked_mul(j),
            BinaryOp::Pow if j >= 0 => u32::try_from(j).ok().and_then(|j| i.checked_pow(j)),
            BinaryOp::Pow if i == 0 && python() => {
                return Err(zero_division("0.0 cannot be raised to a negative power"))
            }
            BinaryOp::Pow => return Ok(Value::float(x.powf(y))),
            BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Fmod | BinaryOp::Div if j == 0 => {
                return Err(zero_division(match op {
                    BinaryOp::Div => "division by zero",
                    BinaryOp::FloorDiv => "integer division or modulo by zero",
                    _ => "integer modulo by zero",
                }));
            }
            // i64::MIN // -1 does not fit.
            BinaryOp::FloorDiv if i == i64::MIN && j == -1 => None,
            BinaryOp::FloorDiv => Some(Num::floor_div(i, j)),
            BinaryOp::Rem => Some(Num::rem(i, j)),
            BinaryOp::Fmod => Some(i.wrapping_rem(j)),
            _ => return Ok(Value::float(x / y)),
        };
        return r.map(Value::Int).ok_or_else(overflow);
    }
    // Python's floats raise where IEEE would give inf or nan (tensors, and
    // cudash's own language, do not).
    let by_zero = match op {
        BinaryOp::Div if y == 0.0 => Some("float division by zero"),
        BinaryOp::FloorDiv if y == 0.0 => Some("float floor division by zero"),
        BinaryOp::Rem | BinaryOp::Fmod if y == 0.0 => Some("float modulo"),
        BinaryOp::Pow if x == 0.0 && y < 0.0 => Some("0.0 cannot be raised to a negative power"),
        _ => None,
    };
    if let Some(message) = by_zero.filter(|_| python()) {
        return Err(zero_division(message));
    }
    Ok(Value::float(match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::FloorDiv => Num::floor_div(x, y),
        BinaryOp::Rem => Num::rem(x, y),
        BinaryOp::Fmod => x % y,
        _ => x.powf(y),
    }))
}

/// `is`: the same object for tensors and lists, equal for plain values.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        // One variable under two handles is one (a node's saved input
        // read back: `y.grad_fn._saved_self is a`, as PyTorch's).
        (Value::Tensor(x), Value::Tensor(y)) => {
            Arc::ptr_eq(x, y) || crate::autograd::variable::is_same_variable(x, y)
        }
        (Value::List(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::MutList(x), Value::MutList(y)) => Arc::ptr_eq(x, y),
        (Value::Function(x), Value::Function(y)) => Arc::ptr_eq(x, y),
        (Value::Optimizer(x), Value::Optimizer(y)) => Arc::ptr_eq(x, y),
        (Value::HookHandle(x), Value::HookHandle(y)) => Arc::ptr_eq(x, y),
        (Value::GradFn(x), Value::GradFn(y)) => x.same(y),
        (Value::Module(x), Value::Module(y)) => Arc::ptr_eq(x, y),
        (Value::Object(x), Value::Object(y)) => Arc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => x.same(y),
        (Value::Class(x), Value::Class(y)) => Arc::ptr_eq(x, y),
        (Value::Dataset(x), Value::Dataset(y)) => Arc::ptr_eq(x, y),
        (Value::DataLoader(x), Value::DataLoader(y)) => Arc::ptr_eq(x, y),
        (Value::Sampler(x), Value::Sampler(y)) => Arc::ptr_eq(x, y),
        (Value::Generator(x), Value::Generator(y)) => Arc::ptr_eq(&x.0, &y.0),
        _ => equal(a, b),
    }
}

/// Python's `==` between values that are not tensors.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    equal_within(a, b, 0)
}

/// Lists nested deeper than this compare unequal rather than overflow the
/// stack (Python raises RecursionError comparing two lists that hold
/// themselves).
const MAX_COMPARE_DEPTH: usize = 200;

fn equal_within(a: &Value, b: &Value, depth: usize) -> bool {
    // The same list is equal to itself, as Python's `in` and `==` find by
    // identity first (a list that holds itself compares without recursing).
    if let (Value::MutList(x), Value::MutList(y)) = (a, b) {
        if Arc::ptr_eq(x, y) {
            return true;
        }
    }
    // Lists and tuples: item by item, as Python compares them.
    if let (Some(x), Some(y)) = (a.items(), b.items()) {
        return depth < MAX_COMPARE_DEPTH
            && x.len() == y.len()
            && x.iter()
                .zip(y.iter())
                .all(|(p, q)| equal_within(p, q, depth + 1));
    }
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Object(_), Value::Object(_))
            if super::value::slice_bounds(a).is_some()
                && super::value::slice_bounds(b).is_some() =>
        {
            super::value::slice_bounds(a) == super::value::slice_bounds(b)
        }
        // A values view equals only itself; a keys or an items view, a set
        // of the same items.
        (Value::DictView(x), Value::DictView(y)) if Arc::ptr_eq(x, y) => true,
        (Value::DictView(_), _) | (_, Value::DictView(_)) => matches!(
            super::dict_view::view_binary(BinaryOp::Eq, a, b),
            Some(Ok(Value::Bool(same))) if same.get()
        ),
        // Dicts: the same keys, each with an equal value, in any order;
        // sets: the same items.
        (Value::Dict(x), Value::Dict(y)) | (Value::Set(x), Value::Set(y)) => {
            let (xs, ys) = (x.items(), y.items());
            // Two OrderedDicts are equal only in the same order.
            let ordered = x.is_ordered() && y.is_ordered();
            depth < MAX_COMPARE_DEPTH
                && xs.len() == ys.len()
                && (!ordered || xs.keys().eq(ys.keys()))
                && xs
                    .iter()
                    .all(|(k, v)| ys.get(k).is_some_and(|w| equal_within(v, w, depth + 1)))
        }
        // As torch.device: `cuda` equals only `cuda`, never `cuda:0`.
        (Value::Device(x), Value::Device(y)) => x.get() == y.get(),
        (Value::CurrentCuda, Value::CurrentCuda) => true,
        (Value::DType(x), Value::DType(y)) => x.get() == y.get(),
        (Value::Builtin(x), Value::Builtin(y)) => std::ptr::eq(*x, *y),
        (Value::Native(x), Value::Native(y)) => x == y,
        (Value::Function(x), Value::Function(y)) => Arc::ptr_eq(x, y),
        (Value::Class(x), Value::Class(y)) => Arc::ptr_eq(x, y),
        (Value::Module(x), Value::Module(y)) => Arc::ptr_eq(x, y),
        // As torch.cuda.Stream: the same stream of the same device.
        (Value::Stream(x), Value::Stream(y)) => x.key == y.key,
        // Python's default `==` is identity; a dataclass's compares its fields.
        (Value::Object(x), Value::Object(y)) => {
            Arc::ptr_eq(x, y)
                || (super::dataclass::is_dataclass(x)
                    && depth < MAX_COMPARE_DEPTH
                    && super::dataclass::same_fields(x, y, &|p, q| equal_within(p, q, depth + 1)))
        }
        _ => match (scalar(a), scalar(b)) {
            (Some(x), Some(y)) => x.as_f64() == y.as_f64(),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same value, floats bit for bit.
    fn same_value(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => x == y,
            (Value::Float(x), Value::Float(y)) => x.get().to_bits() == y.get().to_bits(),
            (Value::Bool(x), Value::Bool(y)) => x.get() == y.get(),
            _ => false,
        }
    }

    fn agree(op: BinaryOp, a: Value, b: Value) {
        let (Some(x), Some(y)) = (scalar(&a), scalar(&b)) else {
            unreachable!("numbers")
        };
        if let Some(quick) = quick_scalar(BinOp::Elementwise(op), &a, &b) {
            let general = scalar_binary(BinOp::Elementwise(op), x, y, &|| false);
            assert!(
                matches!(&general, Ok(v) if same_value(v, &quick)),
                "{a:?} {} {b:?}: quick {quick:?}, general {general:?}",
                op.symbol()
            );
        }
    }

    const EDGES: [i64; 7] = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];

    #[test]
    fn quick_arithmetic_agrees_with_the_general_path_at_the_edges() {
        let floats = [
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            -0.0,
            0.0,
            1.5,
            -1e308,
            1e308,
        ];
        for op in BinaryOp::ALL {
            for (&i, &j) in EDGES.iter().flat_map(|i| EDGES.iter().map(move |j| (i, j))) {
                agree(op, Value::Int(i), Value::Int(j));
            }
            for (&x, &y) in floats
                .iter()
                .flat_map(|x| floats.iter().map(move |y| (x, y)))
            {
                agree(op, Value::float(x), Value::float(y));
            }
        }
    }

    proptest! {
        #[test]
        fn quick_arithmetic_agrees_with_the_general_path(
            i in any::<i64>(), j in any::<i64>(), x in any::<f64>(), y in any::<f64>(),
            k in 0..BinaryOp::ALL.len(),
        ) {
            let op = BinaryOp::ALL[k];
            agree(op, Value::Int(i), Value::Int(j));
            agree(op, Value::Int(i >> 40), Value::Int(j >> 40));
            agree(op, Value::float(x), Value::float(y));
        }
    }
}
