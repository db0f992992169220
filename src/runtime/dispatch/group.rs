//! `torch.distributed`'s default process group on the op layer: a rank
//! joins it (`init_process_group`) and calls each collective with its own
//! tensor; the rendezvous (`world.rs`) gathers every rank's entry, and the
//! rank that completes it runs the runtime's collective over all of them.
//!
//! - **Streams**, as PyTorch's NCCL group: each rank queues its collectives
//!   on a stream of its own device named `nccl`, which first waits for the
//!   rank's current stream; a blocking call then makes the current stream
//!   wait for it (PyTorch's `work.wait()`: the host goes on), and
//!   `async_op=true` gives the event to wait on instead. The ring itself
//!   runs after every rank's stream reached it, as NCCL's kernels do.
//! - **Host time**: a rank's host is not held by a collective (NCCL's are
//!   asynchronous), except `barrier`, which waits until every rank has
//!   reached it and its device work before it is done.
//! - **gloo** reduces CPU tensors on the host, in the ring's order.

use std::collections::HashSet;
use std::sync::Arc;

use super::collective::reduce_on_host;
use super::device::{driver_error, no_driver};
use super::world::{distributed, Backend, Collective, Done, Post, Share, Side, Turn, World};
use super::Runtime;
use crate::error::Error;
use crate::runtime::counters::Counters;
use crate::runtime::event::Event;
use crate::runtime::op::index;
use crate::runtime::spec::HOST;
use crate::runtime::stream::StreamKey;
use crate::runtime::timeline::{Kind, Lane, Timeline};
use crate::runtime::{timing, Device, Tensor};

/// A runtime's place among the ranks of a `spawn` (or the session's own
/// group of one).
pub struct Member {
    pub world: Arc<World>,
    /// Its index among the ranks spawned.
    pub me: usize,
    joined: Option<Joined>,
    /// A rank `spawn` started (not the session's group of one).
    pub spawned: bool,
    /// The memory of the session's tensors, which a rank reads but may
    /// not change (`Tensor::storage_id`).
    pub(super) shared: HashSet<usize>,
    /// While this rank runs a collective of an NCCL group for every rank:
    /// the group whose ranks' own communicators it runs on.
    pub(super) ranked_comms: Option<u64>,
}

/// The process group, once joined.
struct Joined {
    rank: usize,
    size: usize,
    backend: Backend,
    /// Collectives called so far.
    seq: u64,
    /// Each device's `nccl` stream, once used.
    comm: Vec<StreamKey>,
    /// Messages sent to each rank, and received from each, so far.
    sent: Vec<u64>,
    received: Vec<u64>,
    /// The group's id (its NCCL communicators' key).
    group: u64,
    /// Whether the collectives run on NCCL communicators of the ranks' own
    /// (a GPU's driver with NCCL), and whether this rank has made its own.
    nccl: Option<bool>,
}

impl Member {
    pub fn new(world: Arc<World>, me: usize, shared: HashSet<usize>) -> Member {
        Member {
            world,
            me,
            joined: None,
            spawned: false,
            shared,
            ranked_comms: None,
        }
    }
}

/// What a collective with `async_op=true` returns (PyTorch's `Work`):
/// `wait()` makes the current stream wait for its event. An `isend` or
/// `irecv` not yet met by its other side holds its message instead.
pub struct Work {
    pub event: Option<Arc<Event>>,
    pub device: Device,
    pub message: Option<PendingMessage>,
}

/// A message one side has posted (`isend`, `irecv`) and the other not yet.
pub struct PendingMessage {
    world: Arc<World>,
    me: usize,
    key: (usize, usize, u64),
    what: String,
    line: Option<u32>,
    stream: Option<StreamKey>,
    device: Device,
}

impl PendingMessage {
    /// Whether the other side has come and the message has passed.
    pub fn passed(&self) -> bool {
        self.world.has_passed(self.key)
    }
}

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<torch.distributed.Work on {}>", self.device)
    }
}

fn not_initialized() -> Error {
    Error::Value {
        message: "Default process group has not been initialized, please make sure to call \
                  init_process_group."
            .into(),
        help: Some(
            "call `init_process_group(\"nccl\", rank=rank, world_size=n)` first, in each rank \
             that `spawn` starts"
                .into(),
        ),
    }
}

impl Runtime {
    /// This runtime is rank `me` of `world` (a rank `spawn` started);
    /// `shared` is the memory of the session's tensors.
    pub fn enter_world(&mut self, world: Arc<World>, me: usize, shared: HashSet<usize>) {
        let mut m = Member::new(world, me, shared);
        m.spawned = true;
        self.dist = Some(m);
    }

    /// The devices `profile` and `time` look at: a rank's own (its current
    /// device: a process sees its own work), else every one.
    pub(super) fn profiled_devices(&self) -> std::ops::Range<u32> {
        match self.is_rank() {
            true if self.devices.count() > 0 => self.current_device..self.current_device + 1,
            _ => 0..self.devices.count(),
        }
    }

    /// Whether this runtime is a rank `spawn` started.
    pub fn is_rank(&self) -> bool {
        self.dist.as_ref().is_some_and(|m| m.spawned)
    }

    /// `init_process_group(backend, rank=, world_size=)`: joins the group,
    /// and returns once every rank has. Outside `spawn` the session is a
    /// group of one. `line` is where the rank calls it (for a report).
    pub fn init_process_group(
        &mut self,
        backend: &str,
        (rank, size): (Option<i64>, Option<i64>),
        line: Option<u32>,
    ) -> Result<(), Error> {
        if self.dist.as_ref().is_some_and(|m| m.joined.is_some()) {
            return Err(Error::value_help(
                "trying to initialize the default process group twice!",
                "each rank calls init_process_group once (destroy_process_group ends it)",
            ));
        }
        let backend = match backend {
            "nccl" => Backend::Nccl,
            "gloo" => Backend::Gloo,
            other => {
                return Err(Error::value_help(
                    format!("Invalid backend: '{other}'"),
                    "cudash's process groups are \"nccl\" (CUDA tensors, one device per rank) \
                     and \"gloo\" (CPU tensors)",
                ))
            }
        };
        if self.dist.is_none() {
            let world = World::new(1, Arc::clone(&self.interrupt));
            self.dist = Some(Member::new(world, 0, HashSet::new()));
        }
        let (world, me) = match &self.dist {
            Some(m) => (Arc::clone(&m.world), m.me),
            None => unreachable!("set above"),
        };
        // A process `Process` started says its rank and the group's size
        // (or env://'s RANK and WORLD_SIZE say them).
        let (size, rank) = match world.open {
            true => {
                let need = |v: Option<i64>, name: &str| {
                    v.ok_or_else(|| {
                        Error::value_help(
                            format!(
                                "Error initializing torch.distributed using env:// rendezvous: \
                                 environment variable {name} expected, but not set"
                            ),
                            "a process that Process started passes its rank and the group's \
                             size: `init_process_group(backend, rank=rank, world_size=n)`",
                        )
                    })
                };
                (need(size, "WORLD_SIZE")?, need(rank, "RANK")?)
            }
            false => (size.unwrap_or(world.size as i64), rank.unwrap_or(me as i64)),
        };
        if size < 1 {
            return Err(Error::value(format!(
                "world_size is a count of ranks (1 or more), not {size}"
            )));
        }
        if rank < 0 || rank >= size {
            return Err(Error::value_help(
                format!(
                    "Invalid rank {rank}, rank should be in the interval [0, {}]",
                    size - 1
                ),
                "pass the rank spawn gave the function (its first argument)",
            ));
        }
        let (rank, size) = (rank as usize, size as usize);
        if !world.open && size > world.size {
            return Err(distributed(
                format!(
                    "init_process_group waits for {size} ranks, and only {} can join: {}",
                    world.size,
                    match world.size {
                        1 => "the session is one process".to_string(),
                        n => format!("spawn started {n}"),
                    }
                ),
                "start one rank per member with `spawn(f, args=(n,), nprocs=n)` and pass \
                 world_size=n (PyTorch would wait here until its timeout)",
            ));
        }
        if backend == Backend::Nccl {
            self.need_cuda("the \"nccl\" backend")?;
            let devices = self.devices.count() as usize;
            if size > devices {
                return Err(distributed(
                    format!(
                        "the \"nccl\" backend takes one CUDA device per rank: world_size {size} \
                         and this session has {devices}"
                    ),
                    "start at most one rank per device (`--sim-devices N` gives more), or use \
                     \"gloo\" with CPU tensors",
                ));
            }
        }
        world.join(me, backend, (rank, size), line)?;
        let group = world.group().map_or(0, |g| g.id);
        // On a GPU with NCCL, each rank makes its own communicator at its
        // first collective (as ProcessGroupNCCL does, lazily).
        let on_nccl =
            backend == Backend::Nccl && self.devices.driver().is_some_and(|d| d.nccl().is_some());
        let nccl = on_nccl.then_some(false);
        if let Some(m) = &mut self.dist {
            m.joined = Some(Joined {
                rank,
                size,
                backend,
                seq: 0,
                comm: Vec::new(),
                sent: vec![0; size],
                received: vec![0; size],
                group,
                nccl,
            });
        }
        Ok(())
    }

    /// This rank's own NCCL communicator, made at its first collective on
    /// device `d` where the group runs on NCCL: rank 0 makes the unique id,
    /// the rendezvous passes it to every rank once all have come, and each
    /// calls `ncclCommInitRank` on its own thread (NCCL returns once all
    /// have), as ranks in processes of their own do.
    fn own_nccl_comm(&mut self, d: u32, line: Option<u32>) -> Result<(), Error> {
        let Some(m) = &self.dist else {
            return Ok(());
        };
        let Some(j) = &m.joined else {
            return Ok(());
        };
        if j.nccl != Some(false) {
            return Ok(());
        }
        let (world, me, rank, size, group) = (Arc::clone(&m.world), m.me, j.rank, j.size, j.group);
        let driver = Arc::clone(self.devices.driver().ok_or_else(no_driver)?);
        let id = world.nccl_id((me, rank), line, || {
            driver.nccl_unique_id().map_err(|e| driver_error(d, e))
        })?;
        driver
            .nccl_init_rank((group, rank, size), &id, d)
            .map_err(|e| driver_error(d, e))?;
        if let Some(j) = self.dist.as_mut().and_then(|m| m.joined.as_mut()) {
            j.nccl = Some(true);
        }
        Ok(())
    }

    /// `(get_rank(), get_world_size())`.
    pub fn process_group(&self) -> Result<(usize, usize), Error> {
        match self.dist.as_ref().and_then(|m| m.joined.as_ref()) {
            Some(j) => Ok((j.rank, j.size)),
            None => Err(not_initialized()),
        }
    }

    /// `get_backend()`: the group's backend's name (`nccl`, `gloo`).
    pub fn backend_name(&self) -> Result<&'static str, Error> {
        self.process_group_backend().map(|(_, _, b)| b.name())
    }

    /// Whether `init_process_group` has run (and `destroy_process_group` not).
    pub fn is_initialized(&self) -> bool {
        self.dist.as_ref().is_some_and(|m| m.joined.is_some())
    }

    /// `destroy_process_group()`.
    pub fn destroy_process_group(&mut self) -> Result<(), Error> {
        let Some(m) = &mut self.dist else {
            return Err(not_initialized());
        };
        let Some(j) = m.joined.take() else {
            return Err(not_initialized());
        };
        if j.nccl == Some(true) {
            if let Some(driver) = self.devices.driver() {
                driver.nccl_destroy_rank(j.group, j.rank);
            }
        }
        if m.world.size == 1 {
            m.world.leave();
        }
        Ok(())
    }

    /// A collective of the process group with this rank's `tensor` (and
    /// `all_gather`'s `outputs`). Returns, with `async_op`, the event its
    /// work handle waits for.
    pub fn collective(
        &mut self,
        op: Collective,
        tensor: Option<&Arc<Tensor>>,
        outputs: &[Arc<Tensor>],
        async_op: bool,
        line: Option<u32>,
    ) -> Result<Option<Arc<Event>>, Error> {
        let (rank, size, backend) = self.process_group_backend()?;
        if let Some(t) = tensor {
            self.check_participant(t, backend, op, outputs, (rank, size))?;
        }
        let device = match tensor.map(|t| t.device()) {
            Some(Device::Cuda(d)) => Some(d),
            _ => None,
        };
        if op == Collective::Barrier && backend == Backend::Nccl {
            // NCCL's barrier is a collective on the rank's device, which
            // the host then waits for.
            let d = self.current_device;
            self.sync_stream_quietly(self.stream_on(d))?;
        }
        if let (Some(d), Backend::Nccl) = (device, backend) {
            self.own_nccl_comm(d, line)?;
        }
        let stream = match device {
            Some(d) => Some(self.comm_stream(d)?),
            None => None,
        };
        if let Some(s) = stream {
            // As PyTorch's NCCL group: the caching allocator keeps the
            // blocks of what the collective reads and writes until the
            // `nccl` stream's work is done.
            tensor
                .into_iter()
                .chain(outputs)
                .for_each(|t| t.record_stream(s.stream));
        }
        let seq = {
            let j = self.joined_mut()?;
            j.seq += 1;
            j.seq - 1
        };
        let post = Post {
            op,
            tensor: tensor.cloned(),
            outputs: outputs.to_vec(),
            stream,
            host: self.host_now(),
            line,
        };
        let what = post.describe(seq);
        let world = Arc::clone(&self.dist.as_ref().expect("joined").world);
        let me = self.dist.as_ref().map_or(0, |m| m.me);
        let done = match world.post(rank, seq, post)? {
            Turn::Run(posts) => {
                let r = self.run_collective(&posts);
                world.finish(seq, r.clone());
                r?
            }
            Turn::Wait => world.wait(me, seq, what, line)?,
        };
        if let Some(share) = done.shares.get(rank) {
            self.take_share(share);
        }
        if op == Collective::Barrier {
            let now = self.host_now();
            if done.latest_host > now {
                self.host_wait_until("barrier", done.latest_host, "the other ranks");
            }
        }
        if let (None, Some(t)) = (stream, tensor) {
            // gloo: the host did the work.
            let bytes = 2 * t.nbytes() as u64;
            let seconds = timing::host_op(&HOST, bytes, 0, t.numel(), 1);
            self.host_time(op.name(), seconds, bytes);
        }
        let (Some(comm), Some(d)) = (stream, device) else {
            return Ok(None);
        };
        let event = Arc::new(Event::default());
        self.record(&event, comm)?;
        if async_op {
            return Ok(Some(event));
        }
        self.wait_event(self.stream_on(d), &event)?;
        Ok(None)
    }

    /// `send(t, dst)` (`sending`) or `recv(t, src)`: a message between
    /// two ranks, passed once both have posted it; the blocking call makes
    /// the current stream wait for it, as PyTorch's NCCL `send`/`recv`.
    pub fn send_recv(
        &mut self,
        sending: bool,
        t: &Arc<Tensor>,
        peer: usize,
        line: Option<u32>,
    ) -> Result<(), Error> {
        match self.post_message(sending, t, peer, line)? {
            Some(pending) => self.finish_message(&pending),
            None => Ok(()),
        }
    }

    /// `isend(t, dst)` / `irecv(t, src)`: the message posted, and the
    /// rank goes on; what it gives back `wait()`s for it (`finish_message`).
    /// None when the other side had posted already, so it has passed.
    pub fn post_message(
        &mut self,
        sending: bool,
        t: &Arc<Tensor>,
        peer: usize,
        line: Option<u32>,
    ) -> Result<Option<PendingMessage>, Error> {
        let (rank, size, backend) = self.process_group_backend()?;
        let (what, other) = match sending {
            true => ("send", "destination"),
            false => ("recv", "source"),
        };
        if peer >= size {
            return Err(Error::value(format!(
                "Invalid {other} rank: {peer}, and the ranks are 0 to {}",
                size - 1
            )));
        }
        if peer == rank {
            return Err(Error::value(format!(
                "Invalid {other} rank: {other} rank should not be the same as the rank of the \
                 current process."
            )));
        }
        if backend == Backend::Nccl && !t.device().is_cuda() {
            return Err(distributed(
                "No backend type associated with device type cpu",
                "the \"nccl\" group takes CUDA tensors: move it first (`t.to(cuda)`)",
            ));
        }
        if !t.is_contiguous() {
            return Err(Error::value_help(
                format!("Tensors must be contiguous ({what} takes its buffer whole)"),
                "pass `t.contiguous()`",
            ));
        }
        if !sending {
            self.check_write(t)?;
        }
        let stream = match t.device() {
            Device::Cuda(d) => Some(self.comm_stream(d)?),
            Device::Cpu => None,
            Device::Meta => return Err(super::transfer::no_data_on_meta(what)),
        };
        if let Some(s) = stream {
            t.record_stream(s.stream);
        }
        let n = {
            let j = self.joined_mut()?;
            let count = match sending {
                true => &mut j.sent[peer],
                false => &mut j.received[peer],
            };
            *count += 1;
            *count - 1
        };
        let key = match sending {
            true => (rank, peer, n),
            false => (peer, rank, n),
        };
        let side = Side {
            tensor: Arc::clone(t),
            stream,
            line,
            host: self.host_now(),
        };
        let world = Arc::clone(&self.dist.as_ref().expect("joined").world);
        let me = self.dist.as_ref().map_or(0, |m| m.me);
        let pending = PendingMessage {
            world: Arc::clone(&world),
            me,
            key,
            what: format!(
                "{what} #{} ({}{}) {} rank {peer}",
                n + 1,
                t.dtype(),
                crate::runtime::shape::fmt_shape(t.shape()),
                if sending { "to" } else { "from" }
            ),
            line,
            stream,
            device: t.device(),
        };
        match world.post_message(key, sending, side)? {
            Some((send, recv)) => {
                let r = self.pass_message(&send, &recv);
                world.passed(key, r.clone());
                r?;
                self.message_done(&pending)?;
                Ok(None)
            }
            None => Ok(Some(pending)),
        }
    }

    /// Waits until a message this rank posted has passed (the other side
    /// passes it when it posts its own); then, on a device, the current
    /// stream waits for it.
    pub fn finish_message(&mut self, p: &PendingMessage) -> Result<(), Error> {
        p.world.wait_message(p.me, p.key, p.what.clone(), p.line)?;
        self.message_done(p)
    }

    fn message_done(&mut self, p: &PendingMessage) -> Result<(), Error> {
        if let (Some(comm), Device::Cuda(d)) = (p.stream, p.device) {
            let event = Arc::new(Event::default());
            self.record(&event, comm)?;
            self.wait_event(self.stream_on(d), &event)?;
        }
        Ok(())
    }

    /// Copies a message's bytes into the receiving rank's tensor: on the
    /// receiver's `nccl` stream once the sender's has reached the send,
    /// from the later of the two ranks' host times (whichever side passes
    /// it: the other side's work queued before its post comes first, as a
    /// collective runs from the latest rank's time).
    fn pass_message(&mut self, send: &Side, recv: &Side) -> Result<(), Error> {
        let (Some(from), Some(to)) = (send.stream, recv.stream) else {
            return crate::runtime::ops::index::assign(&recv.tensor, &send.tensor);
        };
        let own = self.host_now();
        self.host_wait_until_silent(send.host.max(recv.host));
        let saved = [self.enter_stream(from), self.enter_stream(to)];
        let r = self
            .wait_stream(to, from)
            .and_then(|_| self.assign(&recv.tensor, &send.tensor));
        for s in saved.into_iter().rev() {
            self.restore(s);
        }
        self.set_host_time(own);
        r
    }

    fn process_group_backend(&self) -> Result<(usize, usize, Backend), Error> {
        match self.dist.as_ref().and_then(|m| m.joined.as_ref()) {
            Some(j) => Ok((j.rank, j.size, j.backend)),
            None => Err(not_initialized()),
        }
    }

    fn joined(&self) -> Option<&Joined> {
        self.dist.as_ref().and_then(|m| m.joined.as_ref())
    }

    fn joined_mut(&mut self) -> Result<&mut Joined, Error> {
        self.dist
            .as_mut()
            .and_then(|m| m.joined.as_mut())
            .ok_or_else(not_initialized)
    }

    /// The `nccl` stream of device `d`, made at first use, after the
    /// current stream's work.
    fn comm_stream(&mut self, d: u32) -> Result<StreamKey, Error> {
        let known = self
            .dist
            .as_ref()
            .and_then(|m| m.joined.as_ref())
            .and_then(|j| j.comm.iter().find(|k| k.device == d).copied());
        let key = match known {
            Some(k) => k,
            None => {
                let saved = self.current_device;
                self.current_device = d;
                let made = self.new_stream(Some("nccl"));
                self.current_device = saved;
                let key = made?.key;
                self.joined_mut()?.comm.push(key);
                key
            }
        };
        self.wait_stream(key, self.stream_on(d))?;
        Ok(key)
    }

    /// This rank's tensor for `op`: on a device its backend takes,
    /// contiguous, one it may write.
    fn check_participant(
        &self,
        t: &Tensor,
        backend: Backend,
        op: Collective,
        outputs: &[Arc<Tensor>],
        (rank, size): (usize, usize),
    ) -> Result<(), Error> {
        if backend == Backend::Nccl && !t.device().is_cuda() {
            return Err(distributed(
                "No backend type associated with device type cpu",
                "the \"nccl\" group takes CUDA tensors: move it first (`t.to(cuda)`), or make \
                 the group with \"gloo\" for CPU tensors",
            ));
        }
        if !t.is_contiguous() {
            return Err(Error::value_help(
                format!(
                    "Tensors must be contiguous ({} takes its buffer whole)",
                    op.name()
                ),
                "pass `t.contiguous()`",
            ));
        }
        match op {
            Collective::AllReduce(_) | Collective::Broadcast { .. } => self.check_write(t)?,
            Collective::ReduceScatter(_) => {
                self.check_write(t)?;
                if outputs.len() != size {
                    return Err(Error::value(format!(
                        "reduce_scatter's input list holds {} tensors, and the world size is {size}",
                        outputs.len()
                    )));
                }
                if outputs.iter().any(|o| {
                    o.shape() != t.shape()
                        || o.dtype() != t.dtype()
                        || o.device() != t.device()
                        || !o.is_contiguous()
                }) {
                    return Err(Error::value_help(
                        "reduce_scatter's inputs must each be like the output: one shape, dtype \
                         and device, contiguous",
                        "rank r's output is the reduction of every rank's `input_list[r]`",
                    ));
                }
            }
            Collective::AllGather => {
                if outputs.len() != size {
                    return Err(Error::value(format!(
                        "all_gather's output list holds {} tensors, and the world size is {size}",
                        outputs.len()
                    )));
                }
                for o in outputs {
                    if o.shape() != t.shape() || o.dtype() != t.dtype() || o.device() != t.device()
                    {
                        return Err(Error::value_help(
                            "all_gather's outputs must each be like the input: one shape, dtype \
                             and device",
                            "make them with `[zeros_like(t) for _ in range(world_size)]`",
                        ));
                    }
                    self.check_write(o)?;
                }
            }
            Collective::Reduce { .. } => self.check_write(t)?,
            Collective::Gather { dst: root } | Collective::Scatter { src: root } => {
                let (name, list) = match op {
                    Collective::Gather { .. } => ("gather", "gather_list"),
                    _ => ("scatter", "scatter_list"),
                };
                if let Collective::Scatter { .. } = op {
                    self.check_write(t)?;
                }
                let wanted = if rank == root { size } else { 0 };
                if outputs.len() != wanted {
                    return Err(Error::value(match wanted {
                        0 => format!(
                            "{name}'s {list} is rank {root}'s alone, and rank {rank} passes one"
                        ),
                        _ => format!(
                            "{name}'s {list} holds {} tensors, and the world size is {size}",
                            outputs.len()
                        ),
                    }));
                }
                for o in outputs {
                    if o.shape() != t.shape() || o.dtype() != t.dtype() || o.device() != t.device()
                    {
                        return Err(Error::value_help(
                            format!(
                                "{name}'s {list} must hold tensors like the rank's own: one \
                                 shape, dtype and device"
                            ),
                            "make them with `[torch.zeros_like(t) for _ in range(world_size)]`",
                        ));
                    }
                    if let Collective::Gather { .. } = op {
                        self.check_write(o)?;
                    }
                }
            }
            Collective::Barrier => {}
        }
        let root = match op {
            Collective::Broadcast { src } | Collective::Scatter { src } => Some(("src", src)),
            Collective::Reduce { dst, .. } | Collective::Gather { dst } => Some(("dst", dst)),
            _ => None,
        };
        if let Some((which, r)) = root {
            if r >= size {
                return Err(Error::value(format!(
                    "{}'s {which} is rank {r}, and the ranks are 0 to {}",
                    op.name(),
                    size - 1
                )));
            }
        }
        Ok(())
    }

    /// Runs a collective over every rank's post (in rank order), each
    /// device's part on the stream its rank queued it on, from the latest
    /// of the ranks' host times.
    fn run_collective(&mut self, posts: &[Post]) -> Result<Done, Error> {
        let latest = posts.iter().map(|p| p.host).fold(0.0, f64::max);
        let mut done = Done {
            latest_host: latest,
            shares: Vec::new(),
        };
        let ts: Vec<&Tensor> = posts.iter().filter_map(|p| p.tensor.as_deref()).collect();
        if ts.len() != posts.len() {
            return Ok(done);
        }
        if !ts[0].device().is_cuda() {
            self.run_on_host(posts, &ts)?;
            return Ok(done);
        }
        let own = self.host_now();
        self.host_wait_until_silent(latest);
        let saved: Vec<_> = posts
            .iter()
            .filter_map(|p| p.stream)
            .map(|k| self.enter_stream(k))
            .collect();
        // What the collective queues is recorded apart, then shared out.
        let modelled = !self.measures_time();
        let timeline = match modelled {
            true => Some(self.timeline.replace(Timeline::new(0.0, None, false))),
            false => None,
        };
        let counters = std::mem::take(&mut self.counters);
        // On NCCL, every rank's part runs on that rank's own communicator.
        let ranked = self
            .joined()
            .filter(|j| j.nccl == Some(true))
            .map(|j| j.group);
        if let Some(m) = &mut self.dist {
            m.ranked_comms = ranked;
        }
        let r = self.run_on_devices(posts, &ts);
        if let Some(m) = &mut self.dist {
            m.ranked_comms = None;
        }
        let counted = std::mem::replace(&mut self.counters, counters);
        let recorded = match timeline {
            Some(saved) => std::mem::replace(&mut self.timeline, saved),
            None => None,
        };
        for s in saved.into_iter().rev() {
            self.restore(s);
        }
        self.set_host_time(own);
        r?;
        done.shares = shares(&ts, recorded, &counted);
        Ok(done)
    }

    /// Takes in this rank's share of a collective: its counts, and its
    /// items on the timeline being recorded.
    fn take_share(&mut self, share: &Share) {
        self.counters.add(&share.counters);
        let Some(t) = &mut self.timeline else {
            return;
        };
        for (lane, name, item) in &share.items {
            let at = t.lane(*lane, || name.clone());
            let detail = item.detail.clone();
            t.push(
                at, item.kind, item.op, item.start, item.end, item.bytes, detail,
            );
        }
    }

    fn run_on_devices(&mut self, posts: &[Post], ts: &[&Tensor]) -> Result<(), Error> {
        let misfit = |m: super::collective::Misfit| m.error;
        match posts[0].op {
            Collective::AllReduce(op) => self.all_reduce(ts, op).map_err(misfit),
            Collective::Broadcast { src } => {
                let root = posts[src].tensor.as_ref().expect("checked");
                let devices: Vec<Device> = ts.iter().map(|t| t.device()).collect();
                let outs = self.broadcast(root, &devices).map_err(misfit)?;
                for (r, out) in outs.iter().enumerate() {
                    if r != src {
                        self.assign(ts[r], out)?;
                    }
                }
                Ok(())
            }
            Collective::AllGather => {
                let outs = self.all_gather(ts).map_err(misfit)?;
                for (p, all) in posts.iter().zip(&outs) {
                    for (k, o) in p.outputs.iter().enumerate() {
                        self.assign(o, &part(all, k, ts[k])?)?;
                    }
                }
                Ok(())
            }
            Collective::ReduceScatter(op) => {
                // Each rank's list joined into one buffer, whose chunk r
                // the ring reduces onto rank r.
                let mut joined = Vec::with_capacity(posts.len());
                for p in posts {
                    let flats: Vec<Tensor> = p
                        .outputs
                        .iter()
                        .map(|t| crate::runtime::op::view::view(t, &[-1]))
                        .collect::<Result<_, _>>()?;
                    let refs: Vec<&Tensor> = flats.iter().collect();
                    joined.push(self.join(&refs, 0, false)?);
                }
                let refs: Vec<&Tensor> = joined.iter().map(|t| t.as_ref()).collect();
                let outs = self.reduce_scatter(&refs, op).map_err(misfit)?;
                for (t, out) in ts.iter().zip(&outs) {
                    let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
                    self.assign(t, &crate::runtime::op::view::view(out, &dims)?)?;
                }
                Ok(())
            }
            Collective::Reduce { dst, op } => {
                let out = self.reduce_to(ts, dst, op).map_err(misfit)?;
                self.assign(ts[dst], &out)
            }
            // PyTorch's NCCL group does these with NCCL's sends and receives.
            Collective::Gather { dst } => {
                for (o, t) in posts[dst].outputs.iter().zip(ts) {
                    self.assign(o, t)?;
                }
                Ok(())
            }
            Collective::Scatter { src } => {
                for (t, part) in ts.iter().zip(&posts[src].outputs) {
                    self.assign(t, part)?;
                }
                Ok(())
            }
            Collective::Barrier => Ok(()),
        }
    }

    /// gloo on CPU tensors: the values, computed on the host.
    fn run_on_host(&mut self, posts: &[Post], ts: &[&Tensor]) -> Result<(), Error> {
        match posts[0].op {
            Collective::AllReduce(op) => reduce_on_host(ts, op),
            Collective::Broadcast { src } => {
                for (r, t) in ts.iter().enumerate() {
                    if r != src {
                        crate::runtime::ops::index::assign(t, ts[src])?;
                    }
                }
                Ok(())
            }
            Collective::AllGather => {
                for p in posts {
                    for (o, t) in p.outputs.iter().zip(ts) {
                        crate::runtime::ops::index::assign(o, t)?;
                    }
                }
                Ok(())
            }
            Collective::ReduceScatter(op) => {
                for (r, t) in ts.iter().enumerate() {
                    let copies: Vec<Tensor> = posts
                        .iter()
                        .map(|p| {
                            let x = &p.outputs[r];
                            Tensor::new(x.contiguous_buffer(), x.shape().to_vec(), x.device())
                        })
                        .collect();
                    let refs: Vec<&Tensor> = copies.iter().collect();
                    reduce_on_host(&refs, op)?;
                    crate::runtime::ops::index::assign(t, &copies[0])?;
                }
                Ok(())
            }
            Collective::Reduce { dst, op } => {
                let copies: Vec<Tensor> = ts
                    .iter()
                    .map(|x| Tensor::new(x.contiguous_buffer(), x.shape().to_vec(), x.device()))
                    .collect();
                let refs: Vec<&Tensor> = copies.iter().collect();
                reduce_on_host(&refs, op)?;
                crate::runtime::ops::index::assign(ts[dst], &copies[0])
            }
            Collective::Gather { dst } => {
                for (o, t) in posts[dst].outputs.iter().zip(ts) {
                    crate::runtime::ops::index::assign(o, t)?;
                }
                Ok(())
            }
            Collective::Scatter { src } => {
                for (t, part) in ts.iter().zip(&posts[src].outputs) {
                    crate::runtime::ops::index::assign(t, part)?;
                }
                Ok(())
            }
            Collective::Barrier => Ok(()),
        }
    }
}

/// Each rank's part of a collective run over `ts` (one per rank): the
/// items on its device's streams, and their counts (without a recorded
/// timeline, an even part of what was counted).
fn shares(ts: &[&Tensor], recorded: Option<Timeline>, counted: &Counters) -> Vec<Share> {
    let n = ts.len() as u64;
    ts.iter()
        .map(|t| {
            let mut share = Share::default();
            share.counters.ops = 1;
            let Some(tl) = &recorded else {
                share.counters.kernels = counted.kernels / n;
                share.counters.device_ns = counted.device_ns / n;
                share.counters.copy_ns = counted.copy_ns / n;
                share.counters.d2d = (counted.d2d.0 / n, counted.d2d.1 / n);
                return share;
            };
            for item in &tl.items {
                let (lane, name) = &tl.lanes[item.lane];
                let Lane::Stream(key) = lane else { continue };
                if Device::Cuda(key.device) != t.device() {
                    continue;
                }
                let ns = ((item.end - item.start) * 1e9) as u64;
                match item.kind {
                    Kind::Kernel => share.counters.kernels += 1,
                    Kind::Copy(_) => {
                        share.counters.d2d.0 += 1;
                        share.counters.d2d.1 += item.bytes;
                        share.counters.copy_ns += ns;
                    }
                    _ => continue,
                }
                share.counters.device_ns += ns;
                share.items.push((*lane, name.clone(), item.clone()));
            }
            share
        })
        .collect()
}

/// Rank `k`'s part of `all_gather`'s joined output, shaped as `like`.
fn part(all: &Tensor, k: usize, like: &Tensor) -> Result<Tensor, Error> {
    match like.ndim() {
        0 => crate::runtime::op::view::view(&index::narrow(all, 0, k, 1)?, &[]),
        _ => {
            let rows = like.shape()[0];
            index::narrow(all, 0, k * rows, rows)
        }
    }
}
