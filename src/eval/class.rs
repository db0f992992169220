//! Classes, as far as a PyTorch model needs Python's: `class Net(Module) {
//! fn __init__(self) { super().__init__(); ... } fn forward(self, x) { } }`.
//! A class holds its methods and class attributes; an instance holds its
//! own attributes and finds the rest on its class, then on the classes
//! above it (single inheritance). A method read from an instance is bound
//! to it (`self`). A class derived from `Module` makes modules
//! (`nn::Module`, its object slot holding the instance's class and plain
//! attributes), so what its `__init__` assigns registers as PyTorch's
//! `Module.__setattr__` does (`module.rs` of this folder's `methods`).

use std::sync::{Arc, Mutex};

use super::args::ArgVal;
use super::value::{class_of, object_of, Base, Class, Decorated, Function, GradSetting, Object};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{ClassDef, Expr, ExprKind, StmtKind};
use crate::lang::Span;
use crate::nn::layers::Layer;
use crate::nn::Module;
use crate::runtime::lock::lock;

/// Whether a class may derive from both: `Module` is below every layer
/// (`class Linear(Bottle, nn.Linear)` where `Bottle(nn.Module)`).
fn compatible(a: &Base, b: &Base) -> bool {
    match (a, b) {
        (Base::Module, Base::Module | Base::Layer(_)) | (Base::Layer(_), Base::Module) => true,
        (Base::Layer(x), Base::Layer(y)) => x == y,
        (Base::AutogradFunction, Base::AutogradFunction)
        | (Base::Dataset, Base::Dataset)
        | (Base::Sampler, Base::Sampler)
        | (Base::Exception(_), Base::Exception(_)) => true,
        _ => false,
    }
}

fn builtin_name(b: &Base) -> &str {
    match b {
        Base::Module => "Module",
        Base::Layer(name) => name,
        Base::AutogradFunction => "Function",
        Base::Dataset => "Dataset",
        Base::Sampler => "Sampler",
        Base::Exception(c) => c.name,
        Base::Class(c) => &c.name,
    }
}

/// `'Net' object has no attribute 'fc3'`, as Python says it.
pub fn no_attribute(type_name: &str, name: &str, span: Span) -> Diagnostic {
    Error::Attribute {
        message: format!("'{type_name}' object has no attribute '{name}'"),
        help: None,
    }
    .at(span)
}

impl Interp {
    /// `class Name(Base) { ... }`: the class, bound to its name.
    pub(crate) fn define_class(&mut self, def: &ClassDef) -> Result<(), Diagnostic> {
        let mut bases = Vec::with_capacity(def.bases.len());
        // `class Mode(str, Enum)`: the type whose values the members are.
        let mut mixin: Option<&Expr> = None;
        for e in &def.bases {
            let base = match self.eval(e, 0)? {
                Value::Builtin(doc) if matches!(doc.name, "str" | "int" | "float") => {
                    mixin = Some(e);
                    continue;
                }
                // `class Vocab(object):`, Python 2's way of writing no base.
                Value::Class(c) if Arc::ptr_eq(&c, &super::value::object_class()) => continue,
                Value::Class(c) => Base::Class(c),
                Value::Builtin(doc) if doc.name == "Module" => Base::Module,
                Value::Builtin(doc) if doc.name == "Function" => Base::AutogradFunction,
                Value::Builtin(doc) if doc.name == "Dataset" => Base::Dataset,
                Value::Builtin(doc) if doc.name == "Sampler" => Base::Sampler,
                Value::ExcClass(c) => Base::Exception(c),
                Value::Builtin(doc) if super::builtins::nn::is_layer(doc.name) => {
                    Base::Layer(doc.name)
                }
                other => {
                    return Err(Error::wrong_type(
                        "a class's base",
                        "a class (`Module`, a layer, `Dataset`, `Sampler`, or one defined with `class`)",
                        other.type_name(),
                    )
                    .at(e.span))
                }
            };
            bases.push(base);
        }
        if let Some(e) = mixin {
            self.enum_value_mixin(&mut bases, e)?;
        }
        let above: Vec<Arc<Class>> = bases
            .iter()
            .filter_map(|b| match b {
                Base::Class(c) => Some(Arc::clone(c)),
                _ => None,
            })
            .collect();
        let mro = super::mro::linearize(&above).map_err(|()| {
            let names: Vec<&str> = above.iter().map(|c| c.name.as_str()).collect();
            Error::Module {
                class: "TypeError",
                message: format!(
                    "Cannot create a consistent method resolution\norder (MRO) for bases {}",
                    names.join(", ")
                ),
                help: Some(
                    "a class comes before its own bases: list the derived class first".into(),
                ),
            }
            .at(def.name.span)
        })?;
        let builtins: Vec<&Base> = std::iter::once(&bases)
            .flatten()
            .chain(mro.iter().flat_map(|c| c.bases.iter()))
            .filter(|b| !matches!(b, Base::Class(_)))
            .collect();
        if let Some(pair) = builtins.windows(2).find(|w| !compatible(w[0], w[1])) {
            return Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "cudash's classes derive from one of PyTorch's classes: {} and {} both",
                    builtin_name(pair[0]),
                    builtin_name(pair[1])
                ),
                help: None,
            }
            .at(def.name.span));
        }
        // A class derived from a named tuple (`class PackedSequence(
        // namedtuple(...))`) is one too: its fields, made and shown as the
        // base's are.
        let tuple_base = mro.iter().find(|c| c.tuple).cloned();
        // `class Row(typing.NamedTuple):`: a named tuple of the annotated
        // fields, their defaults the class's values.
        let typing_tuple = tuple_base.is_none()
            && mro
                .iter()
                .any(|c| c.name == "NamedTuple" && c.find("_typing_named_tuple").is_some());
        let fields = match &tuple_base {
            Some(base) => base.fields.clone(),
            None => def
                .body
                .iter()
                .filter_map(|s| match &s.kind {
                    StmtKind::Annotated(name, _) => Some(name.name.clone()),
                    _ => None,
                })
                .collect(),
        };
        let mut attrs = Vec::new();
        if typing_tuple {
            let names = fields
                .iter()
                .map(|f| Value::Str(Arc::new(f.clone())))
                .collect();
            attrs.push(("_fields".to_string(), Value::List(Arc::new(names))));
        }
        let class = Arc::new(Class {
            name: def.name.name.clone(),
            bases,
            mro,
            attrs: Mutex::new(attrs),
            fields,
            dataclass: std::sync::atomic::AtomicBool::new(tuple_base.is_some() || typing_tuple),
            dataclass_options: Default::default(),
            tuple: tuple_base.is_some() || typing_tuple,
        });
        for s in &def.body {
            match &s.kind {
                StmtKind::Fn(f) => {
                    let function = self.function_of(f)?;
                    let _ = function.owner.set(Arc::downgrade(&class));
                    let v = Value::Function(Arc::new(function));
                    let v = match property_part(&class, &f.decorators, v.clone()) {
                        Some(part) => part.map_err(|e| e.at(f.name.span))?,
                        None => self.decorate(v, &f.decorators)?,
                    };
                    let mut attrs = lock(&class.attrs);
                    attrs.retain(|(n, _)| *n != f.name.name);
                    attrs.push((f.name.name.clone(), v));
                }
                StmtKind::Assign(name, e) | StmtKind::Annotated(name, Some(e)) => {
                    // A name the body defined above (`to_list = tolist`,
                    // `__str__ = __repr__`): Python runs a class body in
                    // the class's own namespace.
                    let above = match &e.kind {
                        ExprKind::Var(n) => lock(&class.attrs)
                            .iter()
                            .find(|(k, _)| *k == n.name)
                            .map(|(_, v)| v.clone()),
                        _ => None,
                    };
                    let v = match above {
                        Some(v) => v,
                        None => self.eval(e, 0)?,
                    };
                    let mut attrs = lock(&class.attrs);
                    attrs.retain(|(n, _)| *n != name.name);
                    attrs.push((name.name.clone(), v));
                }
                // The docstring.
                _ => {}
            }
        }
        // Python's `__module__`: the module the class statement ran in (a
        // class of the program's own file is `__main__`'s, unnamed here).
        let named = lock(&class.attrs).iter().any(|(n, _)| n == "__module__");
        if let (false, Some(Value::Str(m))) = (named, self.vars.get("__name__")) {
            let m = Value::Str(Arc::clone(m));
            lock(&class.attrs).push(("__module__".into(), m));
        }
        self.make_enum_members(&class, def.name.span)?;
        let class = self.decorate(Value::Class(class), &def.decorators)?;
        self.set_var(&def.name, class);
        Ok(())
    }

    /// `Net(args)`: a new instance, made by `__init__`.
    pub(crate) fn instantiate(
        &mut self,
        class: &Arc<Class>,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // `Color(1)`: an Enum's member, found.
        if let Some(found) = self.enum_by_value(class, &args, span) {
            return found;
        }
        let left = super::abstract_methods::abstract_left(class);
        if !left.is_empty() {
            return Err(super::abstract_methods::cannot_instantiate(
                class, &left, span,
            ));
        }
        let object = Arc::new(Object::new(Arc::clone(class)));
        let this = match class.is_module() {
            true => {
                let mut m = Module::new(&class.name, Layer::Custom);
                m.initialised = false;
                m.object = Some(object);
                Value::Module(m.into_ref())
            }
            false => Value::Object(object),
        };
        // An exception's `args` are what it was made with, whatever its
        // `__init__` does (Python's `BaseException.__new__`).
        if let (Value::Object(o), Some(_)) = (&this, class.exception()) {
            let own_init = class.find("__init__").is_some();
            o.set("args", exception_args(&args, !own_init)?);
        }
        // A dataclass's own `__init__` is made from its fields (unless its
        // body writes one).
        if let Value::Object(o) = &this {
            let written = lock(&class.attrs).iter().any(|(n, _)| n == "__init__");
            if super::dataclass::is_dataclass(o) && !written {
                self.init_dataclass(&this, o, args, span)?;
                return Ok(this);
            }
        }
        match class.find("__init__") {
            Some(Value::Function(init)) => {
                let r = self.call_bound(&this, init, args, span)?;
                if !matches!(r, Value::None) {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!("__init__() should return None, not {}", r.type_name()),
                        help: None,
                    }
                    .at(span));
                }
            }
            Some(other) => {
                return Err(Error::wrong_type("`__init__`", "a method", other.type_name()).at(span))
            }
            // `MyLinear(4, 2)` of `class MyLinear(nn.Linear)` with no
            // `__init__` of its own: the layer's.
            None if class.layer().is_some() => {
                if let (Value::Module(m), Some(layer)) = (&this, class.layer()) {
                    self.init_layer(m, layer, args, span)?;
                }
            }
            None if args.is_empty() || class.exception().is_some() => {
                if let Value::Module(m) = &this {
                    lock(m).initialised = true;
                }
            }
            None => {
                return Err(Error::Module {
                    class: "TypeError",
                    message: format!("{}() takes no arguments", class.name),
                    help: Some("give the class an `fn __init__(self, ...)` to take them".into()),
                }
                .at(span))
            }
        }
        Ok(this)
    }

    /// A built-in layer's `__init__(args)` on `m`, an instance of a class
    /// derived from it: the layer made as `nn.Linear(args)` makes it, its
    /// settings, parameters, buffers and children `m`'s.
    fn init_layer(
        &mut self,
        m: &crate::nn::ModuleRef,
        layer: &'static str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let doc = super::docs::function(layer)
            .ok_or_else(|| Error::value(format!("internal error: no builtin {layer}")).at(span))?;
        let Value::Module(made) = self.call_builtin(doc, args, span)? else {
            return Err(Error::value(format!("internal error: {layer}() made no module")).at(span));
        };
        let made = lock(&made);
        let mut m = lock(m);
        m.layer = made.layer.clone();
        m.training = made.training;
        m.parameters.extend(made.parameters.iter().cloned());
        m.buffers.extend(made.buffers.iter().cloned());
        m.modules.extend(made.modules.iter().cloned());
        m.initialised = true;
        Ok(())
    }

    /// `f(self, args)`: a method called on `this`.
    pub(crate) fn call_bound(
        &mut self,
        this: &Value,
        f: Arc<Function>,
        mut args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        args.insert(0, ArgVal::positional(this.clone(), span));
        self.call_function(f, args, span)
    }

    /// `super()` in a method: the instance (its first parameter), seen
    /// from the class above the method's.
    pub(crate) fn super_of_frame(&self, span: Span) -> Result<Value, Diagnostic> {
        let no = || {
            Error::Module {
                class: "RuntimeError",
                message: "super(): no arguments".into(),
                help: Some("`super()` works inside a method of a class".into()),
            }
            .at(span)
        };
        let frame = self.frames.last().ok_or_else(no)?;
        let owner = frame
            .function
            .owner
            .get()
            .and_then(|w| w.upgrade())
            .ok_or_else(no)?;
        let this = frame.slots.first().cloned().flatten().ok_or_else(no)?;
        Ok(Value::Super(Arc::new((this, owner))))
    }

    /// `obj.name` of an instance, a module, a class or `super()`.
    pub(crate) fn object_attr(
        &mut self,
        v: &Value,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // `self.__class__`: the instance's class, as `type(self)`.
        if name == "__class__" {
            if let Some(class) = super::value::class_of(v) {
                return Ok(Value::Class(class));
            }
        }
        match v {
            Value::Object(o) => {
                if let Some(x) = o.get(name) {
                    return Ok(x);
                }
                // `self.__dict__`: its own attributes (a copy), as `vars(self)`.
                if name == "__dict__" {
                    return Ok(Value::Dict(o.attrs_dict()));
                }
                match o.class.find(name) {
                    Some(x) => self.class_attribute(v, &o.class, x, span),
                    // Python's last resort: the class's `__getattr__(name)`.
                    None => match o.class.find("__getattr__") {
                        Some(Value::Function(f)) => {
                            let arg = ArgVal::positional(Value::Str(Arc::new(name.into())), span);
                            self.call_bound(v, f, vec![arg], span)
                        }
                        _ => Err(no_attribute(&o.class.name, name, span)),
                    },
                }
            }
            Value::Module(m) => self.module_attr(v, m, name, span),
            // `MyFunction.apply`
            Value::Class(c) if name == "apply" && c.is_autograd_function() => {
                Ok(Value::Decorated(Arc::new(Decorated::Apply(Arc::clone(c)))))
            }
            Value::Class(c) => match c.find(name) {
                Some(Value::Decorated(d)) => Ok(match &*d {
                    Decorated::Static(f) => f.clone(),
                    Decorated::ClassMethod(Value::Function(f)) => bound(v, Arc::clone(f)),
                    _ => Value::Decorated(Arc::clone(&d)),
                }),
                Some(x) => Ok(x),
                None if name == "__name__" => Ok(Value::Str(Arc::new(c.short_name().to_string()))),
                None if name == "__bases__" => Ok(Value::List(Arc::new(bases_of(c)))),
                None if name == "__base__" => Ok(bases_of(c).swap_remove(0)),
                None if name == "__mro__" => {
                    // The class, the program's classes above it, then the
                    // built-in bases of those, then `object`.
                    let mut mro = vec![Value::Class(Arc::clone(c))];
                    mro.extend(c.mro.iter().map(|k| Value::Class(Arc::clone(k))));
                    for k in std::iter::once(c).chain(c.mro.iter()) {
                        for b in bases_of(k) {
                            let known = mro.iter().any(|m| same_value(m, &b));
                            if !known
                                && !matches!(&b, Value::Class(o) if Arc::ptr_eq(o, &super::value::object_class()))
                            {
                                mro.push(b);
                            }
                        }
                    }
                    mro.push(Value::Class(super::value::object_class()));
                    Ok(Value::List(Arc::new(mro)))
                }
                None => Err(Error::Attribute {
                    message: format!("type object '{}' has no attribute '{name}'", c.name),
                    help: None,
                }
                .at(span)),
            },
            Value::Super(s) => {
                let (this, owner) = &**s;
                let found = super_find(this, owner, name);
                let class = super_class(this);
                match (found, class) {
                    (Some(x), Some(class)) => self.class_attribute(this, &class, x, span),
                    (Some(x), None) => Ok(x),
                    (None, _) => Err(Error::Attribute {
                        message: format!("'super' object has no attribute '{name}'"),
                        help: None,
                    }
                    .at(span)),
                }
            }
            _ => Err(Error::value("internal error: not an object").at(span)),
        }
    }

    /// A class's attribute read from `this`, an instance of `class`: a
    /// method bound to it, a staticmethod's function as it is, a
    /// classmethod bound to the class, a property's value (its getter
    /// called with the instance).
    pub(crate) fn class_attribute(
        &mut self,
        this: &Value,
        class: &Arc<Class>,
        x: Value,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match x {
            Value::Function(f) => Ok(bound(this, f)),
            Value::Decorated(d) => match &*d {
                Decorated::Static(f) => Ok(f.clone()),
                Decorated::ClassMethod(Value::Function(f)) => {
                    Ok(bound(&Value::Class(Arc::clone(class)), Arc::clone(f)))
                }
                Decorated::ClassMethod(f) => Ok(f.clone()),
                Decorated::Apply(_) => Ok(Value::Decorated(Arc::clone(&d))),
                Decorated::Property(getter, _) => {
                    let arg = ArgVal::positional(this.clone(), span);
                    self.call_value(getter.clone(), vec![arg], span)
                }
                Decorated::CachedProperty(getter) => {
                    let arg = ArgVal::positional(this.clone(), span);
                    let v = self.call_value(getter.clone(), vec![arg], span)?;
                    if let (Value::Object(o), Value::Function(f)) = (this, getter) {
                        o.set(f.name(), v.clone());
                    }
                    Ok(v)
                }
            },
            x => Ok(x),
        }
    }

    /// `self.name = v` on an instance or a class (a module's: `module.rs`).
    pub(crate) fn set_object_attr(
        &mut self,
        target: &Value,
        name: &str,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        // A property of its class: its setter called, as Python's.
        if let Some(Value::Decorated(d)) = class_of(target).and_then(|c| c.find(name)) {
            if let Decorated::Property(_, setter) = &*d {
                let Some(setter) = setter else {
                    return Err(Error::Module {
                        class: "AttributeError",
                        message: format!(
                            "property '{name}' of '{}' object has no setter",
                            class_of(target).map_or(String::new(), |c| c.name.clone())
                        ),
                        help: Some(format!(
                            "give it one: `@{name}.setter` over a `def {name}(self, value)` below the property"
                        )),
                    }
                    .at(span));
                };
                let args = vec![
                    ArgVal::positional(target.clone(), span),
                    ArgVal::positional(v, span),
                ];
                self.call_value(setter.clone(), args, span)?;
                return Ok(());
            }
        }
        match target {
            Value::Object(o) if super::dataclass::has_option(o, super::dataclass::FROZEN) => {
                Err(super::dataclass::frozen_error("assign to", name).at(span))
            }
            Value::Object(o) => {
                o.set(name, v);
                Ok(())
            }
            Value::Class(c) => {
                let mut attrs = lock(&c.attrs);
                match attrs.iter_mut().find(|(n, _)| n == name) {
                    Some((_, slot)) => *slot = v,
                    None => {
                        // An instance's own attribute may now hide it: the
                        // instances' `shadows` flags no longer say all.
                        super::value::CLASS_GREW.store(true, std::sync::atomic::Ordering::Relaxed);
                        attrs.push((name.to_string(), v))
                    }
                }
                Ok(())
            }
            Value::Module(m) => self.set_module_attr(m, name, v, span),
            Value::Function(f) => {
                let mut attrs = lock(&f.attrs);
                attrs.retain(|(n, _)| n != name);
                attrs.push((name.to_string(), v));
                Ok(())
            }
            other => Err(Error::ReadOnly {
                message: format!("cannot set `.{name}` of {}", other.type_name()),
            }
            .at(span)),
        }
    }

    /// `obj.name(args)` where `obj` is an instance, a module, a class or
    /// `super()`: a method of its class, a callable attribute, or (on a
    /// module) one of `Module`'s own methods. The arguments back when none
    /// of the program's is found (`Module`'s own methods are the table's).
    pub(crate) fn call_object_method(
        &mut self,
        recv: &Value,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Result<Value, Vec<ArgVal>>, Diagnostic> {
        // `ctx.save_for_backward(x, y)` in a `torch.autograd.Function`.
        if let (Value::Object(o), "save_for_backward") = (recv, name) {
            if Arc::ptr_eq(&o.class, &super::value::function_ctx_class()) {
                return self.save_for_backward(o, args).map(Ok);
            }
        }
        // `ctx.mark_non_differentiable(out)`, `ctx.set_materialize_grads(False)`.
        if let (Value::Object(o), "mark_non_differentiable" | "set_materialize_grads") =
            (recv, name)
        {
            if Arc::ptr_eq(&o.class, &super::value::function_ctx_class()) {
                return super::custom_function::ctx_setting(o, name, args).map(Ok);
            }
        }
        // A method of the class (or the classes above it; from `super()`,
        // those after the method's class in the instance's MRO).
        let found = match recv {
            Value::Super(s) => super_find(&s.0, &s.1, name),
            _ => class_of(recv).and_then(|c| c.find(name)),
        };
        let this = match recv {
            Value::Super(s) => s.0.clone(),
            other => other.clone(),
        };
        // An instance's own attribute first (`self.act = relu`).
        let own = match recv {
            Value::Object(o) => o.get(name),
            Value::Module(m) => object_of(m).and_then(|o| o.get(name)),
            _ => None,
        };
        if let Some(f) = own {
            return self.call_value(f, args, span).map(Ok);
        }
        if let Some(f) = found {
            let r = match (f, super_class(&this)) {
                (Value::Function(f), _) => self.call_bound(&this, f, args, span),
                (f @ Value::Decorated(_), Some(own)) => {
                    let f = self.class_attribute(&this, &own, f, span)?;
                    self.call_value(f, args, span)
                }
                (other, _) => self.call_value(other, args, span),
            };
            return r.map(Ok);
        }
        // A method its class's `__getattr__` gives (`Mode.TRAIN.upper()`
        // of a `class Mode(str, Enum)`).
        if let Value::Object(o) = recv {
            if matches!(o.class.find("__getattr__"), Some(Value::Function(_))) {
                let f = self.object_attr(recv, name, span)?;
                return self.call_value(f, args, span).map(Ok);
            }
        }
        // A registered child (`self.fc1(x)`).
        if let Value::Module(m) = recv {
            let member = lock(m).member(name);
            match member {
                Some(crate::nn::module::Member::Module(Some(child))) => {
                    return self.call_module(&child, args, span).map(Ok)
                }
                Some(_) => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!("'{name}' is not callable: it is a tensor or none"),
                        help: None,
                    }
                    .at(span))
                }
                None => {}
            }
        }
        if let Value::Class(c) = recv {
            if name == "apply" && c.is_autograd_function() {
                return self.apply_function(c, args, span).map(Ok);
            }
            return match c.find(name) {
                Some(Value::Decorated(_)) => {
                    let f = self.object_attr(recv, name, span)?;
                    self.call_value(f, args, span).map(Ok)
                }
                Some(f) => self.call_value(f, args, span).map(Ok),
                None => Err(Error::Attribute {
                    message: format!("type object '{}' has no attribute '{name}'", c.name),
                    help: None,
                }
                .at(span)),
            };
        }
        // `super().__init__()` at the top: `object.__init__`, or
        // `Module.__init__`, which readies the module to register, or a
        // layer's (`super().__init__(4, 2)` of a class derived from
        // `nn.Linear`), which makes its parameters.
        if let (Value::Super(s), "__init__") = (recv, name) {
            // `super().__init__(message)` of an exception: its `args`.
            if let Value::Object(o) = &s.0 {
                if o.class.exception().is_some() {
                    o.set("args", exception_args(&args, true)?);
                }
            }
            if let Value::Module(m) = &s.0 {
                match class_of(&s.0).and_then(|c| c.layer()) {
                    Some(layer) => self.init_layer(m, layer, args, span)?,
                    None => {
                        module_init_args(&lock(m).type_name, &args)?;
                        lock(m).initialised = true
                    }
                }
            }
            return Ok(Ok(Value::None));
        }
        // `super().forward(x)` of a class derived from a layer: the layer's.
        if let (Value::Super(s), "forward") = (recv, name) {
            if let Value::Module(m) = &s.0 {
                return self.layer_forward(m, args, span).map(Ok);
            }
        }
        Ok(Err(args))
    }

    /// Calls any callable value: a function, a builtin, a bound method, a
    /// class (a new instance) or a module (its forward).
    pub(crate) fn call_value(
        &mut self,
        f: Value,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match f {
            Value::Builtin(doc) => self.call_builtin(doc, args, span),
            Value::Native(f) => self.call_native(f, args, span),
            Value::ExcClass(c) => self.make_exception(c, args),
            Value::Function(f) => self.call_function(f, args, span),
            Value::Method(m) => {
                let (this, f) = &*m;
                self.call_bound(this, Arc::clone(f), args, span)
            }
            Value::BuiltinMethod(m) => {
                let (recv, name) = &*m;
                let name = crate::lang::ast::Name::new(name.to_string(), span);
                self.call_method(recv.clone(), &name, args, span)
            }
            Value::Class(c) => self.instantiate(&c, args, span),
            Value::Module(m) => self.call_module(&m, args, span),
            // `@torch.no_grad()` over a `def`.
            // (Each call in the mode, and after it the mode before it.)
            Value::GradMode(on) => grad_mode_decorator(
                GradSetting {
                    restore: None,
                    ..on.get()
                },
                args,
                span,
            ),
            Value::Decorated(d) => match &*d {
                Decorated::Static(f) | Decorated::ClassMethod(f) => {
                    self.call_value(f.clone(), args, span)
                }
                Decorated::Apply(c) => self.apply_function(c, args, span),
                Decorated::Property(..) | Decorated::CachedProperty(_) => Err(Error::Module {
                    class: "TypeError",
                    message: "'property' object is not callable".into(),
                    help: None,
                }
                .at(span)),
            },
            Value::Object(o) => match o.class.find("__call__") {
                Some(Value::Function(f)) => self.call_bound(&Value::Object(o), f, args, span),
                _ => Err(Error::Module {
                    class: "TypeError",
                    message: format!("'{}' object is not callable", o.class.name),
                    help: None,
                }
                .at(span)),
            },
            other => {
                Err(Error::wrong_type("the called value", "a function", other.type_name()).at(span))
            }
        }
    }
}

/// `torch.no_grad()(f)`, `@torch.no_grad()` / `@torch.no_grad` over a
/// `def`: the function, its calls run with autograd's recording `on`.
/// `@name.setter` (or `.getter`) alone over a method in a class body: the
/// property `name` defined above it in the class, with `f` as that part.
/// None for other decorators (run as any decorator is).
fn property_part(class: &Class, decorators: &[Expr], f: Value) -> Option<Result<Value, Error>> {
    let [d] = decorators else {
        return None;
    };
    let ExprKind::Attr(base, part) = &d.kind else {
        return None;
    };
    let ExprKind::Var(name) = &base.kind else {
        return None;
    };
    if !matches!(part.name.as_str(), "setter" | "getter" | "deleter") {
        return None;
    }
    let found = lock(&class.attrs)
        .iter()
        .find(|(n, _)| *n == name.name)
        .map(|(_, v)| v.clone());
    let Some(Value::Decorated(p)) = found else {
        return None;
    };
    let Decorated::Property(getter, setter) = &*p else {
        return None;
    };
    Some(
        match part.name.as_str() {
            "setter" => Ok(Decorated::Property(getter.clone(), Some(f))),
            "getter" => Ok(Decorated::Property(f, setter.clone())),
            _ => Err(Error::value(format!(
                "cudash's properties have no deleter (`@{}.deleter`): `del obj.{}` is not there",
                name.name, name.name
            ))),
        }
        .map(|d| Value::Decorated(Arc::new(d))),
    )
}

pub(crate) fn grad_mode_decorator(
    setting: GradSetting,
    args: Vec<ArgVal>,
    span: Span,
) -> Result<Value, Diagnostic> {
    let name = match (setting.inference, setting.enabled) {
        (Some(_), _) => "inference_mode",
        (None, true) => "enable_grad",
        (None, false) => "no_grad",
    };
    match args.as_slice() {
        [a] if a.keyword.is_none() => match &a.value {
            Value::Function(f) => Ok(Value::Function(Arc::new(f.with_grad_mode(setting)))),
            other => Err(Error::wrong_type(
                format!("what `torch.{name}()` decorates"),
                "a function (`@torch.no_grad()` above a `def`)",
                other.type_name(),
            )
            .at(a.span)),
        },
        _ => Err(Error::value(format!(
            "`torch.{name}()` takes one function when called (`@torch.{name}()` above a `def`)"
        ))
        .at(span)),
    }
}

/// `name` as `super()` finds it from a method of `owner` on `this`: in
/// the classes after `owner` in the MRO of `this`'s class.
fn super_find(this: &Value, owner: &Arc<Class>, name: &str) -> Option<Value> {
    let order = match (class_of(this), this) {
        (Some(class), _) => class.after(owner),
        // `super()` in a classmethod: `this` is the class it was called on.
        (None, Value::Class(class)) => class.after(owner),
        _ => owner.mro.clone(),
    };
    order.iter().find_map(|c| c.own(name))
}

/// The class whose attributes `this` reads: an instance's class, or the
/// class itself where `this` is one (`cls` in a classmethod, whose
/// `super().apply(...)` binds the classmethod above to `cls`).
fn super_class(this: &Value) -> Option<Arc<Class>> {
    match this {
        Value::Class(c) => Some(Arc::clone(c)),
        other => class_of(other),
    }
}

/// An exception's `args`: what it was made with, positionally (Python's
/// `BaseException.__init__` takes no keywords: `strict`; its `__new__`,
/// under a class's own `__init__`, leaves them out).
fn exception_args(args: &[ArgVal], strict: bool) -> Result<Value, Diagnostic> {
    if let Some(k) = args.iter().find(|a| a.keyword.is_some() && strict) {
        return Err(Error::Module {
            class: "TypeError",
            message: "BaseException.__init__() takes no keyword arguments".into(),
            help: None,
        }
        .at(k.span));
    }
    Ok(Value::List(Arc::new(
        args.iter()
            .filter(|a| a.keyword.is_none())
            .map(|a| a.value.clone())
            .collect(),
    )))
}

/// `obj.f` for a method `f`: bound to `obj`.
fn bound(this: &Value, f: Arc<Function>) -> Value {
    Value::Method(Arc::new((this.clone(), f)))
}

/// `nn.Module.__init__` takes no arguments (PyTorch's errors, named after
/// the program's class: older tutorials pass the layers as keywords).
fn module_init_args(class: &str, args: &[ArgVal]) -> Result<(), Diagnostic> {
    let type_error = |message: String, span: Span| {
        Err(Error::Module {
            class: "TypeError",
            message,
            help: None,
        }
        .at(span))
    };
    if let Some(a) = args.iter().find(|a| a.keyword.is_some()) {
        let word = a.keyword.as_ref().map_or("", |k| k.name.as_str());
        return type_error(
            format!("{class}.__init__() got an unexpected keyword argument '{word}'"),
            a.span,
        );
    }
    if let Some(a) = args.first() {
        let n = args.len() + 1;
        return type_error(
            format!("{class}.__init__() takes 1 positional argument but {n} were given"),
            a.span,
        );
    }
    Ok(())
}

/// `C.__bases__`: what its parentheses named (`object` for none).
fn bases_of(c: &Class) -> Vec<Value> {
    let builtin = |name: &str| {
        super::docs::functions()
            .find(|d| d.name == name)
            .map_or(Value::None, Value::Builtin)
    };
    let bases: Vec<Value> = c
        .bases
        .iter()
        .map(|b| match b {
            Base::Class(k) => Value::Class(Arc::clone(k)),
            Base::Exception(e) => Value::ExcClass(e),
            Base::Module => builtin("Module"),
            Base::Layer(name) => builtin(name),
            Base::AutogradFunction => builtin("Function"),
            Base::Dataset => builtin("Dataset"),
            Base::Sampler => builtin("Sampler"),
        })
        .collect();
    match bases.is_empty() {
        true => vec![Value::Class(super::value::object_class())],
        false => bases,
    }
}

/// Whether two values of a class's bases are the same class.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Class(x), Value::Class(y)) => Arc::ptr_eq(x, y),
        (Value::ExcClass(x), Value::ExcClass(y)) => std::ptr::eq(*x, *y),
        (Value::Builtin(x), Value::Builtin(y)) => std::ptr::eq(*x, *y),
        _ => false,
    }
}
