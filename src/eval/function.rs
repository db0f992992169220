//! User functions: `fn name(a, b=1) { ... }` defines one, a value like any
//! other; a call binds its arguments as Python does (by position, then by
//! keyword, then the defaults) and runs the body in a frame of its own.
//!
//! Python's scoping: a name the body assigns anywhere is local to the call
//! (`FnDef::locals`); any other name is read from the session's variables.
//! Tensors are passed by reference, so `w -= lr * g` on a parameter updates
//! the caller's tensor in place.

use crate::eval::value::PyDict;
use std::sync::Arc;

use super::args::{plural, ArgVal};
use super::flow::{Code, Flow};
use super::value::{Cell, Function, Key};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{FnDef, Name, Scope, Spread};
use crate::lang::Span;

/// The deepest chain of calls (Python's default recursion limit).
pub const MAX_CALLS: usize = 1000;

/// Below this much stack left, a call's body runs on a new segment of
/// `STACK_SEGMENT` bytes taken from the heap.
const STACK_RED_ZONE: usize = 1 << 20;
const STACK_SEGMENT: usize = 16 << 20;

/// How many emptied slot vectors are kept for the next calls.
const SPARE_SLOTS: usize = 64;

/// One running call: its function and its local variables, one slot per
/// name in `FnDef::locals` (empty until assigned).
pub(crate) struct Frame {
    pub function: Arc<Function>,
    pub slots: Vec<Option<Value>>,
    /// Its locals that functions defined in the body read (`FnDef::cells`).
    pub cells: Vec<Cell>,
    /// What `return` gave, once it ran.
    pub returned: Value,
    /// Where the caller's statement starts (the call's line in a traceback).
    pub caller_at: usize,
}

impl Frame {
    /// The locals that hold a value, with their names.
    pub fn vars(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.function
            .def
            .locals
            .iter()
            .zip(&self.slots)
            .filter_map(|(n, v)| v.as_ref().map(|v| (n, v)))
    }
}

impl Interp {
    /// `fn name(...) { }`: evaluates the defaults and binds the function.
    pub(crate) fn define(&mut self, def: &Arc<FnDef>) -> Result<(), Diagnostic> {
        let f = Value::Function(Arc::new(self.function_of(def)?));
        let f = self.decorate(f, &def.decorators)?;
        self.set_var(&def.name, f);
        Ok(())
    }

    /// `@a @b def f` is `f = a(b(f))`: each decorator called with what the
    /// one below it made, the innermost first.
    pub(crate) fn decorate(
        &mut self,
        mut v: Value,
        decorators: &[crate::lang::ast::Expr],
    ) -> Result<Value, Diagnostic> {
        for d in decorators.iter().rev() {
            let deco = self.eval(d, 0)?;
            let arg = ArgVal::positional(v, d.span);
            v = self.call_value(deco, vec![arg], d.span)?;
        }
        Ok(v)
    }

    /// The function `def` defines, its defaults evaluated now.
    pub(crate) fn function_of(&mut self, def: &Arc<FnDef>) -> Result<Function, Diagnostic> {
        let defaults = def
            .params
            .iter()
            .map(|p| p.default.as_ref().map(|e| self.eval(e, 0)).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        // The cells of what it reads of the enclosing function's locals
        // (its own, or those it took in turn).
        let closure = match self.frames.last() {
            Some(frame) => def
                .free
                .iter()
                .map(|v| match v.from {
                    Scope::Cell(k) => frame.cells.get(k as usize).cloned(),
                    Scope::Free(k) => frame.function.closure.get(k as usize).cloned(),
                    _ => None,
                })
                .map(|c| c.unwrap_or_default())
                .collect(),
            None => Vec::new(),
        };
        // Its text is the running function's (a `lambda` inside one of a
        // module's functions is in that module), else the running script's.
        let source = self
            .frames
            .last()
            .and_then(|f| f.function.source.clone())
            .or_else(|| self.source.clone());
        let f = Function {
            def: Arc::clone(def),
            code: super::compiled::block(&def.body),
            defaults,
            closure: super::value::Closure(closure),
            source,
            owner: Default::default(),
            grad_mode: None,
            abstract_method: false,
            home: self.vars.number(),
            attrs: Default::default(),
        };
        Ok(f)
    }

    /// Calls `f` with `args` (the call written at `span`): its value is what
    /// `return` gives, none when the body ends without one.
    pub(crate) fn call_function(
        &mut self,
        f: Arc<Function>,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let slots = self.new_slots(&f);
        let slots = bind(&f, args, slots, span)?;
        self.run_call(f, slots, span)
    }

    /// The user function `name` names when a call of it with `n` arguments,
    /// none by keyword, binds them in order (`call_in_order`); None for
    /// anything else (a builtin, another count).
    #[inline]
    pub(crate) fn user_function(&self, name: &Name, n: usize) -> Option<Arc<Function>> {
        match self.get_var(name).as_deref() {
            Some(Value::Function(f)) if f.def.params.len() == n && !f.def.variadic => {
                Some(Arc::clone(f))
            }
            _ => None,
        }
    }

    /// `f(a, b)` with one value for each parameter, none by keyword (most
    /// calls): argument `k`, given by `arg(k)` in order, goes to its slot as
    /// it is evaluated.
    pub(crate) fn call_in_order(
        &mut self,
        f: Arc<Function>,
        arg: &dyn Fn(&mut Interp, usize) -> Result<Value, Diagnostic>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let mut slots = self.new_slots(&f);
        for (k, (p, slot)) in f.def.params.iter().zip(&mut slots).enumerate() {
            let v = arg(self, k)?;
            if let Value::Tensor(t) = &v {
                t.label_if_unnamed(&p.name.name);
            }
            *slot = Some(v);
        }
        self.run_call(f, slots, span)
    }

    /// Empty slots for a call of `f`, in a vector an earlier call gave back.
    fn new_slots(&mut self, f: &Function) -> Vec<Option<Value>> {
        let mut slots = self.spare_slots.pop().unwrap_or_default();
        slots.resize_with(f.def.locals.len(), || None);
        slots
    }

    /// Runs `f`'s body in a new frame holding `slots`.
    #[inline]
    fn run_call(
        &mut self,
        f: Arc<Function>,
        slots: Vec<Option<Value>>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // A function of another table's (a module's, or the program's
        // called back from one): its own globals while it runs.
        if f.home != self.vars.number() {
            let home = f.home;
            return self.at_home(home, span, move |it| it.run_call_here(f, slots, span));
        }
        self.run_call_here(f, slots, span)
    }

    fn run_call_here(
        &mut self,
        f: Arc<Function>,
        slots: Vec<Option<Value>>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // A body that yields runs as its generator's `next` asks.
        if f.def.generator {
            return Ok(self.make_generator(f, slots));
        }
        if self.frames.len() >= MAX_CALLS {
            return Err(Error::Recursion {
                function: f.name().to_string(),
                depth: MAX_CALLS,
            }
            .at(span));
        }
        // `@torch.no_grad()`: the body runs in its mode, restored after.
        let saved_grad = f.grad_mode.map(|setting| self.enter_grad(setting));
        let code: *const Code = &f.code;
        // The runtime calls a function at its own name (a Dataset's
        // function in a DataLoader): no call site of the program's then.
        let called_by_runtime = span == f.def.name.span;
        let cells = new_cells(&f, &slots);
        // The caller's statement is where its warnings come from again
        // once the call returns.
        let statement_at = self.statement_at.get();
        self.frames.push(Frame {
            function: f,
            slots,
            cells,
            returned: Value::None,
            caller_at: statement_at,
        });
        // SAFETY: the body is read through the frame just pushed, which owns
        // the function (`Arc`: it does not move when `frames` grows) until
        // the `pop` below; only this function pops frames (`run_top` clears
        // them once no call runs), and a `Function` is never changed. A
        // reference count taken here instead costs a tenth of a small call.
        let code = unsafe { &*code };
        // Each call may need more stack than the thread was given (a test's
        // 2 MiB, a debug build): more is taken on the heap as it runs low.
        // A body's expression statements show nothing (as in Python).
        self.quiet += 1;
        let ran = with_stack(|| code.run(self));
        self.quiet -= 1;
        if let Some(before) = saved_grad {
            self.leave_grad(before);
        }
        let ran = ran.map_err(|d| self.in_body(d));
        self.statement_at.set(statement_at);
        let returned = self.frames.pop().map(|frame| {
            let mut slots = frame.slots;
            // The locals are freed here, at the call's end, as in Python.
            slots.clear();
            if self.spare_slots.len() < SPARE_SLOTS {
                self.spare_slots.push(slots);
            }
            frame.returned
        });
        ran.map_err(|d| match called_by_runtime {
            true => d,
            false => self.called_here(d, span),
        })?;
        Ok(returned.unwrap_or(Value::None))
    }

    /// An error raised in the running call's body, shown in the text that
    /// defined the function (unless a call inside it already said where).
    #[cold]
    pub(super) fn in_body(&self, d: Diagnostic) -> Diagnostic {
        match self.frames.last().and_then(|f| f.function.source.as_ref()) {
            Some(source) => d.in_source(source),
            None => d,
        }
    }

    /// An error that left a call made at `span` from the running code:
    /// the call site is added to its traceback.
    #[cold]
    fn called_here(&self, d: Diagnostic, span: Span) -> Diagnostic {
        let within = self.frames.last().map(|f| f.function.name().to_string());
        d.called_at(span, within)
    }

    /// `return v`: the running call's value is `v`.
    pub(crate) fn returning(&mut self, v: Value) -> Flow {
        if let Some(frame) = self.frames.last_mut() {
            frame.returned = v;
        }
        Flow::Return
    }
}

/// Runs `body` with more stack taken on the heap where the thread's runs
/// low (a call's body, a generator's run).
pub(super) fn with_stack<R>(body: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, body)
}

impl Function {
    /// The same function, its calls run with autograd's recording `on`
    /// (`@torch.no_grad()` over it).
    pub fn with_grad_mode(&self, setting: super::value::GradSetting) -> Function {
        let mut f = self.with_closure(self.closure.0.clone());
        f.grad_mode = Some(setting);
        f
    }

    /// The same function, marked abstract (`@abc.abstractmethod`).
    pub fn abstract_copy(&self) -> Function {
        let mut f = self.with_closure(self.closure.0.clone());
        f.abstract_method = true;
        f
    }

    /// The same function reading the cells `closure` (a DataLoader
    /// worker's copies of the session's).
    pub fn with_closure(&self, closure: Vec<Cell>) -> Function {
        let owner = std::sync::OnceLock::new();
        if let Some(w) = self.owner.get() {
            let _ = owner.set(w.clone());
        }
        Function {
            def: Arc::clone(&self.def),
            code: super::compiled::block(&self.def.body),
            defaults: self.defaults.clone(),
            closure: super::value::Closure(closure),
            source: self.source.clone(),
            owner,
            grad_mode: self.grad_mode,
            abstract_method: self.abstract_method,
            home: self.home,
            attrs: std::sync::Mutex::new(crate::runtime::lock::lock(&self.attrs).clone()),
        }
    }
}

/// A call's cells (`FnDef::cells`), a parameter's holding its argument.
pub(super) fn new_cells(f: &Function, slots: &[Option<Value>]) -> Vec<Cell> {
    f.def
        .cells
        .iter()
        .map(|c| {
            let first = c
                .param
                .and_then(|k| slots.get(k as usize).cloned().flatten());
            Arc::new(std::sync::Mutex::new(first))
        })
        .collect()
}

/// Python's argument binding: positional arguments fill the parameters in
/// order, keywords by name, defaults what is left; anything else is a
/// `TypeError` that names the function and points at the argument.
fn bind(
    f: &Function,
    args: Vec<ArgVal>,
    mut slots: Vec<Option<Value>>,
    span: Span,
) -> Result<Vec<Option<Value>>, Diagnostic> {
    let params = &f.def.params;
    // One slot per local, the parameters first (`resolve::function`).
    let mut positional = 0;
    let given = args.iter().filter(|a| a.keyword.is_none()).count();
    // `*args` takes what is left of the positional arguments, `**kwargs`
    // the keywords no parameter names.
    let items_at = params.iter().position(|p| p.spread == Spread::Items);
    let entries_at = params.iter().position(|p| p.spread == Spread::Entries);
    let takes = items_at
        .unwrap_or(params.len())
        .min(entries_at.unwrap_or(params.len()));
    let mut extra = Vec::new();
    let mut named: Vec<(Key, Value)> = Vec::new();
    // A `*` without a name takes no arguments: the parameters after it
    // are keyword-only.
    let bare = items_at.is_some_and(|k| params[k].name.name.is_empty());
    for a in args {
        match a.keyword {
            None if positional >= takes && items_at.is_some() && !bare => extra.push(a.value),
            None if positional >= takes => {
                return Err(Error::Arity {
                    func: f.name().to_string(),
                    expected: plural(takes, "positional argument"),
                    found: match given {
                        1 => "1 was".into(),
                        n => format!("{n} were"),
                    },
                    signature: f.signature(),
                }
                .at(a.span));
            }
            None => {
                slots[positional] = Some(a.value);
                positional += 1;
            }
            Some(k) => {
                let at = params
                    .iter()
                    .position(|p| p.name.name == k.name && p.spread == Spread::No);
                // A positional-only parameter's name as a keyword: for
                // `**kwargs`, else Python's TypeError.
                let at = match at {
                    Some(i) if i < f.def.positional_only && entries_at.is_none() => {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: format!(
                                "{}() got some positional-only arguments passed as keyword arguments: '{}'",
                                f.name(),
                                k.name
                            ),
                            help: Some(format!("pass it by position: {}", f.signature())),
                        }
                        .at(k.span));
                    }
                    Some(i) if i < f.def.positional_only => None,
                    at => at,
                };
                if at.is_none() && entries_at.is_some() {
                    let key = Key::Str(k.name.clone());
                    if named.iter().any(|(n, _)| *n == key) {
                        return Err(Error::Call {
                            message: format!("`{}` got two values for `{}`", f.name(), k.name),
                            signature: f.signature(),
                        }
                        .at(k.span));
                    }
                    named.push((key, a.value));
                    continue;
                }
                let Some(at) = at else {
                    return Err(Error::UnknownKeyword {
                        func: f.name().to_string(),
                        name: k.name.clone(),
                        suggestion: super::suggest::closest(
                            &k.name,
                            params.iter().map(|p| p.name.name.as_str()),
                        ),
                        signature: f.signature(),
                    }
                    .at(k.span));
                };
                if slots[at].is_some() {
                    return Err(Error::Call {
                        message: format!("`{}` got two values for `{}`", f.name(), k.name),
                        signature: f.signature(),
                    }
                    .at(k.span));
                }
                slots[at] = Some(a.value);
            }
        }
    }
    if let Some(k) = items_at {
        slots[k] = Some(Value::List(Arc::new(extra)));
    }
    if let Some(k) = entries_at {
        slots[k] = Some(Value::Dict(PyDict::new(named)));
    }
    let mut missing = Vec::new();
    for ((p, slot), default) in params.iter().zip(&mut slots).zip(&f.defaults) {
        if slot.is_none() {
            *slot = default.clone();
        }
        match slot {
            Some(Value::Tensor(t)) => t.label_if_unnamed(&p.name.name),
            Some(_) => {}
            None => missing.push(format!("`{}`", p.name.name)),
        }
    }
    if !missing.is_empty() {
        return Err(Error::Call {
            message: format!(
                "`{}` is missing {}: {}",
                f.name(),
                plural(missing.len(), "argument"),
                missing.join(", ")
            ),
            signature: f.signature(),
        }
        .at(span));
    }
    Ok(slots)
}
