//! Turning values and runtime state into text.

pub mod html;
pub mod memory;
pub mod memory_history;
pub mod profiler_table;
pub mod tensor;
pub mod terminal;
pub mod timeline;
pub mod wrap;

use crate::runtime::counters::Counters;
use crate::vocab::human_bytes;

/// `1.23 ms`, `45.6 µs`.
pub fn fmt_seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.3} µs", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

/// A block's device time, for the `profile { }` table.
pub struct ProfileTime {
    pub seconds: f64,
    /// Where and how it was timed: `cuda:0 stream `default`, modelled on …`.
    pub on: String,
    /// Whether `seconds` was measured on a GPU (else modelled).
    pub measured: bool,
    /// The busy time (the sum of the items' durations) is always modelled:
    /// on a GPU, where device time is measured, this says so.
    pub busy_modelled_on: Option<String>,
    /// Collectives' time beside other work, and in all (`comm_overlap`).
    pub overlap: Option<(f64, f64)>,
}

/// The `profile { }` table: the counters, the block's device time (the
/// figure `time` gives) and how much of it the devices were busy.
pub fn profile_table(c: &Counters, wall: f64, device: Option<&ProfileTime>) -> String {
    let copies = |(n, b): (u64, u64)| format!("{n} ({})", human_bytes(b as u128));
    let mut rows = vec![
        ("ops", c.ops.to_string()),
        ("kernels", c.kernels.to_string()),
        (
            "allocations",
            format!("{} ({})", c.allocations, human_bytes(c.bytes as u128)),
        ),
        ("new segments", c.segments.to_string()),
        ("copies H2D", copies(c.h2d)),
        ("copies D2H", copies(c.d2h)),
        ("copies D2D", copies(c.d2d)),
        ("host syncs", c.host_syncs.to_string()),
    ];
    if let Some(t) = device {
        rows.push((
            "device time",
            format!("{} (on {})", fmt_seconds(t.seconds), t.on),
        ));
        let busy = c.device_ns as f64 * 1e-9;
        // Devices working side by side can be busy longer than the span.
        let share = if t.seconds > 0.0 && busy <= t.seconds * 1.0005 {
            format!(", {:.0}% of it", busy / t.seconds * 100.0)
        } else {
            String::new()
        };
        let basis = match &t.busy_modelled_on {
            Some(m) => format!(", {m}"),
            None => String::new(),
        };
        rows.push((
            "device busy",
            format!("{} (kernels and copies{share}{basis})", fmt_seconds(busy)),
        ));
        if let Some((beside, comm)) = t.overlap {
            rows.push((
                "overlap",
                format!(
                    "{} of the collectives' {} ran beside other work on their device \
                     ({} less than one after the other)",
                    fmt_seconds(beside),
                    fmt_seconds(comm),
                    fmt_seconds(beside)
                ),
            ));
        }
    }
    // Where the device time is modelled, the host's time is this process
    // simulating the block, which says nothing about a GPU's host.
    let wall = match device {
        Some(t) if !t.measured => format!(
            "{} (the simulator's own CPU time, not the GPU's)",
            fmt_seconds(wall)
        ),
        _ => fmt_seconds(wall),
    };
    rows.push(("wall time", wall));
    let mut out = String::from("profile");
    for (k, v) in rows {
        out.push_str(&format!("\n  {k:<12} {v}"));
    }
    out
}
