//! Turning values and runtime state into text.

pub mod html;
pub mod memory;
pub mod tensor;

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

/// The `profile { }` table; `model` says how device time is known.
pub fn profile_table(c: &Counters, wall: f64, model: Option<&str>) -> String {
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
    if let Some(model) = model {
        rows.push((
            "device time",
            format!("{} ({model})", fmt_seconds(c.device_ns as f64 * 1e-9)),
        ));
    }
    rows.push(("wall time", fmt_seconds(wall)));
    let mut out = String::from("profile");
    for (k, v) in rows {
        out.push_str(&format!("\n  {k:<12} {v}"));
    }
    out
}
