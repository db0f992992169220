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
use super::value::{Exit, Function, Generator, Level, LoopItems, PyIterator, Repeat, TryState};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, ForIter, StmtKind};
use crate::lang::resolve::stmt_yields;
use crate::lang::Span;
use crate::runtime::lock::lock;

/// What one step of a generator's body came to.
enum Step {
    /// On to the next statement.
    Go,
    /// An item for the consumer: the body stops here.
    Yield(Value),
    /// A `return`, `break` or `continue` leaving blocks.
    Leave(Exit),
}

/// Where statement `at` of a loop's or a branch's block is not found: the
/// body is the function's, never changed, so this is a fault of this file.
const LOST: &str = "internal error: a generator lost its place in its body";

impl Generator {
    pub(super) fn new(function: Arc<Function>, slots: Vec<Option<Value>>) -> Generator {
        Generator {
            entry: None,
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
            caller_at: it.statement_at.get(),
        });
        it.quiet += 1;
        let saved_grad = f.grad_mode.map(|setting| it.enter_grad(setting));
        let ran = super::function::with_stack(|| self.run(it, &f.def.body));
        if let Some(before) = saved_grad {
            it.leave_grad(before);
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

    /// Python's `close()` of a generator left before its end: `GeneratorExit`
    /// raised at its `yield`, so that its `finally` blocks run and its
    /// `with` blocks are left; the generator ending (or raising
    /// `GeneratorExit` out) is closed, a `yield` on the way is Python's
    /// RuntimeError.
    fn close(&mut self, it: &mut Interp, span: Span) -> Result<(), Diagnostic> {
        if self.done() || self.levels.len() == 1 && self.levels[0].at == 0 {
            self.levels.clear();
            return Ok(());
        }
        let exit = Error::Module {
            class: "GeneratorExit",
            message: String::new(),
            help: None,
        }
        .at(span);
        self.entry = Some(Exit::Raise(exit));
        let r = self.resume(it, span);
        self.entry = None;
        match r {
            Ok(None) => Ok(()),
            Err(d) if d.error.class() == "GeneratorExit" => Ok(()),
            Err(d) => Err(d),
            Ok(Some(_)) => Err(Error::Module {
                class: "RuntimeError",
                message: "generator ignored GeneratorExit".into(),
                help: Some(
                    "a generator closed before its end must not yield in its `finally`".into(),
                ),
            }
            .at(span)),
        }
    }

    /// A loop level left before its end: the generator it iterated over,
    /// where only the loop held it, is closed (CPython's refcount letting
    /// go of it).
    fn left(it: &mut Interp, level: Option<Level>, span: Span) -> Result<(), Diagnostic> {
        let Some(Level {
            repeat: Repeat::For(items),
            ..
        }) = level
        else {
            return Ok(());
        };
        let mut items = items;
        let inner = loop {
            match items {
                LoopItems::Iterator(i) => break i,
                LoopItems::Enumerate(inner, _) => items = *inner,
                _ => return Ok(()),
            }
        };
        if Arc::strong_count(&inner) == 1 && is_generator(&inner) {
            it.close_generator(&inner, span)?;
        }
        Ok(())
    }

    /// The body from where it stopped to its next `yield`: statements run
    /// one at a time; an error, a `return`, `break` or `continue` leaves
    /// blocks outward through `unwind` (a `try`'s handlers and `finally`,
    /// a `with`'s exit on the way).
    fn run(&mut self, it: &mut Interp, body: &Block) -> Result<Option<Value>, Diagnostic> {
        if let Some(exit) = self.entry.take() {
            self.unwind(it, body, exit)?;
        }
        loop {
            if self.done() {
                return Ok(None);
            }
            let exit = match self.step(it, body) {
                Ok(Step::Yield(v)) => return Ok(Some(v)),
                Ok(Step::Go) => continue,
                Ok(Step::Leave(exit)) => exit,
                Err(d) if matches!(d.error, Error::Interrupted) => return Err(d),
                Err(d) => Exit::Raise(d),
            };
            self.unwind(it, body, exit)?;
        }
    }

    /// One statement of the innermost block (or that block's end).
    fn step(&mut self, it: &mut Interp, body: &Block) -> Result<Step, Diagnostic> {
        let Some(level) = self.levels.last_mut() else {
            return Ok(Step::Go);
        };
        if let Repeat::YieldFrom(items) = &mut level.repeat {
            return match next_of(it, items, Span::from(0..0))? {
                Some(v) => Ok(Step::Yield(v)),
                None => {
                    self.levels.pop();
                    Ok(Step::Go)
                }
            };
        }
        let block = block_of(body, &self.levels)?;
        let level = self.levels.last_mut().expect("checked above");
        let at = level.at;
        let Some(s) = block.get(at) else {
            self.next_round(it, body)?;
            return Ok(Step::Go);
        };
        level.at += 1;
        if !stmt_yields(&s.kind) {
            // A bare `raise` in a handler raises what the handler took.
            let caught: Vec<Diagnostic> = self
                .levels
                .iter()
                .filter_map(|l| match &l.repeat {
                    Repeat::Try(t) => t.caught.clone(),
                    _ => None,
                })
                .collect();
            let n = caught.len();
            it.handling.extend(caught);
            let flow = it.exec(s);
            it.handling.truncate(it.handling.len() - n);
            return Ok(match flow? {
                Flow::Next => Step::Go,
                Flow::Return => Step::Leave(Exit::Return),
                Flow::Break => Step::Leave(Exit::Break),
                Flow::Continue => Step::Leave(Exit::Continue),
            });
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
                    Some(e) => it.eval(e, 0).map(Step::Yield),
                    None => Ok(Step::Yield(Value::None)),
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
            StmtKind::Try(_) => self.levels.push(enter(Repeat::Try(TryState::default()), 0)),
            StmtKind::With(e, target, _) => {
                let exit = it.enter_with(e, target.as_ref())?;
                self.levels.push(enter(Repeat::With(exit), 0));
            }
            _ => {
                return Err(Error::Module {
                    class: "NotImplementedError",
                    message: "cudash's generators yield in their body, its loops, `if`s, `try`s \
                              and `with`s; not yet inside cudash's own blocks"
                        .into(),
                    help: Some("yield outside the block, or make a list and return it".into()),
                }
                .at(s.span))
            }
        }
        Ok(Step::Go)
    }

    /// Leaves blocks outward as `exit` asks: a loop ends at `break` (its
    /// next round at `continue`); a `try` whose body raised runs the first
    /// handler that takes the error, else its `finally` with the exit kept
    /// for after it; a `with` leaves its context (an object's `__exit__`
    /// may swallow the error). An error no block takes is the generator's.
    fn unwind(&mut self, it: &mut Interp, body: &Block, exit: Exit) -> Result<(), Diagnostic> {
        loop {
            let Some(level) = self.levels.last_mut() else {
                return match exit {
                    Exit::Raise(d) => Err(d),
                    _ => Ok(()),
                };
            };
            match (&mut level.repeat, &exit) {
                (Repeat::For(_) | Repeat::While, Exit::Break) => {
                    Self::left(it, self.levels.pop(), Span::from(0..0))?;
                    return Ok(());
                }
                (Repeat::For(_) | Repeat::While, Exit::Continue) => {
                    level.at = usize::MAX;
                    return Ok(());
                }
                (Repeat::Try(_), _) => {
                    let n = self.levels.len();
                    let outer = block_of(body, &self.levels[..n - 1])?;
                    let level = self.levels.last_mut().expect("a level");
                    let Some(StmtKind::Try(t)) = outer.get(level.stmt).map(|s| &s.kind) else {
                        return Err(Error::value(LOST).at(Span::from(0..0)));
                    };
                    let finally = t.handlers.len() + 2;
                    if level.branch == 0 {
                        if let Exit::Raise(d) = &exit {
                            if let Some(k) = it.handler_for(t, d)? {
                                let Exit::Raise(d) = exit else { unreachable!() };
                                if let Some(name) = &t.handlers[k].name {
                                    it.set_var(name, super::exceptions::exception_value(&d));
                                }
                                level.branch = 1 + k;
                                level.at = 0;
                                level.repeat = Repeat::Try(TryState {
                                    caught: Some(d),
                                    pending: None,
                                });
                                return Ok(());
                            }
                        }
                    }
                    if t.finally.is_some() && level.branch != finally {
                        level.branch = finally;
                        level.at = 0;
                        level.repeat = Repeat::Try(TryState {
                            caught: None,
                            pending: Some(exit),
                        });
                        return Ok(());
                    }
                    self.levels.pop();
                }
                (Repeat::With(_), _) => {
                    let Some(Level {
                        repeat: Repeat::With(w),
                        ..
                    }) = self.levels.pop()
                    else {
                        unreachable!("matched above")
                    };
                    let raised = match &exit {
                        Exit::Raise(d) => Some(d),
                        _ => None,
                    };
                    if it.leave_with(w, raised)? {
                        return Ok(()); // the error swallowed: on after the block
                    }
                }
                _ => Self::left(it, self.levels.pop(), Span::from(0..0))?,
            }
        }
    }

    /// The innermost block has ended: a loop goes round again (its next
    /// item bound, or its condition true), anything else is left.
    fn next_round(&mut self, it: &mut Interp, body: &Block) -> Result<(), Diagnostic> {
        let n = self.levels.len();
        let outer = block_of(body, &self.levels[..n - 1])?;
        let level = self.levels.last_mut().expect("a level ended");
        // A `try` part's end: on to its `else` (after the body) and its
        // `finally`; a `finally`'s end: on with what left the block.
        if let (Repeat::Try(state), Some(StmtKind::Try(t))) =
            (&mut level.repeat, outer.get(level.stmt).map(|s| &s.kind))
        {
            let h = t.handlers.len();
            let next = match level.branch {
                0 if t.orelse.is_some() => Some(h + 1),
                b if b < h + 2 && t.finally.is_some() => Some(h + 2),
                _ => None,
            };
            match next {
                Some(b) => {
                    level.branch = b;
                    level.at = 0;
                    *state = TryState::default();
                }
                None => {
                    let pending = state.pending.take();
                    self.levels.pop();
                    if let Some(exit) = pending {
                        self.unwind(it, body, exit)?;
                    }
                }
            }
            return Ok(());
        }
        if let Repeat::With(_) = &level.repeat {
            if let Some(Level {
                repeat: Repeat::With(w),
                ..
            }) = self.levels.pop()
            {
                it.leave_with(w, None)?;
            }
            return Ok(());
        }
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
            StmtKind::Try(t) => {
                let h = t.handlers.len();
                match level.branch {
                    0 => &t.body,
                    b if b <= h => &t.handlers[b - 1].body,
                    b if b == h + 1 => t.orelse.as_ref().ok_or_else(lost)?,
                    _ => t.finally.as_ref().ok_or_else(lost)?,
                }
            }
            StmtKind::With(_, _, b) => b,
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
    matches!(
        &*lock(i),
        PyIterator::Generator(_)
            | PyIterator::Loader(_)
            | PyIterator::Next(_)
            | PyIterator::Map(_)
            | PyIterator::Filter(_)
            | PyIterator::Range { .. }
            | PyIterator::Indexed(..)
    )
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
                PyIterator::Range { next, stop, step } => {
                    let going = (*step > 0 && *next < *stop) || (*step < 0 && *next > *stop);
                    if !going {
                        return Ok(None);
                    }
                    let v = *next;
                    // Past the last number an i64 holds, the range ends.
                    *next = v.checked_add(*step).unwrap_or(*stop);
                    return Ok(Some(Value::Int(v)));
                }
                PyIterator::Next(o) => {
                    let o = o.clone();
                    drop(state);
                    return self.object_next(&o, span);
                }
                PyIterator::Map(m) => {
                    let m = Arc::clone(m);
                    drop(state);
                    return self.map_next(&m.0, &m.1, span);
                }
                PyIterator::Filter(f) => {
                    let f = Arc::clone(f);
                    drop(state);
                    return self.filter_next(&f.0, &f.1, span);
                }
                PyIterator::Indexed(o, k) => {
                    let (o, at) = (o.clone(), *k);
                    *k += 1;
                    drop(state);
                    return self.indexed_next(&o, at, span);
                }
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

    /// The next item of `map(f, *iterables)`: `f` of the next of each, or
    /// None once one has ended.
    fn map_next(
        &mut self,
        f: &Value,
        sources: &[Arc<Mutex<PyIterator>>],
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        let mut args = Vec::with_capacity(sources.len());
        for s in sources {
            match self.next_item(s, span)? {
                Some(v) => args.push(v),
                None => return Ok(None),
            }
        }
        let args = args
            .into_iter()
            .map(|v| super::args::ArgVal::positional(v, span))
            .collect();
        self.call_value(f.clone(), args, span).map(Some)
    }

    /// `obj[at]` of an instance iterated by index: None once it raises
    /// IndexError (or StopIteration), as Python's sequence iteration ends.
    fn indexed_next(
        &mut self,
        obj: &Value,
        at: i64,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        let Some(Value::Function(f)) =
            super::value::class_of(obj).and_then(|c| c.find("__getitem__"))
        else {
            return Ok(None);
        };
        let arg = super::args::ArgVal::positional(Value::Int(at), span);
        match self.call_bound(obj, f, vec![arg], span) {
            Ok(v) => Ok(Some(v)),
            Err(d) if matches!(d.error.class(), "IndexError" | "StopIteration") => Ok(None),
            Err(d) => Err(d),
        }
    }

    /// The next item of `filter(f, iterable)` that `f` finds true.
    fn filter_next(
        &mut self,
        f: &Value,
        source: &Arc<Mutex<PyIterator>>,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        while let Some(item) = self.next_item(source, span)? {
            let keep = match f {
                Value::None => self.truth(&item, span)?,
                f => {
                    let arg = super::args::ArgVal::positional(item.clone(), span);
                    let r = self.call_value(f.clone(), vec![arg], span)?;
                    self.truth(&r, span)?
                }
            };
            if keep {
                return Ok(Some(item));
            }
        }
        Ok(None)
    }

    /// An iterator over `v`'s items, as Python's `iter(v)`: an iterator
    /// itself, a DataLoader's new pass, an instance's `__iter__`, else
    /// the items as they are now.
    pub(crate) fn iterator_of(
        &mut self,
        v: Value,
        span: Span,
        what: &str,
    ) -> Result<Arc<Mutex<PyIterator>>, Diagnostic> {
        let v = match &v {
            Value::Object(_) => self.iter_method(v, span)?,
            Value::DataLoader(l) => self.loader_iter(l, span)?,
            _ => v,
        };
        match v {
            Value::Iterator(i) => Ok(i),
            other => Ok(Arc::new(Mutex::new(PyIterator::Items(
                super::builtins::python::items_of(self, &other, span, what)?.into(),
            )))),
        }
    }

    /// `g.throw(e)`: `e` raised where the generator `i` stopped (its
    /// handlers, `finally` and `with` exits run); what it yields next, or
    /// None when it ended (Python's StopIteration).
    pub(crate) fn throw_generator(
        &mut self,
        i: &Arc<Mutex<PyIterator>>,
        d: Diagnostic,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        {
            let mut state = lock(i);
            let PyIterator::Generator(Some(g)) = &mut *state else {
                return Err(d);
            };
            // Not started, or ended: raised at once, as Python's.
            if g.done() || g.levels.len() == 1 && g.levels[0].at == 0 {
                g.levels.clear();
                return Err(d);
            }
            g.entry = Some(Exit::Raise(d));
        }
        self.next_item(i, span)
    }

    /// `g.close()`, `g.throw(e)` of a generator; None for another method
    /// (or another iterator).
    pub(crate) fn generator_method(
        &mut self,
        i: &Arc<Mutex<PyIterator>>,
        name: &str,
        args: &[super::args::ArgVal],
        span: Span,
    ) -> Option<Result<Value, Diagnostic>> {
        if !is_generator(i) {
            return None;
        }
        Some(match (name, args.first()) {
            ("close", None) => self.close_generator(i, span).map(|()| Value::None),
            ("throw", Some(a)) => {
                let (v, at) = (a.value.clone(), a.span);
                match self.raise_value(v, span, at) {
                    Ok(d) => match self.throw_generator(i, d, span) {
                        Ok(Some(v)) => Ok(v),
                        Ok(None) => Err(Error::Module {
                            class: "StopIteration",
                            message: String::new(),
                            help: None,
                        }
                        .at(span)),
                        Err(d) => Err(d),
                    },
                    Err(d) => Err(d),
                }
            }
            _ => return None,
        })
    }

    /// Closes the generator `i` (see `Generator::close`); anything else
    /// is left as it is.
    pub(crate) fn close_generator(
        &mut self,
        i: &Arc<Mutex<PyIterator>>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let taken = match &mut *lock(i) {
            PyIterator::Generator(g) => g.take(),
            _ => return Ok(()),
        };
        let Some(mut g) = taken else {
            return Ok(());
        };
        let home = g.function.home;
        let r = match home == self.vars.number() {
            true => g.close(self, span),
            false => self.at_home(home, span, |me| g.close(me, span)),
        };
        if let PyIterator::Generator(slot) = &mut *lock(i) {
            *slot = Some(g);
        }
        r
    }

    /// `for x in g`, `for i, x in enumerate(g)` of a generator: each item
    /// made as the loop comes to it. None when `v` is no generator. A
    /// generator only the loop holds (`for x in gen():`) is closed when the
    /// loop is left before its end (`break`, `return`, an error), as
    /// CPython closes it when the loop lets go of it: its `finally` runs.
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
        let ran = (|| {
            while let Some(item) = items.next(self, span)? {
                self.bind_loop(targets, item, span)?;
                if let Some(out) = self.loop_body(body)? {
                    return Ok(Some(out));
                }
            }
            Ok(None)
        })();
        if let Ok(None) = ran {
            return Ok(Some(Flow::Next));
        }
        // Left early: the generator, where nothing but this loop (`v` and
        // `items`) holds it.
        let gen = match v {
            Value::Iterator(i) => Some(i),
            Value::Enumerate(en) => match &en.0 {
                Value::Iterator(i) => Some(i),
                _ => None,
            },
            _ => None,
        };
        if let Some(i) = gen.filter(|i| Arc::strong_count(i) <= 2 && is_generator(i)) {
            let i = Arc::clone(i);
            drop(items);
            self.close_generator(&i, span)?;
        }
        ran.map(|out| out.or(Some(Flow::Next)))
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
            // Python's sequence protocol: `__getitem__` with 0, 1, ...
            if let (None, Some(Value::Function(_))) =
                (o.class.find("__iter__"), o.class.find("__getitem__"))
            {
                return Ok(Value::Iterator(Arc::new(Mutex::new(PyIterator::Indexed(
                    v, 0,
                )))));
            }
            if let Some(Value::Function(f)) = o.class.find("__iter__") {
                let it = self.call_bound(&v, f, Vec::new(), span)?;
                // An iterator of the program's own: its `__next__` asked
                // for each item as the loop comes to it.
                if let Value::Object(r) = &it {
                    if r.class.find("__next__").is_some() {
                        return Ok(Value::Iterator(Arc::new(Mutex::new(PyIterator::Next(it)))));
                    }
                }
                return Ok(it);
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

    /// `obj.__next__()` of an instance: its item, None when it raised
    /// StopIteration.
    pub(crate) fn object_next(
        &mut self,
        obj: &Value,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        let next = match obj {
            Value::Object(o) => o.class.find("__next__"),
            _ => None,
        };
        let Some(Value::Function(f)) = next else {
            return Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "'{}' object is not an iterator",
                    super::format::python_type(obj)
                ),
                help: None,
            }
            .at(span));
        };
        match self.call_bound(obj, f, Vec::new(), span) {
            Ok(v) => Ok(Some(v)),
            Err(d) if d.error.class() == "StopIteration" => Ok(None),
            Err(d) => Err(d),
        }
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
            // `for k in d`: the keys, in order, as Python's.
            Value::Dict(d) => return Ok(d.items().iter().map(|(k, _)| k.value()).collect()),
            _ => {}
        }
        self.elements_of(&v)
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
