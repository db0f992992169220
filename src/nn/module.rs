//! `nn.Module`: parameters, buffers and children by name, in registration
//! order, and the training flag; the walks PyTorch's methods make over
//! them (`named_parameters`, `named_modules`, `state_dict`), each visiting
//! a module or a tensor once, as PyTorch's memo sets do.

use std::any::Any;
use std::sync::{Arc, Mutex};

use super::layer::Layer;
use crate::autograd::hook_list::Hooks;
use crate::autograd::meta;
use crate::error::Error;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// A module shared by every name for it (`model.fc1`, a `Sequential`'s
/// item, the variable).
pub type ModuleRef = Arc<Mutex<Module>>;

/// A buffer: a tensor the module keeps that is not a parameter
/// (`BatchNorm`'s running statistics); in `state_dict` when persistent.
#[derive(Clone)]
pub struct Buffer {
    pub name: String,
    pub tensor: Option<Arc<Tensor>>,
    pub persistent: bool,
}

pub struct Module {
    /// What its forward computes.
    pub layer: Layer,
    /// The class's name (`Linear`, `Net`).
    pub type_name: Arc<str>,
    pub training: bool,
    /// Whether `Module.__init__` ran (a class that forgets
    /// `super().__init__()` cannot register anything).
    pub initialised: bool,
    pub parameters: Vec<(String, Option<Arc<Tensor>>)>,
    pub buffers: Vec<Buffer>,
    pub modules: Vec<(String, Option<ModuleRef>)>,
    /// Tensors set as plain attributes of a layer (`module.weight = orig *
    /// mask` once `weight` is no parameter, as pruning does): PyTorch's
    /// `__dict__`, not registered, so `parameters()`, `state_dict()` and
    /// `.to()` leave them out; the layer's forward reads one where it has
    /// no parameter of that name. (A class of the program's own keeps its
    /// plain attributes in its instance, `object`.)
    pub plain_tensors: Vec<(String, Arc<Tensor>)>,
    /// The interpreter's instance of a user class (its class and plain
    /// attributes); none for a built-in layer.
    pub object: Option<Arc<dyn Any + Send + Sync>>,
    /// A DataParallel replica (`nn/parallel.rs`): its parameters are the
    /// copies of one device, which `parameters()` does not list.
    pub replica: bool,
    /// `register_forward_pre_hook`'s and `register_forward_hook`'s
    /// functions, run around each call of the module, in order.
    pub forward_pre_hooks: Arc<Hooks>,
    pub forward_hooks: Arc<Hooks>,
    /// `register_full_backward_hook`'s functions (or, with
    /// `full_backward_hook` false, the older `register_backward_hook`'s),
    /// and `register_full_backward_pre_hook`'s.
    pub backward_hooks: Arc<Hooks>,
    pub backward_pre_hooks: Arc<Hooks>,
    /// PyTorch's `_is_full_backward_hook`: none until a backward hook is
    /// registered, then which kind (a module takes one kind only).
    pub full_backward_hook: Option<bool>,
    /// `model.forward = f`: a function set on the instance, which calling
    /// the module runs in place of the class's or the layer's forward, as
    /// Python finds an instance's attribute first (the interpreter's value).
    pub forward_override: Option<Arc<dyn Any + Send + Sync>>,
    /// A lazy module before its first forward (`nn.LazyLinear`): how the
    /// interpreter makes its layer once the input shows its size
    /// (`eval::lazy_modules`).
    pub lazy: Option<Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<module {}>", self.type_name)
    }
}

/// What an attribute of a module names, as PyTorch's `__getattr__` finds it.
pub enum Member {
    Parameter(Option<Arc<Tensor>>),
    Buffer(Option<Arc<Tensor>>),
    Module(Option<ModuleRef>),
}

impl Module {
    /// A module of `layer`, initialised (a built-in layer).
    pub fn new(type_name: &str, layer: Layer) -> Module {
        Module {
            layer,
            type_name: Arc::from(type_name),
            training: true,
            initialised: true,
            parameters: Vec::new(),
            buffers: Vec::new(),
            modules: Vec::new(),
            plain_tensors: Vec::new(),
            object: None,
            replica: false,
            forward_pre_hooks: Arc::default(),
            forward_hooks: Arc::default(),
            backward_hooks: Arc::default(),
            backward_pre_hooks: Arc::default(),
            full_backward_hook: None,
            forward_override: None,
            lazy: None,
        }
    }

    pub fn into_ref(self) -> ModuleRef {
        Arc::new(Mutex::new(self))
    }

    /// The parameter, buffer or child named `name`.
    pub fn member(&self, name: &str) -> Option<Member> {
        if let Some((_, p)) = self.parameters.iter().find(|(n, _)| n == name) {
            return Some(Member::Parameter(p.clone()));
        }
        if let Some(b) = self.buffers.iter().find(|b| b.name == name) {
            return Some(Member::Buffer(b.tensor.clone()));
        }
        self.modules
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| Member::Module(m.clone()))
    }

    /// The names `torch.nn.utils.parametrize` computes: the keys of the
    /// module's `parametrizations` child, a ModuleDict (in the order they
    /// were registered).
    pub fn parametrized(&self) -> Vec<String> {
        let Some(Member::Module(Some(d))) = self.member("parametrizations") else {
            return Vec::new();
        };
        let d = lock(&d);
        match d.layer {
            Layer::ModuleDict => d
                .modules
                .iter()
                .filter(|(_, m)| m.is_some())
                .map(|(n, _)| n.clone())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The plain tensor attribute `name`, if there is one.
    pub fn plain(&self, name: &str) -> Option<Arc<Tensor>> {
        self.plain_tensors
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| Arc::clone(t))
    }

    /// `module.name = t` of a plain tensor attribute.
    pub fn set_plain(&mut self, name: &str, t: Arc<Tensor>) {
        match self.plain_tensors.iter_mut().find(|(n, _)| n == name) {
            Some((_, slot)) => *slot = t,
            None => self.plain_tensors.push((name.to_string(), t)),
        }
    }

    /// A parameter of this name, else a plain tensor attribute of it: what
    /// a layer's forward reads as `self.weight`.
    pub fn tensor_named(&self, name: &str) -> Option<Arc<Tensor>> {
        match self.parameters.iter().find(|(n, _)| n == name) {
            Some((_, p)) => p.clone(),
            None => self.plain(name),
        }
    }

    /// Whether `name` is one of [`Module::parametrized`]'s names.
    pub fn is_parametrized(&self, name: &str) -> bool {
        self.parametrized().iter().any(|n| n == name)
    }

    fn unregister(&mut self, name: &str) {
        self.plain_tensors.retain(|(n, _)| n != name);
        self.parameters.retain(|(n, _)| n != name);
        self.buffers.retain(|b| b.name != name);
        self.modules.retain(|(n, _)| n != name);
    }

    fn not_initialised(&self, what: &str) -> Result<(), Error> {
        match self.initialised {
            true => Ok(()),
            false => Err(Error::Attribute {
                message: format!("cannot assign {what} before Module.__init__() call"),
                help: Some(format!(
                    "call `super().__init__()` first in `{}`'s `__init__`",
                    self.type_name
                )),
            }),
        }
    }

    /// `self.name = p` with `p` a `Parameter` (or none for a name that
    /// is a parameter): PyTorch's `register_parameter`.
    pub fn set_parameter(&mut self, name: &str, p: Option<Arc<Tensor>>) -> Result<(), Error> {
        self.not_initialised("parameters")?;
        match self.parameters.iter_mut().find(|(n, _)| n == name) {
            Some((_, slot)) => *slot = p,
            None => {
                self.unregister(name);
                self.parameters.push((name.to_string(), p));
            }
        }
        Ok(())
    }

    /// `self.name = m` with `m` a module (or none for a name that is a
    /// child): PyTorch's `add_module`.
    pub fn set_module(&mut self, name: &str, m: Option<ModuleRef>) -> Result<(), Error> {
        self.not_initialised("module")?;
        match self.modules.iter_mut().find(|(n, _)| n == name) {
            Some((_, slot)) => *slot = m,
            None => {
                self.unregister(name);
                self.modules.push((name.to_string(), m));
            }
        }
        Ok(())
    }

    /// `register_buffer(name, t, persistent)`, or `self.name = t` for a
    /// name that is a buffer already (keeping its persistence).
    pub fn set_buffer(
        &mut self,
        name: &str,
        t: Option<Arc<Tensor>>,
        persistent: Option<bool>,
    ) -> Result<(), Error> {
        self.not_initialised("buffers")?;
        match self.buffers.iter_mut().find(|b| b.name == name) {
            Some(b) => {
                b.tensor = t;
                if let Some(p) = persistent {
                    b.persistent = p;
                }
            }
            None => {
                self.unregister(name);
                self.buffers.push(Buffer {
                    name: name.to_string(),
                    tensor: t,
                    persistent: persistent.unwrap_or(true),
                });
            }
        }
        Ok(())
    }

    /// `del self.name` of a parameter, buffer or child; false when it is
    /// none of them.
    pub fn remove(&mut self, name: &str) -> bool {
        let found = self.member(name).is_some() || self.plain(name).is_some();
        self.unregister(name);
        found
    }

    /// The children that are set, with their names.
    pub fn children(&self) -> Vec<(String, ModuleRef)> {
        self.modules
            .iter()
            .filter_map(|(n, m)| m.as_ref().map(|m| (n.clone(), Arc::clone(m))))
            .collect()
    }
}

/// `named_modules()`: `m` itself (named `prefix`), then every module below
/// it, depth first, each once.
pub fn named_modules(m: &ModuleRef, prefix: &str) -> Vec<(String, ModuleRef)> {
    let mut out = Vec::new();
    walk(m, prefix, &mut out);
    out
}

fn walk(m: &ModuleRef, prefix: &str, out: &mut Vec<(String, ModuleRef)>) {
    if out.iter().any(|(_, seen)| Arc::ptr_eq(seen, m)) {
        return;
    }
    out.push((prefix.to_string(), Arc::clone(m)));
    let children = lock(m).children();
    for (name, child) in children {
        walk(&child, &join(prefix, &name), out);
    }
}

/// The modules `apply(fn)` calls `fn` on, in its order: PyTorch's
/// `Module.apply` calls it on each child's modules first, then on the
/// module itself. Unlike `named_modules()` it does not skip a module met
/// again under another parent (only a child held twice by one module, as
/// `children()` does); a module that holds one of its ancestors is not
/// entered again (PyTorch would recurse without end).
pub fn apply_order(m: &ModuleRef) -> Vec<ModuleRef> {
    fn visit(m: &ModuleRef, path: &mut Vec<ModuleRef>, out: &mut Vec<ModuleRef>) {
        if path.iter().any(|a| Arc::ptr_eq(a, m)) {
            return;
        }
        path.push(Arc::clone(m));
        let mut seen: Vec<ModuleRef> = Vec::new();
        let children = lock(m).children();
        for (_, child) in children {
            if !seen.iter().any(|s| Arc::ptr_eq(s, &child)) {
                visit(&child, path, out);
                seen.push(child);
            }
        }
        path.pop();
        out.push(Arc::clone(m));
    }
    let mut out = Vec::new();
    visit(m, &mut Vec::new(), &mut out);
    out
}

fn join(prefix: &str, name: &str) -> String {
    match prefix.is_empty() {
        true => name.to_string(),
        false => format!("{prefix}.{name}"),
    }
}

/// `named_parameters(recurse)`: each parameter once (a parameter shared by
/// two modules under its first name), as PyTorch's `remove_duplicate`.
pub fn named_parameters(m: &ModuleRef, recurse: bool) -> Vec<(String, Arc<Tensor>)> {
    named_tensors(m, recurse, |m| {
        if m.replica {
            return Vec::new();
        }
        m.parameters
            .iter()
            .filter_map(|(n, p)| p.as_ref().map(|p| (n.clone(), Arc::clone(p))))
            .collect()
    })
}

/// `named_buffers(recurse)`: each buffer once.
pub fn named_buffers(m: &ModuleRef, recurse: bool) -> Vec<(String, Arc<Tensor>)> {
    named_tensors(m, recurse, |m| {
        m.buffers
            .iter()
            .filter_map(|b| b.tensor.as_ref().map(|t| (b.name.clone(), Arc::clone(t))))
            .collect()
    })
}

fn named_tensors(
    m: &ModuleRef,
    recurse: bool,
    own: impl Fn(&Module) -> Vec<(String, Arc<Tensor>)>,
) -> Vec<(String, Arc<Tensor>)> {
    let modules = match recurse {
        true => named_modules(m, ""),
        false => vec![(String::new(), Arc::clone(m))],
    };
    let mut out: Vec<(String, Arc<Tensor>)> = Vec::new();
    for (prefix, module) in modules {
        for (name, t) in own(&lock(&module)) {
            if !out.iter().any(|(_, seen)| Arc::ptr_eq(seen, &t)) {
                out.push((join(&prefix, &name), t));
            }
        }
    }
    out
}

/// `train(mode)`: the flag of `m` and every module below it.
pub fn train(m: &ModuleRef, mode: bool) {
    for (_, module) in named_modules(m, "") {
        lock(&module).training = mode;
    }
}

/// `zero_grad()`: every parameter's `.grad` set to none (PyTorch 2's
/// `set_to_none=True`), or zeroed in place.
pub fn parameter_grads(m: &ModuleRef) -> Vec<Arc<Tensor>> {
    named_parameters(m, true)
        .into_iter()
        .filter_map(|(_, p)| meta::meta(&p).and_then(|r| r.grad()))
        .collect()
}

/// `state_dict()`: every parameter and persistent buffer under its dotted
/// name (`fc1.weight`, `bn.running_mean`), each module's own first, then
/// its children's, as PyTorch's. The tensors are detached (`keep_vars=False`).
pub fn state_dict(m: &ModuleRef) -> Vec<(String, Arc<Tensor>)> {
    let mut out = Vec::new();
    for (prefix, module) in named_modules(m, "") {
        let module = lock(&module);
        for (name, p) in &module.parameters {
            if let Some(p) = p {
                out.push((join(&prefix, name), Arc::new(meta::detached(p))));
            }
        }
        for b in module.buffers.iter().filter(|b| b.persistent) {
            if let Some(t) = &b.tensor {
                out.push((join(&prefix, &b.name), Arc::new(meta::detached(t))));
            }
        }
    }
    out
}

/// Where `load_state_dict` puts each entry: the model's tensor of each
/// key `state_dict` gives, by key.
pub fn state_targets(m: &ModuleRef) -> Vec<(String, Arc<Tensor>)> {
    let mut out = Vec::new();
    for (prefix, module) in named_modules(m, "") {
        let module = lock(&module);
        for (name, p) in &module.parameters {
            if let Some(p) = p {
                out.push((join(&prefix, name), Arc::clone(p)));
            }
        }
        for b in module.buffers.iter().filter(|b| b.persistent) {
            if let Some(t) = &b.tensor {
                out.push((join(&prefix, &b.name), Arc::clone(t)));
            }
        }
    }
    out
}

/// What `apply_tensors` makes of a tensor (true for a parameter).
pub type Convert<'a> = dyn FnMut(&Arc<Tensor>, bool) -> Result<Arc<Tensor>, Error> + 'a;

/// Every parameter and buffer of `m` and below replaced by what `f`
/// makes of it (PyTorch's `_apply`: `to`, `cuda`, `half`); a tensor two
/// modules share is converted once.
pub fn apply_tensors(m: &ModuleRef, f: &mut Convert) -> Result<(), Error> {
    let mut done: Vec<(Arc<Tensor>, Arc<Tensor>)> = Vec::new();
    let mut convert = |t: &Arc<Tensor>, is_param: bool| -> Result<Arc<Tensor>, Error> {
        if let Some((_, new)) = done.iter().find(|(old, _)| Arc::ptr_eq(old, t)) {
            return Ok(Arc::clone(new));
        }
        let new = f(t, is_param)?;
        done.push((Arc::clone(t), Arc::clone(&new)));
        Ok(new)
    };
    for (_, module) in named_modules(m, "") {
        let mut module = lock(&module);
        for (_, p) in module.parameters.iter_mut() {
            if let Some(t) = p {
                *t = convert(t, true)?;
            }
        }
        for b in module.buffers.iter_mut() {
            if let Some(t) = &mut b.tensor {
                *t = convert(t, false)?;
            }
        }
    }
    Ok(())
}
