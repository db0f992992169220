//! What `multiprocessing.Process` (and `torch.multiprocessing.Process`,
//! `stdlib/multiprocessing.py`) asks of the interpreter: start a process,
//! join it, ask whether it runs.
//!
//! A process is a thread with an interpreter and a runtime of its own, as
//! `spawn`'s ranks are (`distributed.rs`): copies of the session's
//! variables, its generators from the session's seed, a host clock of its
//! own, a process id of its own. Its target and arguments are its own
//! copies whose tensors share the session's memory and may write it (a
//! tensor pickled for a child by torch.multiprocessing is moved to shared
//! memory; `model.share_memory()` does so up front), so processes that
//! train one model passed to each update the same parameters, each with
//! gradients of its own: Hogwild. The session's other tensors it may read
//! and not write, as with `spawn`.
//!
//! Unlike `spawn`, processes start one `start()` at a time while the
//! session goes on, so the ones alive together share an open world
//! (`World::open`): they can form a process group with
//! `init_process_group(backend, rank=, world_size=)`, and when every one
//! waits for another while the session waits in `join()`, that is reported
//! (PyTorch would hang). What a process prints comes out when the session
//! joins one (in the order of the processes' host clocks); an error it
//! raises is printed as Python's child process prints it ("Process
//! Process-1:" and the report), and its `exitcode` is 1. Processes the
//! program never joins are joined when its source ends, as Python joins
//! its children at exit.

use std::sync::Arc;
use std::thread::JoinHandle;

use super::args::ArgVal;
use super::data::own_copy;
use super::distributed::{run_rank, session_memory, Body, Ended, Printed};
use super::value::Key;
use super::{Interp, Output, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::dispatch::world::World;
use crate::runtime::timeline::Lane;

/// The names this module answers.
pub const NAMES: [&str; 5] = [
    "_cudash.process_start",
    "_cudash.process_join",
    "_cudash.process_alive",
    "_cudash.process_name",
    "_cudash.process_number",
];

/// The processes this interpreter started.
#[derive(Default)]
pub(super) struct Processes {
    /// The world the live processes share; a new one once none is live.
    world: Option<Arc<World>>,
    /// What they printed, at their host times, not yet shown.
    printed: Printed,
    /// Every process started, by handle.
    started: Vec<Started>,
}

struct Started {
    name: String,
    /// Its seat in its world (a lane of `profile`).
    rank: usize,
    world: Arc<World>,
    /// Its thread, until joined.
    thread: Option<JoinHandle<Ended>>,
    /// Once joined: 0, or 1 when it raised, or what `sys.exit` gave.
    exitcode: Option<i64>,
}

impl Interp {
    pub(super) fn call_processes(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let arg = |i: usize| args.get(i).map(|a| a.value.clone()).unwrap_or(Value::None);
        match name {
            "_cudash.process_start" => {
                let name = match arg(3) {
                    Value::Str(s) => s.to_string(),
                    _ => "Process".to_string(),
                };
                // Whether the target and its arguments are pickled (every
                // start method but `fork`).
                let pickled = !matches!(arg(4), Value::Bool(b) if !b.get());
                let call = (arg(0), arg(1), arg(2));
                let (handle, pid) = self.start_process(call, name, pickled, span)?;
                Ok(Value::List(Arc::new(vec![
                    Value::Int(handle as i64),
                    Value::Int(i64::from(pid)),
                ])))
            }
            "_cudash.process_join" => {
                let handle = self.process_handle(&arg(0), span)?;
                let timeout = match arg(1) {
                    Value::Int(n) => Some(n as f64),
                    Value::Float(x) => Some(x.get()),
                    _ => None,
                };
                self.join_process(handle, timeout, span)?;
                Ok(self.processes.started[handle]
                    .exitcode
                    .map_or(Value::None, Value::Int))
            }
            // The next process's number (`Process-3`), counted with
            // `spawn`'s ranks.
            "_cudash.process_number" => {
                self.processes_named += 1;
                Ok(Value::Int(i64::from(self.processes_named)))
            }
            // This interpreter's process: its name (none: the main one).
            "_cudash.process_name" => Ok(self
                .process_name
                .as_ref()
                .map_or(Value::None, |n| Value::Str(Arc::new(n.clone())))),
            _ => {
                let handle = self.process_handle(&arg(0), span)?;
                let p = &self.processes.started[handle];
                Ok(Value::bool(
                    p.thread.as_ref().is_some_and(|t| !t.is_finished()),
                ))
            }
        }
    }

    fn process_handle(&self, v: &Value, span: Span) -> Result<usize, Diagnostic> {
        match v {
            Value::Int(n) if (*n as usize) < self.processes.started.len() => Ok(*n as usize),
            _ => Err(Error::value("no process has this handle").at(span)),
        }
    }

    /// Starts `target(*args, **kwargs)` in a process of its own; gives its
    /// handle and its process id.
    fn start_process(
        &mut self,
        (target, args, kwargs): (Value, Value, Value),
        name: String,
        pickled: bool,
        span: Span,
    ) -> Result<(usize, u32), Diagnostic> {
        if self.rt.is_rank() || self.pid.is_some() || self.worker_info.is_some() {
            return Err(Error::value_help(
                "a process cannot start processes of its own in cudash",
                "start every process from the main program (`if __name__ == \"__main__\":`)",
            )
            .at(span));
        }
        // The child's own copies, as unpickled from what the parent sent
        // (a bound method's object with it).
        let target = match &target {
            Value::Method(m) => Value::Method(Arc::new((own_copy(&m.0), Arc::clone(&m.1)))),
            other => own_copy(other),
        };
        let args: Vec<Value> = args
            .items()
            .map(|xs| xs.iter().map(own_copy).collect())
            .unwrap_or_default();
        let kwargs: Vec<(String, Value)> = match &kwargs {
            Value::Dict(d) => d
                .items()
                .iter()
                .filter_map(|(k, v)| match k {
                    Key::Str(k) => Some((k.clone(), own_copy(v))),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let vars: Vec<(String, Value)> = self
            .main_table()
            .iter()
            .map(|(name, v)| (name.clone(), own_copy(v)))
            .collect();
        let mut passed: Vec<Value> = args.clone();
        passed.extend(kwargs.iter().map(|(_, v)| v.clone()));
        if let Value::Method(m) = &target {
            passed.push(m.0.clone());
        }
        passed.push(target.clone());
        if pickled {
            self.refuse_expandable_sharing(&passed, span)?;
        }
        let shared = session_memory(&vars, &passed);
        let world = match &self.processes.world {
            Some(w) if w.live() => Arc::clone(w),
            _ => {
                let w = World::open(Arc::clone(&self.hooks.interrupt));
                self.processes.world = Some(Arc::clone(&w));
                w
            }
        };
        let rank = world.add_rank();
        let pid = self.next_pids(1);
        let mut from = self.rank_start(
            (rank, pid),
            (Arc::clone(&world), shared),
            (vars, super::environ::env_snapshot()),
            Arc::clone(&self.processes.printed),
        );
        from.name = name.clone();
        let body = Body::Target(target, args, kwargs);
        let thread = std::thread::Builder::new()
            .name(name.clone())
            .stack_size(crate::INTERPRETER_STACK)
            .spawn(move || run_rank(from, &body, span))
            .map_err(|e| Error::value(format!("could not start a process: {e}")).at(span))?;
        self.processes.started.push(Started {
            name,
            rank,
            world,
            thread: Some(thread),
            exitcode: None,
        });
        Ok((self.processes.started.len() - 1, pid))
    }

    /// `p.join(timeout)`: waits until process `handle` has ended (or
    /// `timeout` seconds of the wall clock have passed), then shows what
    /// the processes printed.
    fn join_process(
        &mut self,
        handle: usize,
        timeout: Option<f64>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let p = &mut self.processes.started[handle];
        let Some(thread) = p.thread.take() else {
            return Ok(());
        };
        if let Some(secs) = timeout {
            let until =
                std::time::Instant::now() + std::time::Duration::from_secs_f64(secs.max(0.0));
            while !thread.is_finished() && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            if !thread.is_finished() {
                p.thread = Some(thread);
                self.show_printed();
                return Ok(());
            }
        }
        let (world, name, rank) = (Arc::clone(&p.world), p.name.clone(), p.rank);
        world.session_waits(true);
        let ended = thread
            .join()
            .unwrap_or_else(|_| Ended::panicked(span, self.rt.host_now()));
        world.session_waits(false);
        self.show_printed();
        if let Some(t) = ended.timeline {
            self.rt.absorb_timeline(t, Lane::Rank(rank as u32), &name);
        }
        self.rt.counters.add(&ended.counters);
        self.rt.host_wait_until("join", ended.host, &name);
        let code = match ended.result {
            Ok(_) => 0,
            Err(d) if matches!(d.error, Error::Interrupted) => {
                self.processes.started[handle].exitcode = Some(-2);
                return Err(d);
            }
            Err(d) => match d.error.exit_code() {
                Some(code) => i64::from(code),
                None => {
                    let report = self.report_text(&d);
                    self.emit(Output::Stderr(format!("Process {name}:\n{report}")));
                    1
                }
            },
        };
        self.processes.started[handle].exitcode = Some(code);
        Ok(())
    }

    /// What the processes printed so far, in the order of their host clocks.
    fn show_printed(&mut self) {
        let printed = Arc::clone(&self.processes.printed);
        self.emit_printed(&printed);
    }

    /// The main program waits (in a queue's `get`, a lock's `acquire`) or
    /// goes on: while it waits, processes that all wait for one another
    /// are stalled (as while it waits in `join()`).
    pub(super) fn main_waits(&self, waits: bool) {
        if let Some(w) = &self.processes.world {
            w.session_waits(waits);
        }
    }

    /// Whether a process this interpreter started still runs.
    pub(super) fn children_run(&self) -> bool {
        self.processes
            .started
            .iter()
            .any(|p| p.thread.as_ref().is_some_and(|t| !t.is_finished()))
    }

    /// Joins every process started and not joined (a source's end, as
    /// Python joins its children at exit).
    pub fn join_processes(&mut self) {
        let span = Span::from(0..0);
        for handle in 0..self.processes.started.len() {
            if self.join_process(handle, None, span).is_err() {
                break;
            }
        }
    }

    /// `d` as a report of the running source's (or the one it names).
    fn report_text(&self, d: &Diagnostic) -> String {
        let source = d.source.as_ref().or(self.source.as_ref());
        match source {
            Some(s) => crate::diag::render(d, &s.name, &s.text, false),
            None => format!("{}\n", d.error),
        }
    }
}
