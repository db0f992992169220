//! The objects `multiprocessing` shares between processes
//! (`stdlib/multiprocessing.py`): `Queue`, `Lock`/`RLock`, `Event`,
//! `Value`. Each is an entry of one table of the program, named by a
//! number its Python object holds, so a process's copy of the object
//! (`processes.rs`) reaches the same entry, as a child process reaches the
//! same pipe or semaphore.
//!
//! A call that waits (`get`, `acquire`, `wait`) stops on Ctrl-C; one made
//! by the main program while no process runs that could ever answer it
//! (an empty queue, a lock a process left held) is an error, not a hang.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::args::ArgVal;
use super::data::own_copy;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;

/// The names this module answers.
pub const NAMES: [&str; 2] = ["_cudash.mp_make", "_cudash.mp_call"];

enum Kind {
    /// Items in order, and the most it holds (0: no limit).
    Queue(VecDeque<Value>, usize),
    /// Held by (process id, how many times: an `RLock` counts).
    Lock(Option<(u32, u32)>, bool),
    Event(bool),
    Value(Value),
}

struct Shared {
    kind: Mutex<Kind>,
    changed: Condvar,
}

static TABLE: Mutex<Vec<Arc<Shared>>> = Mutex::new(Vec::new());

fn entry(id: i64) -> Option<Arc<Shared>> {
    lock(&TABLE).get(usize::try_from(id).ok()?).cloned()
}

/// How a wait ended.
enum Waited {
    Ready,
    TimedOut,
}

impl Interp {
    pub(super) fn call_mp_objects(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let arg = |i: usize| args.get(i).map(|a| a.value.clone()).unwrap_or(Value::None);
        let text = |v: Value| match v {
            Value::Str(s) => s.to_string(),
            _ => String::new(),
        };
        if name == "_cudash.mp_make" {
            let kind = match text(arg(0)).as_str() {
                "Queue" => Kind::Queue(VecDeque::new(), int(&arg(1)).max(0) as usize),
                "Lock" => Kind::Lock(None, false),
                "RLock" => Kind::Lock(None, true),
                "Event" => Kind::Event(false),
                _ => Kind::Value(arg(1)),
            };
            let mut table = lock(&TABLE);
            table.push(Arc::new(Shared {
                kind: Mutex::new(kind),
                changed: Condvar::new(),
            }));
            return Ok(Value::Int(table.len() as i64 - 1));
        }
        let Some(shared) = entry(int(&arg(0))) else {
            return Err(Error::value("no shared object has this number").at(span));
        };
        let op = text(arg(1));
        let timeout = match arg(3) {
            Value::Int(n) => Some(n as f64),
            Value::Float(x) => Some(x.get()),
            _ => None,
        };
        let block = !matches!(arg(2), Value::Bool(b) if !b.get());
        let me = self.pid.unwrap_or(0);
        let r = match op.as_str() {
            "put" => {
                // What a child unpickles: its own copy, tensors shared.
                let item = own_copy(&arg(4));
                let waited = self.wait_on(&shared, block, timeout, span, "put", |k| match k {
                    Kind::Queue(items, max) => *max == 0 || items.len() < *max,
                    _ => true,
                })?;
                match waited {
                    Waited::TimedOut => Value::bool(false),
                    Waited::Ready => {
                        if let Kind::Queue(items, _) = &mut *lock(&shared.kind) {
                            items.push_back(item);
                        }
                        shared.changed.notify_all();
                        Value::bool(true)
                    }
                }
            }
            "get" => {
                let waited = self.wait_on(
                    &shared,
                    block,
                    timeout,
                    span,
                    "get",
                    |k| matches!(k, Kind::Queue(items, _) if !items.is_empty()),
                )?;
                match waited {
                    Waited::TimedOut => Value::List(Arc::new(vec![])),
                    Waited::Ready => {
                        let item = match &mut *lock(&shared.kind) {
                            Kind::Queue(items, _) => items.pop_front(),
                            _ => None,
                        };
                        shared.changed.notify_all();
                        Value::List(Arc::new(vec![own_copy(&item.unwrap_or(Value::None))]))
                    }
                }
            }
            "qsize" => match &*lock(&shared.kind) {
                Kind::Queue(items, _) => Value::Int(items.len() as i64),
                _ => Value::Int(0),
            },
            "acquire" => {
                let waited =
                    self.wait_on(&shared, block, timeout, span, "acquire", |k| match k {
                        Kind::Lock(None, _) => true,
                        Kind::Lock(Some((owner, _)), true) => *owner == me,
                        _ => false,
                    })?;
                match waited {
                    Waited::TimedOut => Value::bool(false),
                    Waited::Ready => {
                        if let Kind::Lock(held, _) = &mut *lock(&shared.kind) {
                            *held = Some(match *held {
                                Some((owner, n)) => (owner, n + 1),
                                None => (me, 1),
                            });
                        }
                        Value::bool(true)
                    }
                }
            }
            "release" => {
                let mut k = lock(&shared.kind);
                let Kind::Lock(held, recursive) = &mut *k else {
                    return Ok(Value::None);
                };
                match *held {
                    Some((owner, _)) if *recursive && owner != me => {
                        return Err(Error::runtime("cannot release un-acquired lock").at(span))
                    }
                    Some((_, n)) if n > 1 => *held = held.map(|(o, n)| (o, n - 1)),
                    Some(_) => *held = None,
                    None => {
                        return Err(Error::value_help(
                            "semaphore or lock released too many times",
                            "release a lock once for each acquire",
                        )
                        .at(span))
                    }
                }
                drop(k);
                shared.changed.notify_all();
                Value::None
            }
            "set" | "clear" => {
                if let Kind::Event(on) = &mut *lock(&shared.kind) {
                    *on = op == "set";
                }
                shared.changed.notify_all();
                Value::None
            }
            "is_set" => Value::bool(matches!(*lock(&shared.kind), Kind::Event(true))),
            "wait" => {
                let waited = self.wait_on(&shared, true, timeout, span, "wait", |k| {
                    matches!(k, Kind::Event(true))
                })?;
                Value::bool(matches!(waited, Waited::Ready))
            }
            "value" => match &*lock(&shared.kind) {
                Kind::Value(v) => v.clone(),
                _ => Value::None,
            },
            "set_value" => {
                if let Kind::Value(v) = &mut *lock(&shared.kind) {
                    *v = arg(4);
                }
                Value::None
            }
            other => return Err(Error::value(format!("no shared-object call `{other}`")).at(span)),
        };
        Ok(r)
    }

    /// Waits until `ready` holds for the entry (not at all without
    /// `block`; at most `timeout` seconds), or Ctrl-C, or until it never
    /// can: the main program waits and no process it started runs.
    fn wait_on(
        &mut self,
        shared: &Shared,
        block: bool,
        timeout: Option<f64>,
        span: Span,
        what: &str,
        ready: impl Fn(&Kind) -> bool,
    ) -> Result<Waited, Diagnostic> {
        let until = timeout.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
        let main = self.pid.is_none() && !self.rt.is_rank();
        if main && block {
            self.main_waits(true);
        }
        let r = self.wait_loop(shared, (block, until), span, what, ready);
        if main && block {
            self.main_waits(false);
        }
        r
    }

    fn wait_loop(
        &mut self,
        shared: &Shared,
        (block, until): (bool, Option<Instant>),
        span: Span,
        what: &str,
        ready: impl Fn(&Kind) -> bool,
    ) -> Result<Waited, Diagnostic> {
        let interrupt = Arc::clone(&self.hooks.interrupt);
        let mut k = lock(&shared.kind);
        loop {
            if ready(&k) {
                return Ok(Waited::Ready);
            }
            if !block || until.is_some_and(|u| Instant::now() >= u) {
                return Ok(Waited::TimedOut);
            }
            if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::Interrupted.at(span));
            }
            let main = self.pid.is_none() && !self.rt.is_rank();
            if until.is_none() && main && !self.children_run() {
                return Err(Error::value_help(
                    format!(
                        "{what}() would wait forever: no process this program started is \
                         running to answer it (Python would hang here)"
                    ),
                    "start the process that answers it first, or pass `timeout=` (or \
                     `block=False`)",
                )
                .at(span));
            }
            k = shared
                .changed
                .wait_timeout(k, Duration::from_millis(20))
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        _ => 0,
    }
}
