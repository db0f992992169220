//! Python's generators: calling a function whose body yields binds its
//! arguments and gives a generator; the body runs only as `next` (or a
//! `for`) asks, up to its next `yield`, its locals kept between. A print
//! in the body comes between the consumer's prints, an endless `while
//! True: yield` is fine, and an error comes at the item that raises it,
//! as in Python.
//!
//! The body is walked statement by statement here, where it is suspended:
//! `levels` says where (the body, and each `for`, `while` and `if` block
//! entered on the way to the `yield`, with its loop's items). Statements
//! that do not yield run as any function's do (`Interp::exec`).

use std::sync::{Arc, Mutex};

use super::flow::Flow;
use super::function::{Frame, MAX_CALLS};
use super::value::{Function, Generator, Level, LoopItems, PyIterator, Repeat};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, ForIter, StmtKind};
use crate::lang::resolve::stmt_yields;
use crate::lang::Span;
use crate::runtime::lock::lock;

/// Where statement `at` of a loop's or a branch's block is not found: the
/// body is the function's, never changed, so this is a fault of this file.
const LOST: &str = "internal error: a generator lost its place in its body";

impl Generator {
    pub(super) fn new(function: Arc<Function>, slots: Vec<Option<Value>>) -> Generator {
        Generator {
            cells: super::function::new_cells(&function, &slots),
            function,
            slots,
            levels: vec![Level {
                stmt: 0,
                branch: 0,
                at: 0,
                repeat: Repeat::Once,
            }],
        }
    }

    /// The function's name, as Python's `<generator object f at ...>` shows it.
    pub fn name(&self) -> &str {
        self.function.name()
    }

    fn done(&self) -> bool {
        self.levels.is_empty()
    }

    /// Runs the body in the call's frame up to its next `yield`: that
    /// item, or None once the body has ended.
    fn resume(&mut self, it: &mut Interp, span: Span) -> Result<Option<Value>, Diagnostic> {
        if self.done() {
            return Ok(None);
        }
        if it.frames.len() >= MAX_CALLS {
            return Err(Error::Recursion {
                function: self.function.name().to_string(),
                depth: MAX_CALLS,
            }
            .at(span));
        }
        let f = Arc::clone(&self.function);
        it.frames.push(Frame {
            function: Arc::clone(&f),
            slots: std::mem::take(&mut self.slots),
            cells: std::mem::take(&mut self.cells),
            returned: Value::None,
        });
        it.quiet += 1;
        let saved_grad = f
            .grad_mode
            .map(|on| std::mem::replace(&mut it.grad.enabled, on));
        let ran = super::function::with_stack(|| self.run(it, &f.def.body));
        if let Some(on) = saved_grad {
            it.grad.enabled = on;
        }
        it.quiet -= 1;
        let ran = ran.map_err(|d| it.in_body(d));
        if let Some(frame) = it.frames.pop() {
            self.slots = frame.slots;
            self.cells = frame.cells;
        }
        match ran {
            Ok(Some(v)) => Ok(Some(v)),
            // Ended, or raised: a generator that has is finished, and its
            // locals are freed, as Python's.
            done => {
                self.levels.clear();
                self.slots.clear();
                self.cells.clear();
                done
            }
        }
    }

    /// The body from where it stopped to its next `yield`.
    fn run(&mut self, it: &mut Interp, body: &Block) -> Result<Option<Value>, Diagnostic> {
        loop {
            let Some(level) = self.levels.last_mut() else {
                return Ok(None);
            };
            if let Repeat::YieldFrom(items) = &mut level.repeat {
                match next_of(it, items, Span::from(0..0))? {
                    Some(v) => return Ok(Some(v)),
                    None => {
                        self.levels.pop();
                        continue;
                    }
                }
            }
            let block = block_of(body, &self.levels)?;
            let level = self.levels.last_mut().expect("checked above");
            let at = level.at;
            let Some(s) = block.get(at) else {
                self.next_round(it, body)?;
                continue;
            };
            level.at += 1;
            if !stmt_yields(&s.kind) {
                match it.exec(s)? {
                    Flow::Next => {}
                    Flow::Return => return Ok(None),
                    Flow::Break => self.leave_loop(true),
                    Flow::Continue => self.leave_loop(false),
                }
                continue;
            }
            it.enter(s.span)?;
            let enter = |repeat, branch| Level {
                stmt: at,
                branch,
                at: 0,
                repeat,
            };
            match &s.kind {
                StmtKind::Yield {
                    value: Some(e),
                    from: true,
                } => {
                    let v = it.eval(e, 0)?;
                    let items = items_of(it, v, e.span)?;
                    self.levels.push(enter(Repeat::YieldFrom(items), 0));
                }
                StmtKind::Yield { value, .. } => {
                    return match value {
                        Some(e) => it.eval(e, 0).map(Some),
                        None => Ok(Some(Value::None)),
                    }
                }
                StmtKind::If(branches, otherwise) => {
                    let mut taken = None;
                    for (k, (c, _)) in branches.iter().enumerate() {
                        if it.condition(c, 0)? {
                            taken = Some(k);
                            break;
                        }
                    }
                    match (taken, otherwise) {
                        (Some(k), _) => self.levels.push(enter(Repeat::Once, k)),
                        (None, Some(_)) => self.levels.push(enter(Repeat::Once, branches.len())),
                        (None, None) => {}
                    }
                }
                StmtKind::For(_, iter, b) => {
                    let items = match iter {
                        ForIter::Range(lo, hi) => LoopItems::Counted {
                            next: it.eval_int(lo, 0, "the start of a range")?,
                            end: it.eval_int(hi, 0, "the end of a range")?,
                        },
                        ForIter::Each(e) => {
                            let v = it.eval(e, 0)?;
                            items_of(it, v, e.span)?
                        }
                    };
                    // Entered at its end: the first round binds the first item.
                    let mut level = enter(Repeat::For(items), 0);
                    level.at = b.len();
                    self.levels.push(level);
                }
                StmtKind::While(_, b) => {
                    let mut level = enter(Repeat::While, 0);
                    level.at = b.len();
                    self.levels.push(level);
                }
                _ => {
                    return Err(Error::Module {
                        class: "NotImplementedError",
                        message:
                            "cudash's generators yield in their body, its loops and its `if`s; \
                                  not yet inside `with`, `try` or cudash's blocks"
                                .into(),
                        help: Some(
                            "yield outside the `with` or `try`, or make a list and return it"
                                .into(),
                        ),
                    }
                    .at(s.span))
                }
            }
        }
    }

    /// The innermost block has ended: a loop goes round again (its next
    /// item bound, or its condition true), anything else is left.
    fn next_round(&mut self, it: &mut Interp, body: &Block) -> Result<(), Diagnostic> {
        let n = self.levels.len();
        let outer = block_of(body, &self.levels[..n - 1])?;
        let level = self.levels.last_mut().expect("a level ended");
        let again = match (&mut level.repeat, outer.get(level.stmt).map(|s| &s.kind)) {
            (Repeat::For(items), Some(StmtKind::For(targets, iter, _))) => {
                let span = match iter {
                    ForIter::Range(e, _) | ForIter::Each(e) => e.span,
                };
                match next_of(it, items, span)? {
                    Some(v) => {
                        it.bind_loop(targets, v, span)?;
                        true
                    }
                    None => false,
                }
            }
            (Repeat::While, Some(StmtKind::While(c, _))) => it.condition(c, 0)?,
            _ => false,
        };
        match again {
            true => level.at = 0,
            false => drop(self.levels.pop()),
        }
        Ok(())
    }

    /// `break` (`out`) or `continue` ran in a block of the innermost loop:
    /// the blocks inside the loop are left, and the loop with them
    /// (`break`) or its round (`continue`).
    fn leave_loop(&mut self, out: bool) {
        while let Some(level) = self.levels.last_mut() {
            match level.repeat {
                Repeat::For(_) | Repeat::While => {
                    match out {
                        true => drop(self.levels.pop()),
                        false => level.at = usize::MAX,
                    }
                    return;
                }
                _ => drop(self.levels.pop()),
            }
        }
    }
}

/// The block the innermost of `levels` runs: the body, then each level's
/// loop body or branch in turn.
fn block_of<'a>(body: &'a Block, levels: &[Level]) -> Result<&'a Block, Diagnostic> {
    let mut block = body;
    for level in levels.iter().skip(1) {
        let lost = || Error::value(LOST).at(Span::from(0..0));
        block = match &block.get(level.stmt).ok_or_else(lost)?.kind {
            StmtKind::For(_, _, b) | StmtKind::While(_, b) => b,
            StmtKind::If(branches, otherwise) => match branches.get(level.branch) {
                Some((_, b)) => b,
                None => otherwise.as_ref().ok_or_else(lost)?,
            },
            StmtKind::Yield { .. } => return Ok(block),
            _ => return Err(lost()),
        };
    }
    Ok(block)
}

/// The items a loop in a generator takes one at a time.
fn items_of(it: &mut Interp, v: Value, span: Span) -> Result<LoopItems, Diagnostic> {
    let v = it.iter_method(v, span)?;
    Ok(match v {
        Value::Range(range) => LoopItems::Range { range, next: 0 },
        Value::Iterator(i) if is_lazy(&i) => LoopItems::Iterator(i),
        Value::Enumerate(en) if matches!(&en.0, Value::Iterator(i) if is_lazy(i)) => {
            let (inner, start) = (*en).clone();
            LoopItems::Enumerate(Box::new(items_of(it, inner, span)?), start)
        }
        other => LoopItems::Values(it.iterated(other, span)?.into()),
    })
}

/// The next of `items`, or None at their end.
fn next_of(
    it: &mut Interp,
    items: &mut LoopItems,
    span: Span,
) -> Result<Option<Value>, Diagnostic> {
    Ok(match items {
        LoopItems::Counted { next, end } => (*next < *end).then(|| {
            *next += 1;
            Value::Int(*next - 1)
        }),
        LoopItems::Range { range, next } => (*next < range.len()).then(|| {
            *next += 1;
            Value::Int(range.at(*next - 1))
        }),
        LoopItems::Values(values) => values.pop_front(),
        LoopItems::Iterator(i) => it.next_item(i, span)?,
        LoopItems::Enumerate(inner, k) => next_of(it, inner, span)?.map(|v| {
            *k += 1;
            Value::List(Arc::new(vec![Value::Int(*k - 1), v]))
        }),
    })
}

impl LoopItems {
    /// The next item, or None at the end.
    pub(super) fn next(
        &mut self,
        it: &mut Interp,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        next_of(it, self, span)
    }
}

/// Is this iterator a generator (rather than `iter(xs)`'s items)?
pub(super) fn is_generator(i: &Arc<Mutex<PyIterator>>) -> bool {
    matches!(&*lock(i), PyIterator::Generator(_))
}

/// The batches of a DataLoader's pass (`len(iter(loader))`); None for
/// another iterator, or one making a batch now.
pub(super) fn loader_len(i: &Arc<Mutex<PyIterator>>) -> Option<usize> {
    match &*lock(i) {
        PyIterator::Loader(Some(epoch)) => Some(epoch.len()),
        _ => None,
    }
}

/// Whether `i` makes its items as they are asked for (a generator's, or a
/// DataLoader pass's batches), so a loop takes them one at a time.
pub(super) fn is_lazy(i: &Arc<Mutex<PyIterator>>) -> bool {
    matches!(&*lock(i), PyIterator::Generator(_) | PyIterator::Loader(_))
}

impl Interp {
    /// A call of a generator function: its arguments bound in `slots`,
    /// nothing of its body run yet.
    pub(super) fn make_generator(&self, f: Arc<Function>, slots: Vec<Option<Value>>) -> Value {
        Value::Iterator(Arc::new(Mutex::new(PyIterator::Generator(Some(Box::new(
            Generator::new(f, slots),
        ))))))
    }

    /// `next(it)`: the iterator's next item, None at its end. A generator
    /// runs its body to its next `yield` (with its own globals, when it
    /// is a module's function).
    pub(crate) fn next_item(
        &mut self,
        i: &Arc<Mutex<PyIterator>>,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        let taken = {
            let mut state = lock(i);
            match &mut *state {
                PyIterator::Items(items) => return Ok(items.pop_front()),
                PyIterator::Loader(epoch) => Err(epoch.take()),
                PyIterator::Generator(g) => Ok(g.take()),
            }
        };
        match taken {
            Err(None) => {
                Err(Error::value("the DataLoader's iterator is already making a batch").at(span))
            }
            Err(Some(mut epoch)) => {
                let batch = self.next_batch(&mut epoch).transpose();
                let mut state = lock(i);
                match &batch {
                    // At its end a pass stops its workers, as PyTorch's
                    // iterator shuts its down: the iterator is then empty.
                    Ok(None) => *state = PyIterator::Items(Default::default()),
                    _ => {
                        if let PyIterator::Loader(slot) = &mut *state {
                            *slot = Some(epoch);
                        }
                    }
                }
                batch
            }
            Ok(None) => Err(Error::value("generator already executing").at(span)),
            Ok(Some(mut g)) => {
                let home = g.function.home;
                let r = match home == self.vars.number() {
                    true => g.resume(self, span),
                    false => self.at_home(home, span, |me| g.resume(me, span)),
                };
                if let PyIterator::Generator(slot) = &mut *lock(i) {
                    *slot = Some(g);
                }
                r
            }
        }
    }

    /// `for x in g`, `for i, x in enumerate(g)` of a generator: each item
    /// made as the loop comes to it. None when `v` is no generator.
    pub(super) fn for_generated(
        &mut self,
        targets: &[crate::lang::ast::Target],
        v: &Value,
        body: &super::flow::Body,
        span: Span,
    ) -> Result<Option<Flow>, Diagnostic> {
        let Some(mut items) = self.lazy_items(v, span)? else {
            return Ok(None);
        };
        while let Some(item) = items.next(self, span)? {
            self.bind_loop(targets, item, span)?;
            if let Some(out) = self.loop_body(body)? {
                return Ok(Some(out));
            }
        }
        Ok(Some(Flow::Next))
    }

    /// `v.__iter__()` of an instance whose class defines it (`for x in
    /// stream`, `iter(stream)`, `list(stream)`): what it gives, mostly a
    /// generator; a DataLoader's new pass; `v` itself for anything else.
    pub(crate) fn iter_method(&mut self, v: Value, span: Span) -> Result<Value, Diagnostic> {
        if let Value::DataLoader(l) = &v {
            return self.loader_iter(l, span);
        }
        // `list(sampler)`, `for i in sampler`: one pass's indices.
        if let Value::Sampler(s) = &v {
            return self.sampler_items(s, span);
        }
        if let Value::Object(o) = &v {
            if let Some(Value::Function(f)) = o.class.find("__iter__") {
                return self.call_bound(&v, f, Vec::new(), span);
            }
        }
        // A dataset is a sequence: `list(subset)`, `for x, y in ds`.
        if let Value::Dataset(ds) = &v {
            let ds = Arc::clone(ds);
            let items = (0..ds.len())
                .map(|i| self.dataset_item(&ds, i, span))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Value::list(items));
        }
        Ok(v)
    }

    /// The items of a generator (or of `enumerate` of one), to be made one
    /// at a time; None for anything else.
    pub(super) fn lazy_items(
        &mut self,
        v: &Value,
        span: Span,
    ) -> Result<Option<LoopItems>, Diagnostic> {
        let lazy = match v {
            Value::Iterator(i) => is_lazy(i),
            Value::Enumerate(en) => matches!(&en.0, Value::Iterator(i) if is_lazy(i)),
            _ => false,
        };
        match lazy {
            true => items_of(self, v.clone(), span).map(Some),
            false => Ok(None),
        }
    }

    /// A generator's items, all of them, for what takes a whole sequence
    /// (`list(g)`, `sum(g)`, `zip(g, ...)`): its body run to its end.
    pub(crate) fn drain(
        &mut self,
        i: &Arc<Mutex<PyIterator>>,
        span: Span,
    ) -> Result<Vec<Value>, Diagnostic> {
        let mut out = Vec::new();
        while let Some(v) = self.next_item(i, span)? {
            out.push(v);
        }
        Ok(out)
    }

    /// The items `v` gives to a loop, all at once (`Value::elements`), a
    /// generator's by running it, a string's characters.
    pub(crate) fn iterated(&mut self, v: Value, span: Span) -> Result<Vec<Value>, Diagnostic> {
        match &v {
            Value::Iterator(i) if is_lazy(i) => return self.drain(i, span),
            Value::Str(s) => return Ok(super::strings::chars_of(s)),
            _ => {}
        }
        v.elements()
            .ok_or_else(|| {
                Error::wrong_type(
                    "what `for` iterates over",
                    "a range `a..b`, a list or a tensor",
                    v.type_name(),
                )
            })
            .and_then(|items| items)
            .map_err(|err| err.at(span))
    }

    /// Every item of an iterable, as unpacking and `*xs` take them: an
    /// object's through its `__iter__`, the rest as `iterated`.
    pub(crate) fn items_of(&mut self, v: Value, span: Span) -> Result<Vec<Value>, Diagnostic> {
        let v = self.iter_method(v, span)?;
        self.iterated(v, span)
    }

    /// Arguments for a builtin that reads sequences whole: each generator
    /// among them given as the list of its items.
    pub(crate) fn drain_generators(
        &mut self,
        args: Vec<super::args::ArgVal>,
    ) -> Result<Vec<super::args::ArgVal>, Diagnostic> {
        // Every builtin and method call passes here: most hold no iterator.
        if !args
            .iter()
            .any(|a| matches!(a.value, Value::Iterator(_) | Value::Enumerate(_)))
        {
            return Ok(args);
        }
        args.into_iter()
            .map(|mut a| {
                let gen = match &a.value {
                    Value::Iterator(i) if is_lazy(i) => Some((Arc::clone(i), None)),
                    Value::Enumerate(en) => match &en.0 {
                        Value::Iterator(i) if is_lazy(i) => Some((Arc::clone(i), Some(en.1))),
                        _ => None,
                    },
                    _ => None,
                };
                a.value = match gen {
                    None => a.value,
                    Some((i, None)) => Value::list(self.drain(&i, a.span)?),
                    // `list(enumerate(g))`: the pairs.
                    Some((i, Some(start))) => Value::list(
                        (start..)
                            .zip(self.drain(&i, a.span)?)
                            .map(|(k, v)| Value::List(Arc::new(vec![Value::Int(k), v])))
                            .collect(),
                    ),
                };
                Ok(a)
            })
            .collect()
    }
}
