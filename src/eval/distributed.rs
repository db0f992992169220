//! `torch.multiprocessing.spawn` and `torch.distributed`'s process group
//! (`runtime/dispatch/group.rs`, `world.rs`).
//!
//! `spawn(f, args, nprocs)` runs `f(rank, *args)` once per rank, each in a
//! thread with an interpreter and a runtime of its own, as PyTorch's
//! spawned processes are: its variables are copies of the session's (a
//! spawned process re-creates its module's), its generators start afresh
//! from the session's seed, no device is current until it sets one, and
//! its host has a clock of its own, drawn on a lane of its own in
//! `profile` (processes share no GIL, unlike DataParallel's replicas). The
//! devices and their allocators are the session's. `spawn` returns when
//! every rank has returned; what they printed comes in the order of their
//! host clocks. An error in a rank ends the others at their next
//! collective, and `spawn` raises it as PyTorch's `ProcessRaisedException`.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use super::args::{ArgVal, Bound};
use super::data::own_copy;
use super::environ::OwnEnv;
use super::value::{Function, Value};
use super::{Interp, Output};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Stmt;
use crate::lang::Span;
use crate::runtime::alloc::history::OwnFrame;
use crate::runtime::dispatch::collective::RedOp;
use crate::runtime::dispatch::group::Work;
use crate::runtime::dispatch::world::{Collective, World};
use crate::runtime::dispatch::Runtime;
use crate::runtime::host_clock::{HostClock, OwnClock};
use crate::runtime::lock::lock;
use crate::runtime::timeline::Lane;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// What a rank printed, at its host time.
/// A copy of the session's variables, as a rank or a process holds it.
pub(super) type Vars = Vec<(String, Value)>;

pub(super) type Printed = Arc<Mutex<Vec<(f64, usize, Output)>>>;

/// What a rank's thread gives back: its result, its timeline, its clock.
pub(super) struct Ended {
    pub(super) result: Result<Value, Diagnostic>,
    pub(super) timeline: Option<crate::runtime::timeline::Timeline>,
    pub(super) counters: crate::runtime::counters::Counters,
    pub(super) host: f64,
}

impl Ended {
    /// A thread that stopped without its result (a bug).
    pub(super) fn panicked(span: Span, host: f64) -> Ended {
        Ended {
            result: Err(panicked(span)),
            timeline: None,
            counters: Default::default(),
            host,
        }
    }
}

/// `spawn(fn, args=(), nprocs=1, join=true)`.
pub(super) fn spawn(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let f = match b.get("fn") {
        Some((Value::Function(f), _)) => Arc::clone(f),
        Some((other, span)) => {
            return Err(Error::wrong_type(
                "the function spawn runs",
                "a function of the rank (`fn main_worker(rank, world_size) { ... }`)",
                other.type_name(),
            )
            .at(*span))
        }
        None => return Err(Error::value("spawn() needs the function to run").at(b.span)),
    };
    let args = match b.given("args") {
        None => Vec::new(),
        Some((v @ (Value::List(_) | Value::MutList(_)), _)) => {
            v.items().map(|xs| xs.to_vec()).unwrap_or_default()
        }
        // `args=[4]`: a list literal of numbers is a tensor here.
        Some((Value::Tensor(t), _)) if t.ndim() == 1 && !t.device().is_cuda() => match t.dtype() {
            d if d.is_int() => t.to_vec::<i64>().into_iter().map(Value::Int).collect(),
            _ => t.to_vec::<f64>().into_iter().map(Value::float).collect(),
        },
        Some((other, span)) => {
            return Err(Error::wrong_type(
                "spawn's `args`",
                "a tuple of the arguments after the rank (`args=(world_size,)`)",
                other.type_name(),
            )
            .at(*span))
        }
    };
    let nprocs = b.int("nprocs")?.unwrap_or(1);
    if nprocs < 1 {
        return Err(Error::value(format!(
            "nprocs is a count of processes (1 or more), not {nprocs}"
        ))
        .at(b.span_of("nprocs")));
    }
    if !b.bool("join", true)? {
        return Err(Error::value_help(
            "cudash's spawn always waits for its ranks (join=true)",
            "PyTorch's join=false gives a ProcessContext to join later; here spawn returns when \
             every rank has returned",
        )
        .at(b.span_of("join")));
    }
    me.spawn_ranks(f, args, nprocs as usize, b.span)
}

/// What each rank runs: `spawn`'s function, `cudash launch`'s script, or
/// a `Process`'s target.
pub(super) enum Body {
    /// `f(rank, *args)`.
    Call(Arc<Function>, Vec<Value>),
    /// A whole script's statements, with torchrun's environment.
    Script(Arc<Vec<Stmt>>),
    /// `target(*args, **kwargs)` (the process's own copies).
    Target(Value, Vec<Value>, Vec<(String, Value)>),
}

impl Interp {
    /// Runs `f(rank, *args)` in `n` ranks; returns once all have.
    fn spawn_ranks(&mut self, f: Arc<Function>, args: Vec<Value>, n: usize, span: Span) -> Out {
        if self.rt.is_rank() {
            return Err(Error::value_help(
                "a rank cannot spawn ranks of its own",
                "call spawn from the session; each rank it starts runs the function once",
            )
            .at(span));
        }
        self.refuse_expandable_sharing(&args, span)?;
        let results = self.run_ranks(Body::Call(f, args), n, span);
        raise_first(results, span)
    }

    /// `cudash launch --nproc-per-node n script`: the script's statements
    /// run in `n` ranks, as torchrun's processes run a script, each with
    /// `RANK`, `LOCAL_RANK`, `WORLD_SIZE` ... in its `os.environ`. Returns
    /// the first rank's own error, with its rank.
    pub fn launch_ranks(&mut self, stmts: Vec<Stmt>, n: usize) -> Result<(), (usize, Diagnostic)> {
        let span = Span::from(0..0);
        let results = self.run_ranks(Body::Script(Arc::new(stmts)), n, span);
        match raise_first(results, span) {
            Err(d) => match d.error {
                Error::Process { rank, ref error } => Err((rank, (**error).clone())),
                _ => Err((0, d)),
            },
            Ok(_) => Ok(()),
        }
    }

    /// Runs `body` in `n` ranks, each a thread with an interpreter and a
    /// runtime of its own; returns their results once all have ended.
    fn run_ranks(&mut self, body: Body, n: usize, span: Span) -> Vec<Result<Value, Diagnostic>> {
        let world = World::new(n, Arc::clone(&self.hooks.interrupt));
        let vars: Vec<(String, Value)> = self
            .main_table()
            .iter()
            .map(|(name, v)| (name.clone(), own_copy(v)))
            .collect();
        let args: &[Value] = match &body {
            Body::Call(_, args) => args,
            Body::Script(_) | Body::Target(..) => &[],
        };
        let shared = session_memory(&vars, args);
        let printed: Printed = Arc::default();
        let start = self.rt.host_now();
        let first_pid = self.next_pids(n);
        let first_name = self.processes_named;
        self.processes_named += n as u32;
        self.begin_op("spawn");
        let body = &body;
        let ended: Vec<Ended> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|rank| {
                    // Each rank a copy of its own, as each process of
                    // `mp.spawn` has: a rank's `net.to(rank)` moves its own.
                    let vars: Vec<(String, Value)> = match rank {
                        0 => vars.clone(),
                        _ => vars
                            .iter()
                            .map(|(name, v)| (name.clone(), own_copy(v)))
                            .collect(),
                    };
                    let env = match body {
                        Body::Script(_) => torchrun_env(rank, n),
                        _ => Vec::new(),
                    };
                    let mut from = self.rank_start(
                        (rank, first_pid + rank as u32),
                        (Arc::clone(&world), shared.clone()),
                        (vars, env),
                        Arc::clone(&printed),
                    );
                    from.start = start;
                    from.name = format!("SpawnProcess-{}", first_name as usize + rank + 1);
                    std::thread::Builder::new()
                        .name(format!("rank {rank}"))
                        .stack_size(crate::INTERPRETER_STACK)
                        .spawn_scoped(s, move || run_rank(from, body, span))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(h) => h.join().unwrap_or_else(|_| Ended::panicked(span, start)),
                    Err(_) => Ended::panicked(span, start),
                })
                .collect()
        });
        self.emit_printed(&printed);
        let mut latest = start;
        let mut results = Vec::with_capacity(n);
        for (rank, e) in ended.into_iter().enumerate() {
            if let Some(t) = e.timeline {
                self.rt
                    .absorb_timeline(t, Lane::Rank(rank as u32), &format!("rank {rank}"));
            }
            latest = latest.max(e.host);
            self.rt.counters.add(&e.counters);
            results.push(e.result);
        }
        self.rt.host_wait_until("spawn", latest, "the ranks");
        results
    }
}

impl Interp {
    /// What ranks or processes printed so far, in the order of their host
    /// clocks (a rank's own lines in their order).
    pub(super) fn emit_printed(&mut self, printed: &Printed) {
        let mut printed = std::mem::take(&mut *lock(printed));
        printed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (_, _, o) in printed {
            self.emit(o);
        }
    }
}

/// What a rank's thread starts from: a copy of the session's variables,
/// its seat in `world`, where its printed lines go.
pub(super) struct RankStart {
    rank: usize,
    pid: u32,
    /// Its process's name (`current_process().name`).
    pub(super) name: String,
    world: Arc<World>,
    /// The session's memory the rank may not write (`session_memory`).
    shared: HashSet<usize>,
    vars: Vec<(String, Value)>,
    /// The number of the session's table the copies come from (its
    /// functions name it as their home).
    home: u64,
    env: Vec<(String, String)>,
    printed: Printed,
    devices: Arc<crate::runtime::devices::Devices>,
    seed: u64,
    origin: Option<f64>,
    start: f64,
    grad: crate::autograd::Mode,
    source: Option<Arc<crate::error::Source>>,
    interrupt: Arc<std::sync::atomic::AtomicBool>,
}

impl Interp {
    /// Where rank `rank` (process id `pid`) of `world` starts, from this
    /// session: its generators from the session's seed, its host clock at
    /// the session's now.
    pub(super) fn rank_start(
        &self,
        (rank, pid): (usize, u32),
        (world, shared): (Arc<World>, HashSet<usize>),
        (vars, env): (Vars, Vec<(String, String)>),
        printed: Printed,
    ) -> RankStart {
        RankStart {
            rank,
            pid,
            name: format!("SpawnProcess-{}", rank + 1),
            world,
            shared,
            vars,
            home: self.main_table().number(),
            env,
            printed,
            devices: Arc::clone(&self.rt.devices),
            seed: self.rt.generators.seed(),
            origin: self.rt.timeline_origin(),
            start: self.rt.host_now(),
            grad: self.grad,
            source: self.source.clone(),
            interrupt: Arc::clone(&self.hooks.interrupt),
        }
    }

    /// `n` process ids for the ranks or processes about to start (this
    /// process's own, plus a count, as a spawned child's differs).
    pub(super) fn next_pids(&mut self, n: usize) -> u32 {
        let first = std::process::id() + 1 + self.children_started;
        self.children_started += n as u32;
        first
    }
}

/// One rank's life on its own thread: an interpreter and a runtime of its
/// own run `body`; what it printed goes to `from.printed` at its host time.
pub(super) fn run_rank(from: RankStart, body: &Body, span: Span) -> Ended {
    let RankStart {
        rank,
        pid,
        name,
        world,
        shared,
        vars,
        home,
        env,
        printed,
        devices,
        seed,
        origin,
        start,
        grad,
        source,
        interrupt,
    } = from;
    let _clock = OwnClock::install(Arc::new(HostClock::at(start)));
    let _streams = crate::runtime::stream::Process::enter();
    let _frame = OwnFrame::install();
    let _env = OwnEnv::install(env);
    let mut rt = Runtime::new(seed, Arc::clone(&devices));
    rt.enter_world(Arc::clone(&world), rank, shared);
    if let Some(o) = origin {
        rt.follow_timeline(o);
    }
    let mut order = 0;
    let sink = move |o: Output| {
        let at = devices.host_time();
        lock(&printed).push((at, rank * 1_000_000 + order, o));
        order += 1;
    };
    let hooks = super::Hooks {
        interrupt,
        sink: Some(Box::new(sink)),
        ..super::Hooks::default()
    };
    let mut it = Interp::with_globals(rt, hooks, vars);
    // The session's functions name its table: the rank's copy (also when
    // a module's function calls one back).
    it.module_alias.push((home, it.vars.number()));
    it.grad = grad;
    it.echo = false;
    it.source = source;
    it.pid = Some(pid);
    it.process_name = Some(name);
    let run = |it: &mut Interp| match body {
        Body::Call(f, args) => {
            let mut call = vec![ArgVal::positional(Value::Int(rank as i64), span)];
            call.extend(args.iter().map(|v| ArgVal::positional(own_copy(v), span)));
            it.call_function(Arc::clone(f), call, span)
        }
        Body::Target(target, args, kwargs) => {
            let mut call: Vec<ArgVal> = args
                .iter()
                .map(|v| ArgVal::positional(v.clone(), span))
                .collect();
            call.extend(kwargs.iter().map(|(k, v)| ArgVal {
                keyword: Some(crate::lang::ast::Name::new(k.clone(), span)),
                value: v.clone(),
                span,
            }));
            it.call_value(target.clone(), call, span)
        }
        Body::Script(stmts) => {
            for stmt in stmts.iter() {
                it.run_top(stmt)?;
            }
            it.end_open_line();
            Ok(Value::None)
        }
    };
    let result =
        catch_unwind(AssertUnwindSafe(|| run(&mut it))).unwrap_or_else(|_| Err(panicked(span)));
    it.flush_notes();
    world.ended(rank, result.is_ok());
    Ended {
        result,
        timeline: it.rt.take_timeline(),
        counters: it.rt.counters.clone(),
        host: it.rt.host_now(),
    }
}

/// torchrun's environment for rank `rank` of `n` on one node (what
/// `torch.distributed.run` sets for each worker).
fn torchrun_env(rank: usize, n: usize) -> Vec<(String, String)> {
    let vars = [
        ("RANK", rank.to_string()),
        ("LOCAL_RANK", rank.to_string()),
        ("GROUP_RANK", "0".into()),
        ("ROLE_RANK", rank.to_string()),
        ("ROLE_NAME", "default".into()),
        ("WORLD_SIZE", n.to_string()),
        ("LOCAL_WORLD_SIZE", n.to_string()),
        ("ROLE_WORLD_SIZE", n.to_string()),
        ("MASTER_ADDR", "127.0.0.1".into()),
        ("MASTER_PORT", "29500".into()),
        ("TORCHELASTIC_RESTART_COUNT", "0".into()),
        ("TORCHELASTIC_MAX_RESTARTS", "0".into()),
        ("TORCHELASTIC_RUN_ID", "none".into()),
        ("OMP_NUM_THREADS", "1".into()),
    ];
    vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The first rank's own error (not one that another's ended), as
/// PyTorch's `ProcessRaisedException`.
fn raise_first(results: Vec<Result<Value, Diagnostic>>, span: Span) -> Out {
    let failed: Vec<(usize, Diagnostic)> = results
        .into_iter()
        .enumerate()
        .filter_map(|(r, res)| res.err().map(|d| (r, d)))
        .collect();
    if let Some((_, d)) = failed
        .iter()
        .find(|(_, d)| matches!(d.error, Error::Interrupted))
    {
        return Err(d.clone());
    }
    let own = failed
        .iter()
        .position(|(_, d)| !is_consequence(&d.error))
        .unwrap_or(0);
    match failed.into_iter().nth(own) {
        Some((rank, d)) => Err(Error::Process {
            rank,
            error: Box::new(d),
        }
        .at_or_where_raised(span)),
        None => Ok(Value::None),
    }
}

/// An error a rank got because another one failed.
fn is_consequence(e: &Error) -> bool {
    matches!(e, Error::Distributed { message, .. } if message.contains("raised an error, so"))
}

fn panicked(span: Span) -> Diagnostic {
    Error::value("a rank's thread stopped unexpectedly (a bug in cudash)").at(span)
}

/// The memory of the session's tensors a rank sees in `vars` (its
/// modules' and objects' too), less what `args` passes it (shared, as a
/// spawned process's arguments are).
pub(super) fn session_memory(vars: &[(String, Value)], args: &[Value]) -> HashSet<usize> {
    let mut memory = HashSet::new();
    for (_, v) in vars {
        tensors_held(v, &mut |t| {
            memory.insert(t.storage_id());
        });
    }
    for v in args {
        tensors_held(v, &mut |t| {
            memory.remove(&t.storage_id());
        });
    }
    memory
}

impl Interp {
    /// PyTorch's refusal to send another process a CUDA tensor from an
    /// expandable segment (its IPC handle cannot be had: `getBaseAllocation`).
    pub(super) fn refuse_expandable_sharing(
        &self,
        values: &[Value],
        span: Span,
    ) -> Result<(), Diagnostic> {
        let mut expandable = false;
        for v in values {
            tensors_held(v, &mut |t| {
                let (crate::vocab::Device::Cuda(d), Some(b)) =
                    (t.device(), t.memory().and_then(|m| m.block()))
                else {
                    return;
                };
                expandable |= self
                    .rt
                    .devices
                    .gpu(d)
                    .is_some_and(|g| g.allocator.in_expandable_segment(&b));
            });
        }
        match expandable {
            false => Ok(()),
            true => Err(Error::runtime(
                "Tensors allocated with expandable_segments:True cannot be shared between processes. \
                 Consider using expandable_segments:False in data loading workers via \
                 torch.cuda.memory._set_allocator_settings('expandable_segments:False')",
            )
            .at(span)),
        }
    }
}

/// Calls `f` with every tensor `v` holds: in lists and dicts, a module's
/// parameters and buffers, an instance's attributes, at any depth.
fn tensors_held(v: &Value, f: &mut dyn FnMut(&Tensor)) {
    fn walk(v: &Value, f: &mut dyn FnMut(&Tensor), seen: &mut HashSet<usize>) {
        v.each_tensor(f);
        v.any_inside(&mut |x| {
            match x {
                Value::Module(m) if seen.insert(Arc::as_ptr(m) as *const () as usize) => {
                    let (params, buffers) = crate::nn::parallel::parameters_and_buffers(m);
                    params.iter().chain(&buffers).for_each(|t| f(t));
                    if let Some(o) = super::value::object_of(m) {
                        let attrs = lock(&o.attrs).clone();
                        attrs.iter().for_each(|(_, a)| walk(a, f, seen));
                    }
                }
                Value::Object(o) if seen.insert(Arc::as_ptr(o) as usize) => {
                    let attrs = lock(&o.attrs).clone();
                    attrs.iter().for_each(|(_, a)| walk(a, f, seen));
                }
                _ => {}
            }
            false
        });
    }
    walk(v, f, &mut HashSet::new())
}

/// The line of `span` in the running source, for a rank's report.
impl Interp {
    pub(super) fn line_of(&self, span: Span) -> Option<u32> {
        let text = &self.source.as_ref()?.text;
        let at = span.start.min(text.len());
        Some(text[..at].matches('\n').count() as u32 + 1)
    }
}

/// `init_process_group(backend=none, rank=none, world_size=none)`.
pub(super) fn init_process_group(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let backend = match b.str("backend")? {
        Some(s) => s,
        None => match me.rt.devices.count() {
            0 => "gloo".to_string(),
            _ => "nccl".to_string(),
        },
    };
    // env://: what `rank=` and `world_size=` leave out, RANK and
    // WORLD_SIZE say, where set.
    let env = |name: &str| super::environ::env_var(name).and_then(|v| v.trim().parse().ok());
    let rank = b.int("rank")?.or_else(|| env("RANK"));
    let size = b.int("world_size")?.or_else(|| env("WORLD_SIZE"));
    let line = me.line_of(b.span);
    me.rt
        .init_process_group(&backend, (rank, size), line)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// `get_rank()`, `get_world_size()`, `is_initialized()`,
/// `destroy_process_group()`, `barrier()`.
pub(super) fn group_query(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    group_arg(me, b)?;
    Ok(match name {
        "get_rank" => Value::Int(me.rt.process_group().map_err(at)?.0 as i64),
        "get_world_size" => Value::Int(me.rt.process_group().map_err(at)?.1 as i64),
        "is_initialized" => Value::bool(me.rt.is_initialized()),
        "destroy_process_group" => {
            me.rt.destroy_process_group().map_err(at)?;
            Value::None
        }
        _ => {
            let line = me.line_of(b.span);
            me.rt
                .collective(Collective::Barrier, None, &[], false, line)
                .map_err(at)?;
            Value::None
        }
    })
}

/// `send(tensor, dst)` and `recv(tensor, src)`; `isend` and `irecv`
/// post theirs and give a work handle that waits for it.
pub(super) fn send_recv(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let t = b.tensor("tensor")?;
    group_arg(me, b)?;
    let (key, sending) = match name {
        "send" | "isend" => ("dst", true),
        _ => ("src", false),
    };
    let peer = b.int(key)?.ok_or_else(|| {
        Error::value(format!("{name}() needs the other rank: `{key}=`")).at(b.span)
    })?;
    if peer < 0 {
        return Err(Error::value(format!("a rank is 0 or more, not {peer}")).at(b.span_of(key)));
    }
    let line = me.line_of(b.span);
    if name.starts_with('i') {
        let pending = me
            .rt
            .post_message(sending, &t, peer as usize, line)
            .map_err(|e| e.at(b.span))?;
        return Ok(Value::Work(Arc::new(Work {
            event: None,
            device: t.device(),
            message: pending,
        })));
    }
    me.rt
        .send_recv(sending, &t, peer as usize, line)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// A process-group collective of this rank's `tensor`: the event its
/// work handle waits for, with `async_op`.
pub(super) fn collective(
    me: &mut Interp,
    op: Collective,
    tensor: &Arc<Tensor>,
    outputs: &[Arc<Tensor>],
    b: &Bound,
) -> Out {
    group_arg(me, b)?;
    let async_op = b.bool("async_op", false)?;
    let line = me.line_of(b.span);
    let event = me
        .rt
        .collective(op, Some(tensor), outputs, async_op, line)
        .map_err(|e| e.at(b.span))?;
    Ok(match async_op {
        true => Value::Work(Arc::new(Work {
            event,
            device: tensor.device(),
            message: None,
        })),
        false => Value::None,
    })
}

/// `work.wait()`, `work.is_completed()`.
pub(super) fn work_method(me: &mut Interp, name: &'static str, w: &Arc<Work>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    // An isend or irecv: done once its other side has come.
    if let Some(m) = &w.message {
        return match name {
            "is_completed" => Ok(Value::bool(m.passed())),
            _ => {
                me.rt.finish_message(m).map_err(at)?;
                Ok(Value::bool(true))
            }
        };
    }
    // A gloo collective's work is done when the call returns.
    let Some(e) = &w.event else {
        return Ok(Value::bool(true));
    };
    match name {
        "is_completed" => Ok(Value::bool(e.recorded().is_none_or(|r| r.is_complete()))),
        _ => {
            let crate::runtime::Device::Cuda(d) = w.device else {
                return Ok(Value::bool(true));
            };
            let key = me.rt.stream_on(d);
            me.rt.wait_event(key, e).map_err(at)?;
            Ok(Value::bool(true))
        }
    }
}

/// `group=`: none (the world), or a group `new_group` made (whose ranks
/// are the world's: the only groups cudash makes).
pub(super) fn group_arg(_: &mut Interp, b: &Bound) -> Result<(), Diagnostic> {
    match b.given("group") {
        None | Some((Value::None, _)) => Ok(()),
        Some((Value::Object(o), _))
            if Arc::ptr_eq(&o.class, &super::value::process_group_class()) =>
        {
            Ok(())
        }
        Some((other, span)) => Err(Error::wrong_type(
            "`group`",
            "a process group (`dist.new_group(ranks)`) or None (the world)",
            other.type_name(),
        )
        .at(*span)),
    }
}

/// `new_group(ranks=None)`: a group of every rank of the world (PyTorch's
/// subgroups of some of the ranks are not in cudash).
pub(super) fn new_group(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (_, size) = me.rt.process_group().map_err(|e| e.at(b.span))?;
    let ranks: Vec<i64> = match b.given("ranks") {
        None | Some((Value::None, _)) => (0..size as i64).collect(),
        Some((v, span)) => {
            // `[0, 1]` in cudash's language is a tensor of ints.
            let listed = match v {
                Value::Tensor(t) if t.ndim() == 1 && t.dtype().is_int() => Some(Arc::new(
                    t.to_vec::<i64>()
                        .into_iter()
                        .map(Value::Int)
                        .collect::<Vec<_>>(),
                )),
                _ => v.items(),
            };
            let items = listed.ok_or_else(|| {
                Error::wrong_type("`ranks`", "a list of ranks", v.type_name()).at(*span)
            })?;
            let mut ranks = Vec::with_capacity(items.len());
            for x in items.iter() {
                match x {
                    Value::Int(r) => ranks.push(*r),
                    other => {
                        return Err(Error::wrong_type(
                            "an element of `ranks`",
                            "a rank (an int)",
                            other.type_name(),
                        )
                        .at(*span))
                    }
                }
            }
            ranks.sort_unstable();
            ranks.dedup();
            if ranks != (0..size as i64).collect::<Vec<_>>() {
                return Err(Error::NotAvailable {
                    message: format!(
                        "cudash's process groups are the whole world: new_group({ranks:?}) \
                         names {} of the {size} ranks",
                        ranks.len()
                    ),
                    help: "pass every rank (`new_group(list(range(world_size)))`) or use the \
                           default group (`group=None`); subgroups of some ranks are not in \
                           cudash"
                        .into(),
                }
                .at(*span));
            }
            ranks
        }
    };
    let o = super::value::Object::new(super::value::process_group_class());
    o.set(
        "ranks",
        Value::List(Arc::new(ranks.into_iter().map(Value::Int).collect())),
    );
    Ok(Value::Object(Arc::new(o)))
}

/// `reduce(tensor, dst, op)`, `gather(tensor, gather_list, dst)` and
/// `scatter(tensor, scatter_list, src)`: collectives with a root rank.
pub(super) fn rooted(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let t = b.tensor("tensor")?;
    group_arg(me, b)?;
    let (root_key, list_key) = match name {
        "reduce" => ("dst", None),
        "dist_gather" => ("dst", Some("gather_list")),
        _ => ("src", Some("scatter_list")),
    };
    let root = match b.int(root_key)? {
        Some(r) if r >= 0 => r as usize,
        Some(r) => {
            return Err(
                Error::value(format!("{root_key} is a rank, not {r}")).at(b.span_of(root_key))
            )
        }
        // PyTorch's gather and scatter default to rank 0; reduce needs it.
        None if name != "reduce" => 0,
        None => {
            return Err(
                Error::value("reduce() needs the rank that gets the result: `dst=`").at(b.span),
            )
        }
    };
    let rank = me.rt.process_group().map_err(|e| e.at(b.span))?.0;
    let mut list = Vec::new();
    if let Some(key) = list_key {
        let given = b.given(key).filter(|(v, _)| !matches!(v, Value::None));
        let (what, role) = match name {
            "dist_gather" => ("destination", "dst"),
            _ => ("source", "src"),
        };
        match (given, rank == root) {
            (None, true) => {
                return Err(Error::value(format!(
                    "Argument ``{key}`` must be specified on {what} rank."
                ))
                .at(b.span))
            }
            (Some((_, span)), false) => {
                return Err(Error::value_help(
                    format!("Argument ``{key}`` must NOT be specified on non-{what} ranks."),
                    format!("pass `{key}` only where rank == {role}, None elsewhere"),
                )
                .at(*span))
            }
            (Some((v, span)), true) => {
                let items = v.items().ok_or_else(|| {
                    Error::wrong_type(format!("`{key}`"), "a list of tensors", v.type_name())
                        .at(*span)
                })?;
                for x in items.iter() {
                    list.push(super::args::to_tensor(x).ok_or_else(|| {
                        Error::wrong_type(
                            format!("an element of `{key}`"),
                            "a tensor",
                            x.type_name(),
                        )
                        .at(*span)
                    })?);
                }
            }
            (None, false) => {}
        }
    }
    let op = match name {
        "reduce" => Collective::Reduce {
            dst: root,
            op: red_op(b)?,
        },
        "dist_gather" => Collective::Gather { dst: root },
        _ => Collective::Scatter { src: root },
    };
    collective(me, op, &t, &list, b)
}

/// `op=`: one of NCCL's reductions, by name.
pub(crate) fn red_op(b: &Bound) -> Result<RedOp, Diagnostic> {
    let Some((v, span)) = b.given("op") else {
        return Ok(RedOp::Sum);
    };
    let name = match v {
        Value::Str(s) => s.to_lowercase(),
        other => {
            return Err(Error::wrong_type("`op`", "a string", other.type_name()).at(*span));
        }
    };
    RedOp::from_name(&name).ok_or_else(|| {
        Error::value_help(
            format!("there is no reduction `{name}`"),
            format!(
                "op is one of {}",
                RedOp::NAMES.map(|n| format!("\"{n}\"")).join(", ")
            ),
        )
        .at(*span)
    })
}
