//! Text for the caching allocators: `mem` tables, `mem map`, the `devices`
//! table, and PyTorch-style `memory_stats()` keys.

use crate::runtime::alloc::{BlockState, Pool, Segment, Stat, StatArray, Stats, StreamId};
use crate::runtime::backend::DeviceInfo;
use crate::runtime::devices::DeviceAllocator;
use crate::runtime::gpu::Gpu;
use crate::runtime::host_alloc::HostStats;
use crate::vocab::{bytes_of, human_bytes};

fn h(b: u64) -> String {
    human_bytes(b as u128)
}

pub fn host_stat_pairs(s: &HostStats) -> Vec<(String, u64)> {
    vec![
        ("allocated_bytes.current".into(), s.allocated.current),
        ("allocated_bytes.peak".into(), s.allocated.peak),
        ("reserved_bytes.current".into(), s.reserved.current),
        ("reserved_bytes.peak".into(), s.reserved.peak),
        ("registered_bytes.current".into(), s.registered.current),
        ("allocation.current".into(), s.allocations.current),
        ("allocation.allocated".into(), s.total_allocations),
        ("cache_hits".into(), s.cache_hits),
    ]
}

/// One row of a `mem` table: label, current figure, peak (empty when not tracked).
pub type Row = (&'static str, String, String);

/// The rows of `mem` for one device, shared by the text and the HTML.
pub fn summary_rows(info: &DeviceInfo, a: &DeviceAllocator) -> Vec<Row> {
    let s = a.stats();
    let free = a.device_free() as u64;
    let unused = s.reserved_bytes.all.current - s.allocated_bytes.all.current;
    vec![
        (
            "allocated (tensors)",
            h(s.allocated_bytes.all.current),
            h(s.allocated_bytes.all.peak),
        ),
        (
            "requested",
            h(s.requested_bytes.all.current),
            h(s.requested_bytes.all.peak),
        ),
        (
            "reserved (segments)",
            h(s.reserved_bytes.all.current),
            h(s.reserved_bytes.all.peak),
        ),
        ("reserved but unused", h(unused), String::new()),
        (
            "device free",
            // Padded so the figure lines up with the column in text.
            {
                let (free, total) = bytes_of(free as u128, info.total_memory as u128);
                format!("{free:>12} of {total}")
            },
            String::new(),
        ),
    ]
}

/// A segment's size as `mem` shows it: an expandable segment's mapped
/// stretch says so, and where it lies in the segment's address space.
pub fn segment_size(seg: &Segment) -> String {
    match seg.expandable {
        false => h(seg.size as u64),
        true => format!(
            "expandable: {} mapped at +{}",
            h(seg.size as u64),
            h(seg.block_offset(0) as u64)
        ),
    }
}

/// The counts under a device's `mem` table. Expandable segments are
/// counted apart: PyTorch's statistics count none of them as segments.
pub fn summary_footer(a: &DeviceAllocator) -> String {
    let s = a.stats();
    let expandable = match a.expandable_segments() {
        0 => String::new(),
        n => format!(" · expandable segments {n}"),
    };
    format!(
        "blocks {} · segments {} (small {}, large {}){expandable} · allocations ever {} · retries {} · OOMs {}",
        s.allocation.all.current,
        s.segment.all.current,
        s.segment.small_pool.current,
        s.segment.large_pool.current,
        s.allocation.all.allocated,
        s.num_alloc_retries,
        s.num_ooms
    )
}

pub fn summary_title(info: &DeviceInfo) -> String {
    format!("cuda:{} — {} — caching allocator", info.index, info.name)
}

/// The rows of `mem cpu`.
pub fn host_rows(s: &HostStats) -> Vec<Row> {
    vec![
        (
            "allocated (tensors)",
            h(s.allocated.current),
            h(s.allocated.peak),
        ),
        (
            "reserved (cached)",
            h(s.reserved.current),
            h(s.reserved.peak),
        ),
        (
            "registered (by `pin`)",
            h(s.registered.current),
            h(s.registered.peak),
        ),
    ]
}

pub fn host_footer(s: &HostStats) -> String {
    format!(
        "blocks {} · allocations ever {} · served from cache {}",
        s.allocations.current, s.total_allocations, s.cache_hits
    )
}

pub const HOST_TITLE: &str = "cpu — pinned (page-locked) host memory — caching host allocator";

/// A `mem` table as text: title, aligned rows, footer.
fn table(title: &str, rows: &[Row], footer: &str) -> String {
    let mut out = format!("{title}\n  {:<22} {:>12} {:>12}\n", "", "current", "peak");
    for (label, cur, peak) in rows {
        let line = format!("  {label:<22} {cur:>12} {peak:>12}");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("  ");
    out.push_str(footer);
    out
}

/// `mem`: one device's allocator summary.
pub fn summary(info: &DeviceInfo, a: &DeviceAllocator) -> String {
    table(
        &summary_title(info),
        &summary_rows(info, a),
        &summary_footer(a),
    )
}

/// The line under a device's `mem` table when autograd holds memory there:
/// what the graphs saved for backward (and how much of it only they keep
/// alive), and the leaves' gradients.
pub fn autograd_line(saved: u64, only_graphs: u64, grads: u64) -> String {
    format!(
        "autograd: graphs hold {} saved for backward ({} of it by nothing else) · .grad {}",
        h(saved),
        h(only_graphs),
        h(grads)
    )
}

/// `mem cpu`: the pinned host allocator.
pub fn host_summary(s: &HostStats) -> String {
    table(HOST_TITLE, &host_rows(s), &host_footer(s))
}

/// `mem map`: every segment drawn as a bar (`#` allocated, `~` freed but
/// waiting for a stream, `.` free), then its blocks. `owner` names the
/// variables whose tensors use a block.
pub fn map(info: &DeviceInfo, gpu: &Gpu, owner: &dyn Fn(u64, usize) -> Vec<String>) -> String {
    const WIDTH: usize = 64;
    let a = &gpu.allocator;
    let stream_name = |s: StreamId| gpu.streams.get(s).name.to_string();
    let mut out = format!("cuda:{} — {} segment(s)", info.index, a.segments().count());
    if a.segments().next().is_none() {
        out.push_str(" — nothing reserved");
    }
    for seg in a.segments() {
        let pool = match seg.pool {
            Pool::Small => "small",
            Pool::Large => "large",
        };
        let mut bar = vec!['.'; WIDTH];
        for (off, size, state) in a.blocks(&seg) {
            let mark = match state {
                BlockState::Free => continue,
                BlockState::Allocated { .. } => '#',
                BlockState::Waiting { .. } => '~',
            };
            let lo = off * WIDTH / seg.size;
            let hi = ((off + size) * WIDTH).div_ceil(seg.size).max(lo + 1);
            bar[lo..hi.min(WIDTH)].iter_mut().for_each(|c| *c = mark);
        }
        let size = segment_size(&seg);
        // A CUDA graph's (or a `MemPool`'s) memory: reused only by what
        // allocates into that pool.
        let private = match seg.pool_id {
            (0, 0) => String::new(),
            (a, b) => format!(", private pool ({a}, {b})"),
        };
        out.push_str(&format!(
            "\n  segment {} ({pool} pool, {size}, stream {}{private})\n  |{}|",
            seg.id,
            stream_name(seg.stream),
            bar.iter().collect::<String>()
        ));
        for (off, size, state) in a.blocks(&seg) {
            let what = match state {
                BlockState::Free => "free".to_string(),
                BlockState::Allocated { requested } => format!(
                    "allocated {} (requested {})",
                    block_owner(owner(seg.id, seg.block_offset(off))),
                    h(requested as u64)
                ),
                BlockState::Waiting { .. } => format!(
                    "waiting: freed, reused once stream {} finishes its queued work",
                    waiting_for(gpu, seg.id, off)
                ),
            };
            out.push_str(&format!(
                "\n    +{:<10} {:>10}  {what}",
                h(off as u64),
                h(size as u64)
            ));
        }
    }
    out
}

/// Who holds a block: the variables named, or `(no name)`.
pub fn block_owner(names: Vec<String>) -> String {
    if names.is_empty() {
        "(no name)".to_string()
    } else {
        names.join(", ")
    }
}

/// The streams a freed block waits for before it is reused.
pub fn waiting_for(gpu: &Gpu, segment: u64, offset: usize) -> String {
    let names: Vec<String> = gpu
        .waits_at(segment, offset)
        .into_iter()
        .map(|s| gpu.streams.get(s).name.to_string())
        .collect();
    names.join(", ")
}

/// The `devices` table, nvidia-smi style.
/// `nccl`: the NCCL a real GPU's collectives run with, if any.
pub fn devices_table(
    backend: &str,
    reason: &str,
    rows: &[(DeviceInfo, u64, u64)],
    nccl: Option<&str>,
) -> String {
    let mut out = format!("backend: {backend}");
    if !reason.is_empty() {
        out.push_str(&format!(" ({reason})"));
    }
    if rows.is_empty() {
        out.push_str("\nno CUDA devices: tensors live on the cpu, and every op runs synchronously");
        return out;
    }
    out.push_str(&format!(
        "\n{:<7} {:<38} {:>5} {:>24} {:>11} {:>11}",
        "index", "name", "cc", "memory used / total", "allocated", "reserved"
    ));
    for (info, allocated, reserved) in rows {
        out.push_str(&format!(
            "\n{:<7} {:<38} {:>5} {:>24} {:>11} {:>11}",
            format!("cuda:{}", info.index),
            info.name,
            format!(
                "{}.{}",
                info.compute_capability.0, info.compute_capability.1
            ),
            format!("{} / {}", h(*reserved), h(info.total_memory as u64)),
            h(*allocated),
            h(*reserved)
        ));
    }
    if backend == "cuda" {
        out.push_str(&format!("\n{}", cuda_collectives(nccl)));
    }
    out
}

/// How collectives run on real GPUs, under `devices` there (the simulator
/// and `emu` model NCCL's ring; `--check` leaves the line out).
pub fn cuda_collectives(nccl: Option<&str>) -> String {
    match nccl {
        Some(v) => format!("{COLLECTIVES}{v}, one group per call on the devices' current streams"),
        None => format!(
            "{COLLECTIVES}NCCL not found (libnccl.so.2 on the loader's path), so they run \
             on the devices as peer copies and kernels, in NCCL's ring order"
        ),
    }
}

/// How the collectives line under `devices` begins.
pub const COLLECTIVES: &str = "collectives: ";

/// A figure of PyTorch's summary, in the units its reference figure takes.
type Format = fn(u64, f64) -> String;

/// `torch.cuda.memory_summary(device, abbreviated)`: PyTorch's table of the
/// allocator's statistics, line for line as PyTorch prints it (each row's
/// units chosen from its all-pools figure).
pub fn pytorch_summary(s: &Stats, device: u32, abbreviated: bool) -> String {
    let rule = |c: &str| c.repeat(75);
    let mut lines = vec![
        rule("="),
        format!(
            " {:16} PyTorch CUDA memory summary, device ID {device:<17} ",
            ""
        ),
        rule("-"),
        format!(
            "  {:9} CUDA OOMs: {:<12} | {:6} cudaMalloc retries: {:<8}  ",
            "", s.num_ooms, "", s.num_alloc_retries
        ),
        rule("="),
        "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ".to_string(),
    ];
    let metrics: [(&StatArray, &str, Format); 9] = [
        (&s.allocated_bytes, "Allocated memory", size_cell),
        (&s.active_bytes, "Active memory", size_cell),
        (&s.requested_bytes, "Requested memory", size_cell),
        (&s.reserved_bytes, "GPU reserved memory", size_cell),
        (&s.inactive_split_bytes, "Non-releasable memory", size_cell),
        (&s.allocation, "Allocations", count_cell),
        (&s.active, "Active allocs", count_cell),
        (&s.segment, "GPU reserved segments", count_cell),
        (&s.inactive_split, "Non-releasable allocs", count_cell),
    ];
    for (stat, name, cell) in metrics {
        lines.push(rule("-"));
        let mut rows = vec![(&stat.all, name)];
        if !abbreviated {
            rows.push((&stat.large_pool, "      from large pool"));
            rows.push((&stat.small_pool, "      from small pool"));
        }
        for (st, label) in rows {
            lines.push(summary_row(label, st, &stat.all, cell));
        }
    }
    for (stat, name) in [
        (&s.oversize_allocations, "Oversize allocations"),
        (&s.oversize_segments, "Oversize GPU segments"),
    ] {
        lines.push(rule("-"));
        lines.push(summary_row(name, stat, stat, count_cell));
    }
    lines.push(rule("="));
    format!("|{}|\n", lines.join("|\n|"))
}

/// One row: the four figures, each in the units its all-pools figure takes.
fn summary_row(label: &str, st: &Stat, units: &Stat, cell: Format) -> String {
    format!(
        " {label:<21} | {} | {} | {} | {} ",
        cell(st.current, units.current as f64),
        cell(st.peak, units.peak as f64),
        cell(st.allocated, units.allocated as f64),
        cell(st.freed, units.freed as f64),
    )
}

/// Bytes in PyTorch's summary: B, KiB, MiB... while the reference figure
/// is at least 768 of the next unit, whole units (rounded down).
fn size_cell(mut n: u64, mut reference: f64) -> String {
    let mut unit = "B  ";
    for next in ["KiB", "MiB", "GiB", "TiB", "PiB"] {
        if reference < 768.0 * 1024.0 {
            break;
        }
        unit = next;
        n /= 1024;
        reference /= 1024.0;
    }
    format!("{n:6} {unit}")
}

/// Counts in PyTorch's summary: thousands (K) and millions (M) from 750 000.
fn count_cell(mut n: u64, mut reference: f64) -> String {
    let mut unit = " ";
    for next in ["K", "M"] {
        if reference < 750.0 * 1000.0 {
            break;
        }
        unit = next;
        n /= 1000;
        reference /= 1000.0;
    }
    format!("{n:7} {unit} ")
}
