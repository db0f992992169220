//! PyTorch's memory snapshot (`torch.cuda.memory._snapshot()`, written by
//! `_dump_snapshot`): every device's segments with their blocks, each
//! device's recorded history (`device_traces`), and the allocator's
//! settings, with PyTorch's keys and values, pickled so that
//! pytorch.org/memory_viz and `python -m torch.cuda._memory_viz` read it.
//! Frames are cudash's: the script or cell, the line, and the op.

pub mod pickle;

use std::collections::HashMap;
use std::path::Path;

use crate::error::Error;
use crate::runtime::alloc::history::{Action, Entry, Frame, Place, Resolver};
use crate::runtime::alloc::{AllocatorConfig, BlockState, MempoolId, Pool, StreamId};
use crate::runtime::devices::Devices;
use pickle::Pickler;

/// What `dump_snapshot` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub segments: usize,
    pub events: usize,
    pub bytes: usize,
}

/// One segment as the snapshot shows it.
struct SegmentInfo {
    device: u32,
    address: u64,
    size: usize,
    pool: Pool,
    stream: StreamId,
    frame: Frame,
    expandable: bool,
    /// The private pool it belongs to ((0, 0): none).
    pool_id: MempoolId,
    blocks: Vec<(usize, BlockState, Frame)>,
}

/// Each device's segments (by address) and history, read under its lock.
fn read(devices: &Devices) -> (Vec<SegmentInfo>, Vec<Vec<Entry>>) {
    let mut segments = Vec::new();
    let mut traces = Vec::new();
    for d in 0..devices.count() {
        let Some(gpu) = devices.gpu(d) else {
            traces.push(Vec::new());
            continue;
        };
        let a = &gpu.allocator;
        let mut mine: Vec<SegmentInfo> = a
            .segments()
            .map(|s| SegmentInfo {
                device: d,
                address: s.handle,
                size: s.size,
                pool: s.pool,
                stream: s.stream,
                frame: s.frame,
                expandable: s.expandable,
                pool_id: s.pool_id,
                blocks: a
                    .blocks_with_frames(&s)
                    .map(|(_, size, state, frame)| (size, state, frame))
                    .collect(),
            })
            .collect();
        mine.sort_by_key(|s| s.address);
        segments.extend(mine);
        traces.push(a.history().entries());
    }
    (segments, traces)
}

/// Writes a frame list: `[]` before any statement ran, else the statement's frame.
struct Frames<'a> {
    resolver: Resolver<'a>,
    cache: HashMap<Frame, Option<Place>>,
}

impl Frames<'_> {
    fn write(&mut self, p: &mut Pickler, frame: Frame) {
        let resolver = &mut self.resolver;
        let place = self
            .cache
            .entry(frame)
            .or_insert_with(|| resolver.place(frame));
        p.begin_list();
        if let Some(place) = place {
            p.begin_dict();
            p.key("filename");
            p.str(&place.filename);
            p.key("line");
            p.int(place.line as i64);
            p.key("name");
            p.str(match place.name {
                "" => "<module>",
                op => op,
            });
            p.end();
        }
        p.end();
    }
}

/// The snapshot of every device, pickled, with what it holds.
pub fn pickled(devices: &Devices) -> (Vec<u8>, Written) {
    let (segments, traces) = read(devices);
    let mut frames = Frames {
        resolver: Resolver::new(devices.history()),
        cache: HashMap::new(),
    };
    let mut p = Pickler::new();
    p.begin_dict();
    p.key("segments");
    p.begin_list();
    for s in &segments {
        write_segment(&mut p, &mut frames, s);
    }
    p.end();
    p.key("device_traces");
    p.begin_list();
    for trace in &traces {
        p.begin_list();
        for e in trace {
            write_entry(&mut p, &mut frames, e);
        }
        p.end();
    }
    p.end();
    p.key("allocator_settings");
    let config = (0..devices.count())
        .find_map(|d| devices.gpu(d).map(|g| g.allocator.config().clone()))
        .unwrap_or_default();
    write_settings(&mut p, &config);
    p.end();
    let bytes = p.finish();
    let written = Written {
        segments: segments.len(),
        events: traces.iter().map(Vec::len).sum(),
        bytes: bytes.len(),
    };
    (bytes, written)
}

fn write_segment(p: &mut Pickler, frames: &mut Frames, s: &SegmentInfo) {
    let (mut allocated, mut active, mut requested) = (0u64, 0u64, 0u64);
    for &(size, state, _) in &s.blocks {
        match state {
            BlockState::Allocated { requested: r } => {
                allocated += size as u64;
                active += size as u64;
                requested += r as u64;
            }
            BlockState::Waiting { requested: r } => {
                active += size as u64;
                requested += r as u64;
            }
            BlockState::Free => {}
        }
    }
    p.begin_dict();
    p.key("device");
    p.int(s.device as i64);
    p.key("address");
    p.uint(s.address);
    p.key("total_size");
    p.uint(s.size as u64);
    p.key("allocated_size");
    p.uint(allocated);
    p.key("active_size");
    p.uint(active);
    p.key("requested_size");
    p.uint(requested);
    p.key("stream");
    p.int(s.stream as i64);
    p.key("segment_type");
    p.str(match s.pool {
        Pool::Small => "small",
        Pool::Large => "large",
    });
    p.key("segment_pool_id");
    p.tuple2(s.pool_id.0 as i64, s.pool_id.1 as i64);
    p.key("is_expandable");
    p.bool(s.expandable);
    p.key("frames");
    frames.write(p, s.frame);
    p.key("blocks");
    p.begin_list();
    let mut address = s.address;
    for &(size, state, frame) in &s.blocks {
        let (requested, name, frame) = match state {
            BlockState::Allocated { requested } => (requested, "active_allocated", frame),
            BlockState::Waiting { requested } => (requested, "active_pending_free", frame),
            BlockState::Free => (0, "inactive", Frame::default()),
        };
        p.begin_dict();
        p.key("address");
        p.uint(address);
        p.key("size");
        p.uint(size as u64);
        p.key("requested_size");
        p.uint(requested as u64);
        p.key("state");
        p.str(name);
        p.key("frames");
        frames.write(p, frame);
        p.end();
        address += size as u64;
    }
    p.end();
    p.end();
}

fn write_entry(p: &mut Pickler, frames: &mut Frames, e: &Entry) {
    p.begin_dict();
    p.key("action");
    p.str(e.action.name());
    p.key(match e.action {
        Action::Oom => "device_free",
        _ => "addr",
    });
    p.uint(e.addr);
    p.key("size");
    p.uint(e.size);
    p.key("stream");
    p.int(e.stream as i64);
    p.key("frames");
    frames.write(p, e.frame);
    p.key("time_us");
    p.uint(e.time_us);
    p.end();
}

/// The allocator's settings (`PYTORCH_CUDA_ALLOC_CONF`), as PyTorch's
/// snapshot keeps them: `roundup_power2_divisions` by the interval's size
/// in MiB (1, 2, 4, ... 32768).
fn write_settings(p: &mut Pickler, config: &AllocatorConfig) {
    p.begin_dict();
    p.key("PYTORCH_CUDA_ALLOC_CONF");
    p.str(&config.text);
    p.key("max_split_size");
    p.int(config.max_split_size_stat());
    p.key("garbage_collection_threshold");
    p.float(config.garbage_collection_threshold);
    p.key("expandable_segments");
    p.bool(config.expandable_segments);
    p.key("pinned_num_register_threads");
    p.int(1);
    p.key("release_lock_on_cudamalloc");
    p.bool(false);
    p.key("pinned_use_cuda_host_register");
    p.bool(false);
    p.key("roundup_power2_divisions");
    p.begin_dict();
    for (i, d) in config.roundup_power2_divisions.iter().enumerate() {
        p.key(&(1u64 << i).to_string());
        p.int(*d as i64);
    }
    p.end();
    p.end();
}

pub fn dump(devices: &Devices, path: &Path) -> Result<Written, Error> {
    let fail = |reason: String| Error::Io {
        action: "write".into(),
        path: path.display().to_string(),
        reason,
    };
    if path.is_dir() {
        return Err(fail(
            "it is a directory; give a file name, such as `run.pickle`".into(),
        ));
    }
    let (bytes, done) = pickled(devices);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "snapshot".into());
    let partial = path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
    let written = std::fs::write(&partial, &bytes).and_then(|()| std::fs::rename(&partial, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(fail(e.to_string()));
    }
    Ok(done)
}
