//! NCCL for the collectives on real GPUs, loaded at run time. The library's
//! soname is `libnccl.so.2` (PyTorch's wheels ship it so), a name cudarc's
//! loader does not try, so the few entry points used are looked up here.
//! Where NCCL is missing, the runtime runs its own ring of peer copies
//! (`dispatch/ring.rs`) and `devices` says so.
//!
//! The session's list collectives: one communicator per device, made once
//! per set of devices (`ncclCommInitAll`, as `torch.cuda.nccl` does in one
//! process); a collective is one NCCL group: a call per device on that
//! device's stream.
//!
//! A process group's ranks (`init_process_group("nccl")`): one communicator
//! per rank, made as PyTorch's ProcessGroupNCCL makes it, on the rank's own
//! thread with NCCL's rank initialisation (`ncclGetUniqueId` by rank 0, the
//! id shared through the rendezvous, then `ncclCommInitRank` by every rank
//! at once), so the same calls serve ranks in other processes. A collective
//! of the group passes each rank's communicator (`Collective::group`).
//!
//! NOT YET RUN: no lent GPU has run this (see README, *Collectives*).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Mutex;

use crate::runtime::driver::DriverError;
use crate::runtime::driver::{Collective, CollectiveOp, NcclId, Reduce};
use crate::runtime::lock::lock;
use crate::runtime::DType;

type Comm = *mut c_void;
type Stream = *mut c_void;
type Status = c_int;

type GetVersion = unsafe extern "C" fn(*mut c_int) -> Status;
type InitAll = unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> Status;
type GetUniqueId = unsafe extern "C" fn(*mut NcclId) -> Status;
type InitRank = unsafe extern "C" fn(*mut Comm, c_int, NcclId, c_int) -> Status;
type Destroy = unsafe extern "C" fn(Comm) -> Status;
type Group = unsafe extern "C" fn() -> Status;
type ErrorString = unsafe extern "C" fn(Status) -> *const c_char;
type AllReduce =
    unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> Status;
type AllGather =
    unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, Comm, Stream) -> Status;
type Broadcast =
    unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> Status;
type ReduceFn = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    c_int,
    Comm,
    Stream,
) -> Status;

/// The entry points, from the loaded library.
struct Entries {
    init_all: InitAll,
    get_unique_id: GetUniqueId,
    init_rank: InitRank,
    destroy: Destroy,
    group_start: Group,
    group_end: Group,
    error_string: ErrorString,
    all_reduce: AllReduce,
    reduce_scatter: AllReduce,
    all_gather: AllGather,
    broadcast: Broadcast,
    reduce: ReduceFn,
}

/// NCCL, loaded, with the communicators made so far.
pub struct Nccl {
    version: c_int,
    entries: Entries,
    /// Per list of devices: one communicator per device, in list order.
    comms: Mutex<HashMap<Vec<u32>, Vec<Comm>>>,
    /// The process groups' communicators, by (group, rank).
    ranked: Mutex<HashMap<(u64, usize), Comm>>,
}

// SAFETY: communicators are plain handles NCCL lets any thread use; the
// table is behind a lock, and one collective runs at a time (the runtime's).
unsafe impl Send for Nccl {}
unsafe impl Sync for Nccl {}

/// The names tried, the soname first.
const LIBRARIES: [&CStr; 2] = [c"libnccl.so.2", c"libnccl.so"];

impl Nccl {
    /// NCCL from the loader's path; None where it is not there (or lacks an
    /// entry point: older than 2.10, which has no `avg` or bf16).
    pub fn load() -> Option<Nccl> {
        // SAFETY: dlopen of a library by name; a failure is a null handle.
        let handle = LIBRARIES.iter().find_map(|name| {
            let h = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
            (!h.is_null()).then_some(h)
        })?;
        // The handle stays open for the process: NCCL keeps threads of its own.
        let symbol = |name: &CStr| {
            // SAFETY: a symbol lookup in a live handle.
            let p = unsafe { libc::dlsym(handle, name.as_ptr()) };
            (!p.is_null()).then_some(p)
        };
        // SAFETY: each symbol has the C signature of NCCL's header (nccl.h,
        // 2.10 and later) that its type here spells.
        unsafe {
            let get_version: GetVersion = std::mem::transmute(symbol(c"ncclGetVersion")?);
            let entries = Entries {
                init_all: std::mem::transmute::<*mut c_void, InitAll>(symbol(c"ncclCommInitAll")?),
                get_unique_id: std::mem::transmute::<*mut c_void, GetUniqueId>(symbol(
                    c"ncclGetUniqueId",
                )?),
                init_rank: std::mem::transmute::<*mut c_void, InitRank>(symbol(
                    c"ncclCommInitRank",
                )?),
                destroy: std::mem::transmute::<*mut c_void, Destroy>(symbol(c"ncclCommDestroy")?),
                group_start: std::mem::transmute::<*mut c_void, Group>(symbol(c"ncclGroupStart")?),
                group_end: std::mem::transmute::<*mut c_void, Group>(symbol(c"ncclGroupEnd")?),
                error_string: std::mem::transmute::<*mut c_void, ErrorString>(symbol(
                    c"ncclGetErrorString",
                )?),
                all_reduce: std::mem::transmute::<*mut c_void, AllReduce>(symbol(
                    c"ncclAllReduce",
                )?),
                reduce_scatter: std::mem::transmute::<*mut c_void, AllReduce>(symbol(
                    c"ncclReduceScatter",
                )?),
                all_gather: std::mem::transmute::<*mut c_void, AllGather>(symbol(
                    c"ncclAllGather",
                )?),
                broadcast: std::mem::transmute::<*mut c_void, Broadcast>(symbol(c"ncclBroadcast")?),
                reduce: std::mem::transmute::<*mut c_void, ReduceFn>(symbol(c"ncclReduce")?),
            };
            let mut version = 0;
            if get_version(&mut version) != 0 || version < 21000 {
                return None;
            }
            Some(Nccl {
                version,
                entries,
                comms: Mutex::new(HashMap::new()),
                ranked: Mutex::new(HashMap::new()),
            })
        }
    }

    /// "NCCL 2.21.5".
    pub fn describe(&self) -> String {
        version_name(self.version)
    }

    fn check(&self, call: &'static str, status: Status) -> Result<(), DriverError> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: NCCL returns a static string for any status.
        let why = unsafe { CStr::from_ptr((self.entries.error_string)(status)) };
        Err(DriverError::Call {
            call,
            error: format!("ncclResult {status}: {}", why.to_string_lossy()),
        })
    }

    /// The communicators of `devices` (made on first use).
    fn comms(&self, devices: &[u32]) -> Result<Vec<Comm>, DriverError> {
        let mut table = lock(&self.comms);
        if let Some(c) = table.get(devices) {
            return Ok(c.clone());
        }
        let list: Vec<c_int> = devices.iter().map(|&d| d as c_int).collect();
        let mut comms = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: room for one communicator per listed device.
        let status = unsafe {
            (self.entries.init_all)(comms.as_mut_ptr(), list.len() as c_int, list.as_ptr())
        };
        self.check("ncclCommInitAll", status)?;
        table.insert(devices.to_vec(), comms.clone());
        Ok(comms)
    }

    /// A new unique id (`ncclGetUniqueId`: what rank 0 makes and every
    /// rank of a group passes to `init_rank`).
    pub fn unique_id(&self) -> Result<NcclId, DriverError> {
        let mut id = NcclId([0; 128]);
        // SAFETY: room for the 128 bytes NCCL writes.
        let status = unsafe { (self.entries.get_unique_id)(&mut id) };
        self.check("ncclGetUniqueId", status)?;
        Ok(id)
    }

    /// Rank `rank` of `size` in `group` makes its communicator
    /// (`ncclCommInitRank`) on the calling thread's current device; returns
    /// once every rank of the group has called it with the same `id`.
    pub fn init_rank(
        &self,
        (group, rank, size): (u64, usize, usize),
        id: &NcclId,
    ) -> Result<(), DriverError> {
        let mut comm = std::ptr::null_mut();
        // SAFETY: room for one communicator; the id is passed by value.
        let status =
            unsafe { (self.entries.init_rank)(&mut comm, size as c_int, *id, rank as c_int) };
        self.check("ncclCommInitRank", status)?;
        lock(&self.ranked).insert((group, rank), comm);
        Ok(())
    }

    /// Rank `rank` of `group` destroys its communicator (if it made one).
    pub fn destroy_rank(&self, group: u64, rank: usize) {
        if let Some(comm) = lock(&self.ranked).remove(&(group, rank)) {
            // SAFETY: a communicator made by ncclCommInitRank, removed from
            // the table, so destroyed once.
            unsafe { (self.entries.destroy)(comm) };
        }
    }

    /// The communicators a collective runs on: its group's ranks', in rank
    /// order, or the session's for its list of devices.
    fn comms_of(&self, c: &Collective) -> Result<Vec<Comm>, DriverError> {
        let Some(group) = c.group else {
            let devices: Vec<u32> = c.ranks.iter().map(|r| r.stream.device).collect();
            return self.comms(&devices);
        };
        let table = lock(&self.ranked);
        (0..c.ranks.len())
            .map(|rank| {
                table
                    .get(&(group, rank))
                    .copied()
                    .ok_or_else(|| DriverError::Call {
                        call: "ncclGroupStart",
                        error: format!("rank {rank} of the process group has no communicator"),
                    })
            })
            .collect()
    }

    /// Queues `c` as one group: each rank's call on its stream (`streams`,
    /// the raw handles, in rank order; null is the legacy default stream).
    ///
    /// # Safety
    /// Each rank's buffers are live device memory of its device, of the
    /// sizes `c` implies, and each stream belongs to that device.
    pub unsafe fn run(&self, c: &Collective, streams: &[Stream]) -> Result<(), DriverError> {
        let comms = self.comms_of(c)?;
        let dt = data_type(c.dtype);
        let e = &self.entries;
        self.check("ncclGroupStart", (e.group_start)())?;
        let mut first_error = Ok(());
        for (k, rank) in c.ranks.iter().enumerate() {
            let (send, recv) = (rank.send as *const c_void, rank.recv as *mut c_void);
            let (comm, stream) = (comms[k], streams[k]);
            let (call, status) = match c.op {
                CollectiveOp::AllReduce(op) => (
                    "ncclAllReduce",
                    (e.all_reduce)(send, recv, c.count, dt, red_op(op, c.dtype), comm, stream),
                ),
                CollectiveOp::ReduceScatter(op) => (
                    "ncclReduceScatter",
                    (e.reduce_scatter)(send, recv, c.count, dt, red_op(op, c.dtype), comm, stream),
                ),
                CollectiveOp::AllGather => (
                    "ncclAllGather",
                    (e.all_gather)(send, recv, c.count, dt, comm, stream),
                ),
                CollectiveOp::Broadcast { root } => (
                    "ncclBroadcast",
                    (e.broadcast)(send, recv, c.count, dt, root as c_int, comm, stream),
                ),
                CollectiveOp::Reduce { op, root } => (
                    "ncclReduce",
                    (e.reduce)(
                        send,
                        recv,
                        c.count,
                        dt,
                        red_op(op, c.dtype),
                        root as c_int,
                        comm,
                        stream,
                    ),
                ),
            };
            if first_error.is_ok() {
                first_error = self.check(call, status);
            }
        }
        // The group is closed whatever happened inside it.
        let end = self.check("ncclGroupEnd", (e.group_end)());
        first_error.and(end)
    }
}

impl Drop for Nccl {
    fn drop(&mut self) {
        for comm in lock(&self.ranked).drain().map(|(_, c)| c) {
            // SAFETY: a communicator made by ncclCommInitRank, destroyed once.
            unsafe { (self.entries.destroy)(comm) };
        }
        for comms in lock(&self.comms).drain().map(|(_, c)| c) {
            for comm in comms {
                // SAFETY: a communicator made by ncclCommInitAll, destroyed once.
                unsafe { (self.entries.destroy)(comm) };
            }
        }
    }
}

/// NCCL's version code (2.9 and later: major·10000 + minor·100 + patch).
fn version_name(v: c_int) -> String {
    format!("NCCL {}.{}.{}", v / 10000, v / 100 % 100, v % 100)
}

/// NCCL's `ncclDataType_t` for `dt`; bool travels as bytes (`ncclUint8`, uint8's own).
/// NCCL has no 16-bit integers: `Runtime::nccl` refuses int16 first.
fn data_type(dt: DType) -> c_int {
    match dt {
        DType::I8 => 0,
        DType::Bool | DType::U8 => 1,
        DType::I16 => unreachable!("Runtime::nccl refuses int16"),
        DType::I32 => 2,
        DType::I64 => 4,
        DType::F16 => 6,
        DType::F32 => 7,
        DType::F64 => 8,
        DType::BF16 => 9,
    }
}

/// NCCL's `ncclRedOp_t`; on bool, `sum` is `max` (logical or), as PyTorch's
/// NCCL group has it.
fn red_op(op: Reduce, dt: DType) -> c_int {
    match op {
        Reduce::Sum if dt == DType::Bool => 2,
        Reduce::Sum => 0,
        // On bool, `product` is `min` (logical and), as PyTorch's NCCL group has it.
        Reduce::Prod if dt == DType::Bool => 3,
        Reduce::Prod => 1,
        Reduce::Max => 2,
        Reduce::Min => 3,
        Reduce::Avg => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_codes_read_as_nccl_writes_them() {
        assert_eq!(version_name(22105), "NCCL 2.21.5");
        assert_eq!(version_name(21003), "NCCL 2.10.3");
    }

    #[test]
    fn types_and_reductions_are_nccl_hs_values() {
        let types = [
            DType::Bool,
            DType::I32,
            DType::I64,
            DType::F16,
            DType::F32,
            DType::F64,
            DType::BF16,
        ];
        assert_eq!(types.map(data_type), [1, 2, 4, 6, 7, 8, 9]);
        let ops = [Reduce::Sum, Reduce::Max, Reduce::Min, Reduce::Avg];
        assert_eq!(ops.map(|o| red_op(o, DType::F32)), [0, 2, 3, 4]);
        // PyTorch's NCCL group sums bools as a logical or.
        assert_eq!(red_op(Reduce::Sum, DType::Bool), 2);
    }
}
