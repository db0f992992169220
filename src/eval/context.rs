//! `with` and `del`: a block run inside a context (a device, a stream,
//! autograd's mode, autocast, DDP's `no_sync`, or an object of the
//! program's with `__enter__` and `__exit__`), and the names, items and
//! attributes `del` takes away.

use std::sync::Arc;

use super::args::ArgVal;
use super::flow::Flow;
use super::value::{DefaultDevice, GradBefore, GradSetting};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Expr, ExprKind, IndexItem, Target};
use crate::lang::Span;
use crate::runtime::lock::lock;
use crate::runtime::Device;

impl Interp {
    /// A grad-mode context's block (or a decorated function's call) begins:
    /// its modes set; gives what to put back when it ends.
    pub(super) fn enter_grad(&mut self, setting: GradSetting) -> GradBefore {
        let enabled = std::mem::replace(&mut self.grad.enabled, setting.enabled);
        GradBefore {
            enabled: setting.restore.unwrap_or(enabled),
            inference: setting.inference.map(crate::runtime::inference::set),
        }
    }

    /// The block ends: the modes it found back.
    pub(super) fn leave_grad(&mut self, before: GradBefore) {
        self.grad.enabled = before.enabled;
        if let Some(on) = before.inference {
            crate::runtime::inference::set(on);
        }
    }

    /// Where a factory puts its tensor when no `device=` is given.
    pub(crate) fn default_device(&self) -> Device {
        match self.default_device {
            None => Device::Cpu,
            Some(DefaultDevice::At(d)) => d,
            Some(DefaultDevice::CurrentCuda) => Device::Cuda(self.rt.current_device),
        }
    }

    /// `with e:` / `with e as target:`, the context restored afterwards,
    /// also after an error.
    pub(super) fn exec_with(
        &mut self,
        e: &Expr,
        target: Option<&Target>,
        body: &Block,
    ) -> Result<Flow, Diagnostic> {
        let context = self.eval(e, 0)?;
        // `with torch.device(d):` in a Python program: the default device
        // of the block's factories (`torch.cuda.device(n)`, a class of
        // `torch/cuda`, makes a device current instead).
        if self.python_program() {
            if let Some(default) = DefaultDevice::of(&context) {
                if let Some(t) = target {
                    self.bind_target(t, Value::None, e.span)?;
                }
                let saved = std::mem::replace(&mut self.default_device, default);
                let r = self.exec_block(body);
                self.default_device = saved;
                return r;
            }
        }
        let context = self.resolve(context);
        if matches!(context, Value::Object(_) | Value::Module(_)) {
            return self.with_object(&context, e.span, target, body);
        }
        // What `__enter__` gives: `torch.autocast` itself, None for the
        // others (PyTorch's `no_grad`, `torch.cuda.device`, `stream`).
        // `with open(path) as f:` binds the file and closes it after the block.
        if let Value::File(f) = &context {
            if let Some(t) = target {
                self.bind_target(t, context.clone(), e.span)?;
            }
            let r = self.exec_block(body);
            crate::runtime::lock::lock(f).close();
            return r;
        }
        if let Some(t) = target {
            let entered = match &context {
                Value::Autocast(_) => context.clone(),
                _ => Value::None,
            };
            self.bind_target(t, entered, e.span)?;
        }
        match context {
            Value::Device(d) => match d.get() {
                Device::Cuda(d) => {
                    let saved = std::mem::replace(&mut self.rt.current_device, d);
                    let r = self.exec_block(body);
                    self.rt.current_device = saved;
                    r
                }
                other @ (Device::Cpu | Device::Meta) => Err(Error::value_help(
                    format!("`with` takes a CUDA device or a stream, not {other}"),
                    "tensors go to cpu by default; write `with device(n) { }` for a CUDA device",
                )
                .at(e.span)),
            },
            Value::Stream(st) => self.with_stream(&st, body),
            Value::NoSync(m) => self.with_no_sync(&m, body),
            Value::Autocast(r) => self.with_autocast(r, body),
            // `with torch.no_grad():`, `with torch.enable_grad():`, `with
            // torch.set_grad_enabled(mode):` (which set the mode when called:
            // the block ends in the mode before that call).
            Value::GradMode(on) => {
                let before = self.enter_grad(on.get());
                let r = self.exec_block(body);
                self.leave_grad(before);
                r
            }
            other => Err(Error::wrong_type(
                "the target of `with`",
                "a device, a stream, `torch.no_grad()`, `autocast(...)` or an object with `__enter__` and `__exit__`",
                other.type_name(),
            )
            .at(e.span)),
        }
    }

    /// A generator's `with e as target:` entered (its block then runs as
    /// the generator's other blocks do, suspended at each `yield` with the
    /// context still entered, as Python's): what leaving it takes.
    pub(super) fn enter_with(
        &mut self,
        e: &Expr,
        target: Option<&Target>,
    ) -> Result<super::value::WithExit, Diagnostic> {
        use super::value::WithExit;
        let context = self.eval(e, 0)?;
        if self.python_program() {
            if let Some(default) = DefaultDevice::of(&context) {
                let saved = std::mem::replace(&mut self.default_device, default);
                if let Some(t) = target {
                    self.bind_target(t, Value::None, e.span)?;
                }
                return Ok(WithExit::DefaultDevice(saved));
            }
        }
        let context = self.resolve(context);
        let (exit, entered) = match &context {
            Value::Object(_) | Value::Module(_) => {
                let entered = self.context_method(&context, "__enter__", Vec::new(), e.span)?;
                (WithExit::Object(context.clone(), e.span), entered)
            }
            Value::File(f) => (WithExit::File(Arc::clone(f)), context.clone()),
            Value::GradMode(on) => (WithExit::Grad(self.enter_grad(on.get())), Value::None),
            Value::Device(d) if d.get().is_cuda() => {
                let Device::Cuda(n) = d.get() else {
                    unreachable!("checked")
                };
                let saved = std::mem::replace(&mut self.rt.current_device, n);
                (WithExit::Device(saved), Value::None)
            }
            other => {
                return Err(Error::Module {
                    class: "NotImplementedError",
                    message: format!(
                        "a generator's `with` takes an object with `__enter__` and `__exit__`, a file, \
                         a CUDA device or `torch.no_grad()`; not yet {}",
                        other.type_name()
                    ),
                    help: Some("yield outside the `with` block".into()),
                }
                .at(e.span))
            }
        };
        if let Some(t) = target {
            self.bind_target(t, entered, e.span)?;
        }
        Ok(exit)
    }

    /// Leaves a generator's `with` (`raised`: the error leaving it): true
    /// when the object's `__exit__` swallowed that error.
    pub(super) fn leave_with(
        &mut self,
        exit: super::value::WithExit,
        raised: Option<&Diagnostic>,
    ) -> Result<bool, Diagnostic> {
        use super::value::WithExit;
        match exit {
            WithExit::Object(context, span) => {
                let arg = |value| ArgVal::positional(value, span);
                let args = match raised {
                    Some(d) if !matches!(d.error, Error::Interrupted) => {
                        let value = super::exceptions::exception_value(d);
                        let class = match &value {
                            Value::Exception(x) => Value::ExcClass(x.class),
                            _ => Value::None,
                        };
                        vec![arg(class), arg(value), arg(Value::None)]
                    }
                    _ => vec![arg(Value::None), arg(Value::None), arg(Value::None)],
                };
                let swallow = self.context_method(&context, "__exit__", args, span)?;
                Ok(raised.is_some() && self.truth(&swallow, span)?)
            }
            WithExit::File(f) => {
                lock(&f).close();
                Ok(false)
            }
            WithExit::Grad(before) => {
                self.leave_grad(before);
                Ok(false)
            }
            WithExit::Device(n) => {
                self.rt.current_device = n;
                Ok(false)
            }
            WithExit::DefaultDevice(d) => {
                self.default_device = d;
                Ok(false)
            }
        }
    }

    /// `with obj as x:` for an object of the program's: `x` is what
    /// `obj.__enter__()` returns; `obj.__exit__(type, value, traceback)`
    /// runs after the block, with the error's class and value when the
    /// block raised one (a true result swallows it, as Python's).
    fn with_object(
        &mut self,
        context: &Value,
        span: Span,
        target: Option<&Target>,
        body: &Block,
    ) -> Result<Flow, Diagnostic> {
        let entered = self.context_method(context, "__enter__", Vec::new(), span)?;
        if let Some(t) = target {
            self.bind_target(t, entered, span)?;
        }
        let r = self.exec_block(body);
        let arg = |value| ArgVal::positional(value, span);
        match r {
            Err(d) if !matches!(d.error, Error::Interrupted) => {
                let value = super::exceptions::exception_value(&d);
                let class = match &value {
                    Value::Exception(x) => Value::ExcClass(x.class),
                    _ => Value::None,
                };
                let args = vec![arg(class), arg(value), arg(Value::None)];
                let swallow = self.context_method(context, "__exit__", args, span)?;
                match self.truth(&swallow, span)? {
                    true => Ok(Flow::Next),
                    false => Err(d),
                }
            }
            r => {
                let args = vec![arg(Value::None), arg(Value::None), arg(Value::None)];
                self.context_method(context, "__exit__", args, span)?;
                r
            }
        }
    }

    /// `obj.__enter__()` or `obj.__exit__(...)`: Python's TypeError when
    /// the class has none.
    fn context_method(
        &mut self,
        context: &Value,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match self.call_object_method(context, name, args, span)? {
            Ok(v) => Ok(v),
            Err(_) => Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "'{}' object does not support the context manager protocol (missing {name} method)",
                    python_name(context)
                ),
                help: Some(
                    "give its class `def __enter__(self):` (what `as` binds) and `def __exit__(self, exc_type, exc, tb):`"
                        .into(),
                ),
            }
            .at(span)),
        }
    }

    /// What `as` (or a `for`) names: one name, or a group taken apart.
    pub(super) fn bind_target(
        &mut self,
        target: &Target,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        match target {
            Target::Name(n) => {
                self.assign(n, v);
                Ok(())
            }
            _ => self.set_target(target, v, span),
        }
    }

    /// `del a, xs[0], obj.name`: each target in turn, as Python's.
    pub(super) fn exec_del(&mut self, targets: &[Expr]) -> Result<(), Diagnostic> {
        for t in targets {
            match &t.kind {
                ExprKind::Var(n) => {
                    if self.get_var(n).is_none() {
                        return Err(Error::UnknownName {
                            name: n.name.clone(),
                            suggestion: super::suggest::closest(
                                &n.name,
                                self.vars.keys().map(String::as_str),
                            ),
                        }
                        .at(n.span));
                    }
                    self.remove_var(n);
                }
                ExprKind::Attr(obj, name) => {
                    let o = self.eval(obj, 0)?;
                    self.del_attr(&o, &name.name, name.span)?;
                }
                ExprKind::Index(obj, items) => self.del_item(obj, items, t.span)?,
                _ => return Err(Error::value("cannot delete this").at(t.span)),
            }
        }
        Ok(())
    }

    /// `del obj.name`: an instance's own attribute; a module's parameter,
    /// buffer or child (PyTorch's `Module.__delattr__`).
    pub(super) fn del_attr(&mut self, o: &Value, name: &str, span: Span) -> Result<(), Diagnostic> {
        if let Value::Module(m) = o {
            if lock(m).remove(name) {
                return Ok(());
            }
        }
        if let Value::Object(x) = o {
            if super::dataclass::has_option(x, super::dataclass::FROZEN) {
                return Err(super::dataclass::frozen_error("delete", name).at(span));
            }
        }
        let object = match o {
            Value::Object(x) => Some(Arc::clone(x)),
            Value::Module(m) => super::value::object_of(m),
            _ => None,
        };
        match object {
            Some(x) if x.has(name) => {
                x.remove(name);
                Ok(())
            }
            Some(x) => Err(super::class::no_attribute(&x.class.name, name, span)),
            None => Err(Error::ReadOnly {
                message: format!("cannot delete `.{name}` of {}", o.type_name()),
            }
            .at(span)),
        }
    }

    /// `del md["fc"]` of a ModuleDict; `del seq[i]` of a Sequential or a
    /// ModuleList, whose later children are numbered again from `i`, as
    /// PyTorch's `__delitem__` does.
    fn del_module_item(
        &mut self,
        m: &crate::nn::ModuleRef,
        items: &[IndexItem],
        span: Span,
    ) -> Result<(), Diagnostic> {
        use crate::nn::layers::Layer;
        let layer = lock(m).layer.clone();
        match layer {
            Layer::ModuleDict => {
                let key = self.group_key(items, span, 0)?;
                let mut module = lock(m);
                match module.modules.iter().position(|(n, _)| *n == key) {
                    Some(i) => {
                        module.modules.remove(i);
                        Ok(())
                    }
                    None => Err(Error::Module {
                        class: "KeyError",
                        message: format!("'{key}'"),
                        help: None,
                    }
                    .at(span)),
                }
            }
            Layer::Sequential | Layer::ModuleList => {
                let [IndexItem::At(k)] = items else {
                    return Err(Error::value(
                        "a module's child is deleted at one index, e.g. `del seq[0]`",
                    )
                    .at(span));
                };
                let i = self.eval_int(k, 0, "an index")?;
                let mut module = lock(m);
                let n = module.modules.len();
                let j = super::expr::list_index(i, n).map_err(|e| e.at(k.span))?;
                module.modules.remove(j);
                for (k, (name, _)) in module.modules.iter_mut().enumerate() {
                    *name = k.to_string();
                }
                Ok(())
            }
            _ => {
                let name = lock(m).type_name.clone();
                Err(Error::Module {
                    class: "TypeError",
                    message: format!("'{name}' object doesn't support item deletion"),
                    help: None,
                }
                .at(span))
            }
        }
    }

    /// `del xs[i]`, `del xs[a:b]` of a list; `del d[k]` of a dict a
    /// variable holds.
    fn del_item(&mut self, obj: &Expr, items: &[IndexItem], span: Span) -> Result<(), Diagnostic> {
        // `del m._parameters["bias"]`: the member unregistered, as `del m.bias`.
        let target = match self.indexed_target(obj, items)? {
            super::stmt::Indexed::ModuleTable(holder, _, k) => {
                let Value::Str(key) = self.eval(k, 0)? else {
                    return Err(
                        Error::type_error("a module's members are named by strings").at(k.span)
                    );
                };
                return self.del_attr(&holder, &key, span);
            }
            super::stmt::Indexed::Value(v) => v,
        };
        match (&target, items) {
            (Value::MutList(list), [IndexItem::At(k)]) => {
                let i = self.eval_int(k, 0, "a list index")?;
                let mut list = lock(list);
                let j = super::expr::list_index(i, list.len()).map_err(|e| e.at(k.span))?;
                Arc::make_mut(&mut list).remove(j);
                Ok(())
            }
            (
                Value::MutList(list),
                [IndexItem::Slice {
                    start, stop, step, ..
                }],
            ) => {
                let mut bound = |e: &Option<Expr>| -> Result<Option<i64>, Diagnostic> {
                    e.as_ref()
                        .map(|e| self.eval_int(e, 0, "a slice bound"))
                        .transpose()
                };
                let (start, stop, step) = (bound(start)?, bound(stop)?, bound(step)?);
                let mut list = lock(list);
                let picked = super::expr::python_slice(list.len(), start, stop, step.unwrap_or(1))
                    .map_err(|e| e.at(span))?;
                let items = Arc::make_mut(&mut list);
                let mut k = 0;
                items.retain(|_| {
                    k += 1;
                    !picked.contains(&(k - 1))
                });
                Ok(())
            }
            (Value::Dict(d), _) => {
                let key = self.dict_key(items, span, 0)?;
                match (d.remove(&key), d.missing()) {
                    // A Counter's `del c[k]` of a key it lacks is fine.
                    (Some(_), _) | (None, Some(super::value::Missing::Count)) => Ok(()),
                    (None, _) => Err(super::methods::dict::key_error(&key, &d.items()).at(span)),
                }
            }
            (Value::Module(m), _) => self.del_module_item(m, items, span),
            (other, _) => Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "'{}' object does not support item deletion",
                    python_name(other)
                ),
                help: None,
            }
            .at(span)),
        }
    }
}

/// Python's name for a value's type: an instance's class, else `int`, `list`...
fn python_name(v: &Value) -> String {
    match super::value::class_of(v) {
        Some(c) => c.name.clone(),
        None => super::format::python_type(v).to_string(),
    }
}
