//! The ranks of one `spawn` and their rendezvous: where each rank is
//! (running, waiting in a collective, ended), the process group they join
//! (`init_process_group`), and the table of posted collectives, keyed by
//! each rank's sequence number (its n-th collective).
//!
//! A rank that posts the last missing entry of a sequence number runs the
//! collective for all of them (`group.rs`) and wakes the others. PyTorch's
//! ranks hang when one skips a collective or calls another one in its
//! place; here every rank's state is known, so such a program is reported
//! the moment it cannot go on: posts that differ at one sequence number, or
//! every live rank waiting with none able to proceed. The report names
//! each rank, what it waits in and at which line (what PyTorch's flight
//! recorder lets an expert reconstruct after a timeout).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::collective::RedOp;
use crate::error::Error;
use crate::runtime::counters::Counters;
use crate::runtime::driver::NcclId;
use crate::runtime::lock::lock;
use crate::runtime::stream::StreamKey;
use crate::runtime::timeline::{Item, Lane};
use crate::runtime::{DType, Device, Tensor};

/// The ranks of one `spawn` (or the session alone, a group of one), or the
/// processes `torch.multiprocessing.Process` starts (an open world: they
/// come one `start()` at a time, while the session goes on).
pub struct World {
    /// How many ranks were started (an open world: none yet, see `open`).
    pub size: usize,
    /// Whether ranks come over time (`Process.start()`), so a group's size
    /// is the ranks' own word, not a count known up front.
    pub open: bool,
    state: Mutex<State>,
    changed: Condvar,
    interrupt: Arc<AtomicBool>,
}

/// Where a rank is.
#[derive(Clone, Debug, PartialEq)]
pub enum Where {
    Running,
    /// Waiting in `what` (a collective, `init_process_group`), at `line`.
    Waiting {
        what: String,
        line: Option<u32>,
        /// What would let it go on.
        on: Awaits,
    },
    /// Its function returned.
    Returned,
    /// Its function raised.
    Failed,
}

/// What a waiting rank waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum Awaits {
    /// Every rank to join (`init_process_group`).
    Join,
    /// Collective `seq` to run.
    Collective(u64),
    /// The `n`-th message from rank `src` to rank `dst` to pass.
    Message(usize, usize, u64),
    /// Every rank to come to make its NCCL communicator.
    CommInit,
}

/// One side of a message (`send` or `recv`): the rank's tensor and where
/// it queued it.
pub struct Side {
    pub tensor: Arc<Tensor>,
    pub stream: Option<StreamKey>,
    pub line: Option<u32>,
    /// The rank's host clock when it posted: the message passes from the
    /// later side's (a collective runs from the latest rank's).
    pub host: f64,
}

/// A message: (src, dst, n), its n-th from src to dst.
type MessageKey = (usize, usize, u64);

/// A message's send and recv, as they are posted.
type Sides = (Option<Side>, Option<Side>);

/// The process group the ranks joined.
#[derive(Clone, Debug)]
pub struct Group {
    pub backend: Backend,
    pub size: usize,
    /// Which group this is, for the session (its NCCL communicators' key).
    pub id: u64,
}

/// The groups made so far in the session, for `Group::id`.
static GROUPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// `init_process_group`'s backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// NCCL: CUDA tensors, one device per rank.
    Nccl,
    /// Gloo: CPU tensors (and CUDA ones, through the same collectives).
    Gloo,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Nccl => "nccl",
            Backend::Gloo => "gloo",
        }
    }
}

/// A collective of `torch.distributed`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Collective {
    AllReduce(RedOp),
    Broadcast {
        src: usize,
    },
    AllGather,
    /// `reduce_scatter(output, input_list, op)`: rank r's output is the
    /// reduction over the ranks of their `input_list[r]`.
    ReduceScatter(RedOp),
    /// `reduce(tensor, dst, op)`: rank `dst`'s tensor becomes the
    /// reduction of every rank's (NCCL's `ncclReduce`); the others' stay.
    Reduce {
        dst: usize,
        op: RedOp,
    },
    /// `gather(tensor, gather_list, dst)`: every rank's tensor copied into
    /// rank `dst`'s list (its outputs), in rank order.
    Gather {
        dst: usize,
    },
    /// `scatter(tensor, scatter_list, src)`: rank `src`'s list (its
    /// outputs) dealt out, item r into rank r's tensor.
    Scatter {
        src: usize,
    },
    Barrier,
}

impl Collective {
    pub fn name(self) -> &'static str {
        match self {
            Collective::AllReduce(_) => "all_reduce",
            Collective::Broadcast { .. } => "broadcast",
            Collective::AllGather => "all_gather",
            Collective::ReduceScatter(_) => "reduce_scatter",
            Collective::Reduce { .. } => "reduce",
            Collective::Gather { .. } => "gather",
            Collective::Scatter { .. } => "scatter",
            Collective::Barrier => "barrier",
        }
    }
}

/// One rank's entry in the table: its tensors and where it queued them.
pub struct Post {
    pub op: Collective,
    /// The rank's tensor (none for `barrier`).
    pub tensor: Option<Arc<Tensor>>,
    /// `all_gather`'s output list (`reduce_scatter`'s input list,
    /// `gather`'s list on its `dst`, `scatter`'s on its `src`).
    pub outputs: Vec<Arc<Tensor>>,
    /// The stream the rank queued it on (a device tensor's).
    pub stream: Option<StreamKey>,
    /// The rank's host clock when it posted.
    pub host: f64,
    pub line: Option<u32>,
}

impl Post {
    /// "all_reduce #3 (f32[10], sum)": the collective `seq` (from 0).
    pub fn describe(&self, seq: u64) -> String {
        let t = self.tensor.as_ref().map(|t| {
            format!(
                "{}{}",
                t.dtype(),
                crate::runtime::shape::fmt_shape(t.shape())
            )
        });
        let mut parts: Vec<String> = t.into_iter().collect();
        match self.op {
            Collective::AllReduce(op) | Collective::ReduceScatter(op) => {
                parts.push(red_name(op).into())
            }
            Collective::Broadcast { src } | Collective::Scatter { src } => {
                parts.push(format!("src={src}"))
            }
            Collective::Reduce { dst, op } => {
                parts.push(red_name(op).into());
                parts.push(format!("dst={dst}"));
            }
            Collective::Gather { dst } => parts.push(format!("dst={dst}")),
            _ => {}
        }
        let name = format!("{} #{}", self.op.name(), seq + 1);
        match parts.is_empty() {
            true => name,
            false => format!("{name} ({})", parts.join(", ")),
        }
    }

    /// What must agree across the ranks at one sequence number.
    fn signature(&self) -> (Collective, Option<(DType, Vec<usize>, bool)>) {
        let t = self
            .tensor
            .as_ref()
            .map(|t| (t.dtype(), t.shape().to_vec(), t.device().is_cuda()));
        (self.op, t)
    }
}

fn red_name(op: RedOp) -> &'static str {
    match op {
        RedOp::Sum => "sum",
        RedOp::Avg => "avg",
        RedOp::Max => "max",
        RedOp::Min => "min",
        RedOp::Product => "product",
    }
}

/// What of a collective's work one rank's device did, for that rank's
/// `profile`: its items (host-clock times) and what they count. The rank
/// that runs a collective runs every device's part; each rank takes in its
/// own.
#[derive(Clone, Default)]
pub struct Share {
    pub(super) items: Vec<(Lane, String, Item)>,
    pub(super) counters: Counters,
}

/// What a rank learns when its collective has run.
#[derive(Clone)]
pub struct Done {
    /// The latest host clock of the ranks when they posted (a barrier
    /// waits until then).
    pub latest_host: f64,
    /// Each rank's part of the work, by group rank (`group.rs`).
    pub shares: Vec<Share>,
}

struct State {
    ranks: Vec<Where>,
    /// An open world's session runs (and may start the rank a waiting
    /// one waits for); it does not while it waits in `Process.join()`.
    session_runs: bool,
    group: Option<Group>,
    /// The spawn rank of each group rank that joined.
    joined: Vec<Option<usize>>,
    /// Posts by sequence number, one slot per group rank.
    posts: BTreeMap<u64, Vec<Option<Post>>>,
    /// Sequence numbers run, with what each rank learns, or the error
    /// every rank waiting in it gets.
    done: BTreeMap<u64, Result<Done, Error>>,
    /// The first rank that raised.
    failed: Option<usize>,
    /// The report of a stall, once found: what every waiting rank raises.
    stall: Option<Error>,
    /// Messages posted by one side, by (src, dst, n): the send and the recv.
    messages: BTreeMap<MessageKey, Sides>,
    /// Messages passed (or failed).
    passed: BTreeMap<(usize, usize, u64), Result<(), Error>>,
    /// The group ranks come to make their NCCL communicators so far.
    comm_init: Vec<bool>,
    /// Rank 0's NCCL unique id (or why it could not make one).
    nccl_id: Option<Result<NcclId, Error>>,
}

/// What `post` asks the rank to do.
pub enum Turn {
    /// Its post completed the table: run the collective over these posts
    /// (in group rank order), then call `finish`.
    Run(Vec<Post>),
    /// Wait for the others (`wait`).
    Wait,
}

impl State {
    /// Every rank of the group has come to make its communicator (and so
    /// rank 0 has made the id).
    fn comm_ready(&self) -> bool {
        !self.comm_init.is_empty() && self.comm_init.iter().all(|&c| c) && self.nccl_id.is_some()
    }

    /// No rank runs, and none that waits can go on.
    fn stalled(&self) -> bool {
        let all_joined = !self.joined.is_empty() && self.joined.iter().all(Option::is_some);
        !self.session_runs
            && self.ranks.iter().all(|w| match w {
                Where::Running => false,
                Where::Waiting { on, .. } => match on {
                    Awaits::Collective(q) => !self.done.contains_key(q),
                    Awaits::Join => !all_joined,
                    Awaits::Message(s, d, n) => !self.passed.contains_key(&(*s, *d, *n)),
                    Awaits::CommInit => !self.comm_ready(),
                },
                Where::Returned | Where::Failed => true,
            })
    }
}

impl World {
    pub fn new(size: usize, interrupt: Arc<AtomicBool>) -> Arc<World> {
        Arc::new(World::made(size, false, interrupt))
    }

    /// An open world: no rank yet; `add_rank` adds one per started process.
    pub fn open(interrupt: Arc<AtomicBool>) -> Arc<World> {
        Arc::new(World::made(0, true, interrupt))
    }

    fn made(size: usize, open: bool, interrupt: Arc<AtomicBool>) -> World {
        World {
            size,
            open,
            state: Mutex::new(State {
                ranks: vec![Where::Running; size],
                session_runs: open,
                group: None,
                joined: Vec::new(),
                posts: BTreeMap::new(),
                done: BTreeMap::new(),
                failed: None,
                stall: None,
                messages: BTreeMap::new(),
                passed: BTreeMap::new(),
                comm_init: Vec::new(),
                nccl_id: None,
            }),
            changed: Condvar::new(),
            interrupt,
        }
    }

    /// A rank of an open world, running: its number.
    pub fn add_rank(&self) -> usize {
        let mut s = self.state();
        s.ranks.push(Where::Running);
        self.changed.notify_all();
        s.ranks.len() - 1
    }

    /// Whether a rank of this world still runs or waits.
    pub fn live(&self) -> bool {
        self.state()
            .ranks
            .iter()
            .any(|w| matches!(w, Where::Running | Where::Waiting { .. }))
    }

    /// An open world's session waits in `Process.join()` (or goes on): while
    /// it waits, ranks that all wait for each other are stalled.
    pub fn session_waits(&self, waits: bool) {
        self.state().session_runs = !waits;
        self.changed.notify_all();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Rank `me` ended: returned, or raised.
    pub fn ended(&self, me: usize, ok: bool) {
        let mut s = self.state();
        s.ranks[me] = match ok {
            true => Where::Returned,
            false => Where::Failed,
        };
        if !ok && s.failed.is_none() {
            s.failed = Some(me);
        }
        self.changed.notify_all();
    }

    /// The group, once the first rank has joined.
    pub fn group(&self) -> Option<Group> {
        self.state().group.clone()
    }

    /// Rank `me` joins the group as rank `rank` of `size`, and waits until
    /// every rank has.
    pub fn join(
        &self,
        me: usize,
        backend: Backend,
        (rank, size): (usize, usize),
        line: Option<u32>,
    ) -> Result<(), Error> {
        {
            let mut s = self.state();
            match &s.group {
                None => {
                    let id = GROUPS.fetch_add(1, Ordering::Relaxed);
                    s.group = Some(Group { backend, size, id });
                    s.joined = vec![None; size];
                    s.comm_init = vec![false; size];
                }
                Some(g) if g.size != size => {
                    return Err(distributed(
                        format!(
                            "rank {rank} joins a group of {size}, and the group was made with \
                             world_size={}",
                            g.size
                        ),
                        "every rank passes the same world_size to init_process_group",
                    ))
                }
                Some(g) if g.backend != backend => {
                    return Err(distributed(
                        format!(
                            "rank {rank} joins with backend \"{}\", and the group uses \"{}\"",
                            backend.name(),
                            g.backend.name()
                        ),
                        "every rank passes the same backend to init_process_group",
                    ))
                }
                Some(_) => {}
            }
            if let Some(other) = s.joined[rank] {
                return Err(distributed(
                    format!("rank {rank} joined twice: by process {other} and by process {me}"),
                    "each process passes its own rank: the one spawn gave its function",
                ));
            }
            s.joined[rank] = Some(me);
            self.changed.notify_all();
        }
        self.wait_until(me, ("init_process_group", Awaits::Join), line, |s| {
            s.joined.iter().all(Option::is_some).then_some(Ok(()))
        })
    }

    /// Leaves the group (`destroy_process_group`): a new one may be made.
    pub fn leave(&self) {
        let mut s = self.state();
        s.group = None;
        s.joined.clear();
        s.posts.clear();
        s.done.clear();
        s.messages.clear();
        s.passed.clear();
        s.comm_init.clear();
        s.nccl_id = None;
    }

    /// Rank `rank` (of the group) comes to make its NCCL communicator, as
    /// every rank does at its first NCCL collective: rank 0 makes the
    /// unique id (`make`; PyTorch's rank 0 puts it in the store), and once
    /// every rank has come, each gets it, so that all of them call
    /// `ncclCommInitRank` together (it returns only once all have).
    pub fn nccl_id(
        &self,
        (me, rank): (usize, usize),
        line: Option<u32>,
        make: impl FnOnce() -> Result<NcclId, Error>,
    ) -> Result<NcclId, Error> {
        {
            let mut s = self.state();
            if rank == 0 && s.nccl_id.is_none() {
                s.nccl_id = Some(make());
            }
            if let Some(slot) = s.comm_init.get_mut(rank) {
                *slot = true;
            }
            self.changed.notify_all();
        }
        let what = "the NCCL communicator's initialisation";
        self.wait_until(me, (what, Awaits::CommInit), line, |s| {
            s.comm_ready()
                .then(|| s.nccl_id.clone().expect("rank 0 came"))
        })
    }

    /// Rank `rank` (of the group) posts its `seq`-th collective. Posts
    /// that disagree end the collective for every rank in it with the
    /// report.
    pub fn post(&self, rank: usize, seq: u64, post: Post) -> Result<Turn, Error> {
        let mut s = self.state();
        if let Some(Err(e)) = s.done.get(&seq) {
            return Err(e.clone());
        }
        let size = s.joined.len();
        let slots = s.posts.entry(seq).or_insert_with(|| {
            std::iter::repeat_with(|| None)
                .take(size)
                .collect::<Vec<_>>()
        });
        let first = slots
            .iter()
            .enumerate()
            .find_map(|(r, p)| Some((r, p.as_ref()?)));
        if let Some((r, other)) = first {
            let mismatch = other.signature() != post.signature();
            let devices = match (&other.tensor, &post.tensor, other.op) {
                (Some(a), Some(b), _) if a.device().is_cuda() && a.device() == b.device() => {
                    Some(a.device())
                }
                _ => None,
            };
            if mismatch || devices.is_some() {
                slots[rank] = Some(post);
                let report = match devices {
                    Some(d) if !mismatch => duplicate_gpu(rank, r, d),
                    _ => self.mismatch_report(&s, seq),
                };
                s.done.insert(seq, Err(report.clone()));
                self.changed.notify_all();
                return Err(report);
            }
        }
        let slots = s.posts.get_mut(&seq).expect("made above");
        slots[rank] = Some(post);
        if slots.iter().all(Option::is_some) {
            let posts = s.posts.remove(&seq).unwrap_or_default();
            return Ok(Turn::Run(posts.into_iter().flatten().collect()));
        }
        Ok(Turn::Wait)
    }

    /// The collective `seq` has run (or failed): every rank in it goes on.
    pub fn finish(&self, seq: u64, r: Result<Done, Error>) {
        self.state().done.insert(seq, r);
        self.changed.notify_all();
    }

    /// One side of message `(src, dst, n)` (`send` when `sending`): the
    /// other side's entry when both are in, for the caller to pass the
    /// message and call `passed`. Tensors that disagree fail both sides.
    pub fn post_message(
        &self,
        key: (usize, usize, u64),
        sending: bool,
        side: Side,
    ) -> Result<Option<(Side, Side)>, Error> {
        let mut s = self.state();
        if let Some(Err(e)) = s.passed.get(&key) {
            return Err(e.clone());
        }
        let entry = s.messages.entry(key).or_insert((None, None));
        match sending {
            true => entry.0 = Some(side),
            false => entry.1 = Some(side),
        }
        let (Some(send), Some(recv)) = (&entry.0, &entry.1) else {
            return Ok(None);
        };
        let (a, b) = (&send.tensor, &recv.tensor);
        if a.shape() != b.shape() || a.dtype() != b.dtype() {
            let at = |l: Option<u32>| l.map_or(String::new(), |l| format!(" at line {l}"));
            let e = distributed(
                format!(
                    "rank {} sends {}{} as its message #{} to rank {}, which receives it into {}{}{}",
                    key.0,
                    a.dtype(),
                    crate::runtime::shape::fmt_shape(a.shape()),
                    key.2 + 1,
                    key.1,
                    b.dtype(),
                    crate::runtime::shape::fmt_shape(b.shape()),
                    at(recv.line),
                ),
                "a send and its recv take tensors of one shape and dtype",
            );
            s.messages.remove(&key);
            s.passed.insert(key, Err(e.clone()));
            self.changed.notify_all();
            return Err(e);
        }
        let (send, recv) = s.messages.remove(&key).expect("both are in");
        Ok(Some((send.expect("in"), recv.expect("in"))))
    }

    /// Message `key` has passed (or failed): both sides go on.
    pub fn passed(&self, key: (usize, usize, u64), r: Result<(), Error>) {
        self.state().passed.insert(key, r);
        self.changed.notify_all();
    }

    /// Whether message `key` has passed (or failed).
    pub fn has_passed(&self, key: (usize, usize, u64)) -> bool {
        self.state().passed.contains_key(&key)
    }

    /// Rank `me` waits until message `key` has passed.
    pub fn wait_message(
        &self,
        me: usize,
        key: (usize, usize, u64),
        what: String,
        line: Option<u32>,
    ) -> Result<(), Error> {
        let on = Awaits::Message(key.0, key.1, key.2);
        self.wait_until(me, (&what, on), line, |s| s.passed.get(&key).cloned())
    }

    /// Rank `me` waits until collective `seq` has run.
    pub fn wait(
        &self,
        me: usize,
        seq: u64,
        what: String,
        line: Option<u32>,
    ) -> Result<Done, Error> {
        let on = Awaits::Collective(seq);
        self.wait_until(me, (&what, on), line, |s| s.done.get(&seq).cloned())
    }

    /// Waits (as `what`, at `line`) until `ready` gives an answer; fails
    /// when another rank failed, on Ctrl-C, or when no rank can go on.
    fn wait_until<T>(
        &self,
        me: usize,
        (what, on): (&str, Awaits),
        line: Option<u32>,
        ready: impl Fn(&State) -> Option<Result<T, Error>>,
    ) -> Result<T, Error> {
        let mut s = self.state();
        s.ranks[me] = Where::Waiting {
            what: what.to_string(),
            line,
            on,
        };
        self.changed.notify_all();
        let r = loop {
            if let Some(r) = ready(&s) {
                break r;
            }
            if self.interrupt.load(Ordering::Relaxed) {
                break Err(Error::Interrupted);
            }
            if let Some(report) = &s.stall {
                break Err(report.clone());
            }
            if let Some(f) = s.failed {
                break Err(distributed(
                    format!("process {f} raised an error, so the collective this rank waits in cannot complete"),
                    "see the error of that process",
                ));
            }
            if s.stalled() {
                let report = self.stall_report(&s);
                s.stall = Some(report.clone());
                self.changed.notify_all();
                break Err(report);
            }
            s = self
                .changed
                .wait_timeout(s, Duration::from_millis(50))
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        };
        s.ranks[me] = Where::Running;
        r
    }

    /// Every live rank waits, and none can go on.
    fn stall_report(&self, s: &State) -> Error {
        let mut lines = Vec::new();
        for (me, w) in s.ranks.iter().enumerate() {
            let rank = s.joined.iter().position(|j| *j == Some(me));
            let who = match rank {
                Some(r) => format!("rank {r}"),
                None => format!("process {me}"),
            };
            let at = |line: &Option<u32>| line.map_or(String::new(), |l| format!(" at line {l}"));
            lines.push(match w {
                Where::Waiting { what, line, .. } => {
                    format!("  {who}: waits in {what}{}", at(line))
                }
                Where::Returned => format!("  {who}: returned from its function"),
                Where::Failed => format!("  {who}: raised an error"),
                Where::Running => format!("  {who}: running"),
            });
        }
        if self.open {
            lines.push(
                "  the main process: waits for them (in join(), a queue's get(), a lock)"
                    .to_string(),
            );
            return distributed(
                format!(
                    "the processes wait for each other and none can go on (PyTorch would hang \
                     here until its timeout):\n{}",
                    lines.join("\n")
                ),
                "start every process of the group before joining one (`p.start()` for each, \
                 then `p.join()` for each), and have every rank call the same collectives in \
                 the same order",
            );
        }
        distributed(
            format!(
                "the ranks wait for each other and none can go on (PyTorch would hang here until \
                 its timeout):\n{}",
                lines.join("\n")
            ),
            "every rank must call the same collectives, in the same order, with tensors of one \
             shape and dtype: a collective inside `if rank == 0` is one only rank 0 calls",
        )
    }

    /// The posts at `seq` disagree.
    fn mismatch_report(&self, s: &State, seq: u64) -> Error {
        let mut lines = Vec::new();
        if let Some(slots) = s.posts.get(&seq) {
            for (r, p) in slots.iter().enumerate() {
                let Some(p) = p else { continue };
                let at = p.line.map_or(String::new(), |l| format!(" at line {l}"));
                lines.push(format!("  rank {r}: {}{at}", p.describe(seq)));
            }
        }
        distributed(
            format!(
                "the ranks call different collectives at the same point:\n{}",
                lines.join("\n")
            ),
            "every rank must call the same collectives, in the same order, with tensors of one \
             shape and dtype (PyTorch would hang, or mix the ranks' bytes)",
        )
    }
}

/// NCCL's refusal of two ranks on one device.
fn duplicate_gpu(rank: usize, other: usize, d: Device) -> Error {
    let (a, b) = (rank.max(other), rank.min(other));
    distributed(
        format!(
            "NCCL error: invalid usage. Duplicate GPU detected : rank {a} and rank {b} \
             both on CUDA device {}",
            match d {
                Device::Cuda(i) => i,
                Device::Cpu | Device::Meta => 0,
            }
        ),
        "NCCL takes one device per rank: `set_device(rank)` first, and make each rank's \
         tensors on `cuda` (its own device)",
    )
}

pub fn distributed(message: impl Into<String>, help: impl Into<String>) -> Error {
    Error::Distributed {
        message: message.into(),
        help: help.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(n: usize) -> Arc<World> {
        let w = World::new(n, Arc::new(AtomicBool::new(false)));
        std::thread::scope(|s| {
            for r in 0..n {
                let w = &w;
                s.spawn(move || w.join(r, Backend::Nccl, (r, n), None).unwrap());
            }
        });
        w
    }

    /// Rank 0 makes the unique id (once), and every rank gets it only when
    /// all have come: they then call `ncclCommInitRank` together.
    #[test]
    fn every_rank_gets_rank_0s_nccl_id_once_all_have_come() {
        let w = world(3);
        let made = std::sync::atomic::AtomicUsize::new(0);
        let ids: Vec<NcclId> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|r| {
                    let (w, made) = (&w, &made);
                    s.spawn(move || {
                        // Rank 0 comes last: the others wait for its id.
                        if r == 0 {
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        w.nccl_id((r, r), None, || {
                            made.fetch_add(1, Ordering::SeqCst);
                            Ok(NcclId([7; 128]))
                        })
                        .unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(made.load(Ordering::SeqCst), 1, "rank 0 alone makes it");
        assert!(ids.iter().all(|id| *id == NcclId([7; 128])));
    }

    /// A rank that never comes (it returned) is a report, not a hang; and
    /// rank 0's failure to make the id reaches every rank.
    #[test]
    fn a_rank_missing_from_the_communicators_init_is_reported() {
        let w = world(2);
        w.ended(1, true);
        let e = w
            .nccl_id((0, 0), Some(4), || Ok(NcclId([0; 128])))
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("none can go on"), "{text}");
        assert!(
            text.contains("communicator's initialisation at line 4"),
            "{text}"
        );

        let w = world(2);
        let failed = std::thread::scope(|s| {
            let h = s.spawn(|| w.nccl_id((1, 1), None, || unreachable!("rank 1 makes no id")));
            let mine = w.nccl_id((0, 0), None, || Err(distributed("no NCCL id", "")));
            (mine, h.join().unwrap())
        });
        for r in [failed.0, failed.1] {
            assert!(r.unwrap_err().to_string().contains("no NCCL id"));
        }
    }
}
