//! HTML for notebooks: a tensor as a table under its device badge, `mem` as a
//! table and an SVG drawing of the segments. Every piece of text is escaped.

use std::fmt::Write;

use super::{memory, tensor};
use crate::runtime::alloc::{BlockState, Pool, StreamId};
use crate::runtime::backend::DeviceInfo;
use crate::runtime::gpu::Gpu;
use crate::runtime::host_alloc::HostStats;
use crate::runtime::{Device, Tensor};
use crate::vocab::human_bytes;

/// Text made safe inside HTML elements and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One colour per device, so placement is visible at a glance.
fn device_colour(d: Device) -> &'static str {
    const CUDA: [&str; 6] = [
        "#4d7c0f", "#1d4ed8", "#a21caf", "#c2410c", "#0f766e", "#b91c1c",
    ];
    match d {
        Device::Cpu => "#4b5563",
        Device::Meta => "#9ca3af",
        Device::Cuda(i) => CUDA[i as usize % CUDA.len()],
    }
}

/// The device badge: `cuda:1` in the device's colour.
/// Text laid out in columns (`profile`'s table) as HTML: in a monospace
/// font however a notebook styles its outputs, and never wrapped.
pub fn preformatted(text: &str) -> String {
    format!(
        "<pre style=\"font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace; white-space: pre\">{}</pre>",
        escape(text)
    )
}

pub fn badge(d: Device) -> String {
    format!(
        "<span style=\"background:{};color:#fff;border-radius:3px;padding:0 5px;font-family:monospace\">{d}</span>",
        device_colour(d)
    )
}

// Notebook front ends style tables themselves (borders, padding, alignment);
// only what they do not do is set here, so a 1,000-cell table stays small.
const TABLE: &str = "font-family:monospace;font-size:12px";
const HEAD: &str = "color:#6b7280;font-weight:normal";

/// A tensor: its badge and tag, then its values as one table per 2-D slice.
pub fn tensor(t: &Tensor) -> String {
    let pinned = if t.is_pinned() { " pinned" } else { "" };
    let mut out = format!(
        "<div class=\"cudash-tensor\"><div>{} <code>{}{}</code>{pinned}</div>",
        badge(t.device()),
        t.dtype(),
        escape(&crate::runtime::shape::fmt_shape(t.shape()))
    );
    let grid = tensor::grid(t);
    match t.ndim() {
        0 => {
            let _ = write!(out, "<code>{}</code>", escape(&grid.cells[0]));
        }
        _ if t.numel() == 0 => out.push_str("<code>[]</code>"),
        1 => table(&mut out, &[Some(0)], &grid.shown[0], &grid.cells, false),
        n => {
            // Leading dimensions pick a slice; the last two make its table.
            let (rows, cols) = (&grid.shown[n - 2], &grid.shown[n - 1]);
            let per_slice = rows.iter().flatten().count() * cols.iter().flatten().count();
            let mut slices = vec![Vec::new()];
            for dim in &grid.shown[..n - 2] {
                slices = slices
                    .into_iter()
                    .flat_map(|prefix: Vec<Option<usize>>| {
                        dim.iter().map(move |i| {
                            let mut p = prefix.clone();
                            p.push(*i);
                            p
                        })
                    })
                    .collect();
            }
            let mut at = 0;
            let mut in_gap = false;
            for prefix in slices {
                // An elided run of slices shows as one mark.
                if prefix.iter().any(Option::is_none) {
                    if !in_gap {
                        out.push_str("<div style=\"color:#6b7280\">⋮</div>");
                    }
                    in_gap = true;
                    continue;
                }
                in_gap = false;
                if !prefix.is_empty() {
                    let idx: Vec<String> = prefix
                        .iter()
                        .flatten()
                        .map(|i| i.to_string())
                        .chain([":".into(), ":".into()])
                        .collect();
                    let _ = write!(
                        out,
                        "<div style=\"color:#6b7280;font-family:monospace\">[{}]</div>",
                        idx.join(", ")
                    );
                }
                table(&mut out, rows, cols, &grid.cells[at..at + per_slice], true);
                at += per_slice;
            }
        }
    }
    out.push_str("</div>");
    out
}

/// A table of `cells` (row-major over the shown `rows` and `cols`), with index headers.
fn table(
    out: &mut String,
    rows: &[Option<usize>],
    cols: &[Option<usize>],
    cells: &[String],
    row_heads: bool,
) {
    let _ = write!(out, "<table style=\"{TABLE}\"><tr>");
    if row_heads {
        let _ = write!(out, "<th style=\"{HEAD}\"></th>");
    }
    for c in cols {
        let _ = write!(out, "<th style=\"{HEAD}\">{}</th>", index_label(*c, "⋯"));
    }
    out.push_str("</tr>");
    let mut it = cells.iter();
    for r in rows {
        out.push_str("<tr>");
        if row_heads {
            let _ = write!(out, "<th style=\"{HEAD}\">{}</th>", index_label(*r, "⋮"));
        }
        for c in cols {
            let text = match (r, c) {
                (Some(_), Some(_)) => escape(it.next().map_or("", |s| s.as_str())),
                (None, None) => "⋱".into(),
                (None, _) => "⋮".into(),
                (_, None) => "⋯".into(),
            };
            let _ = write!(out, "<td>{text}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

fn index_label(i: Option<usize>, gap: &str) -> String {
    i.map_or_else(|| gap.to_string(), |i| i.to_string())
}

fn h(b: u64) -> String {
    escape(&human_bytes(b as u128))
}

fn stat_table(title: &str, rows: &[memory::Row], footer: &str) -> String {
    let mut out = format!(
        "<table style=\"{TABLE}\"><caption style=\"text-align:left;font-weight:bold\">{}</caption>\
         <tr><th style=\"{HEAD}\"></th><th style=\"{HEAD}\">current</th><th style=\"{HEAD}\">peak</th></tr>",
        escape(title)
    );
    for (label, cur, peak) in rows {
        let _ = write!(
            out,
            "<tr><th style=\"{HEAD};text-align:left\">{}</th><td>{}</td><td>{}</td></tr>",
            escape(label),
            escape(cur.trim()),
            escape(peak)
        );
    }
    let _ = write!(
        out,
        "</table><div style=\"color:#6b7280;font-family:monospace;font-size:12px\">{}</div>",
        escape(footer)
    );
    out
}

/// `mem` for one device: the allocator's figures, then its segments drawn.
pub fn mem(info: &DeviceInfo, gpu: &Gpu, owner: &dyn Fn(u64, usize) -> Vec<String>) -> String {
    let a = &gpu.allocator;
    format!(
        "<div class=\"cudash-mem\">{}{}{}</div>",
        badge(Device::Cuda(info.index)),
        stat_table(
            &memory::summary_title(info),
            &memory::summary_rows(info, a),
            &memory::summary_footer(a)
        ),
        segments_svg(gpu, owner)
    )
}

/// Every segment as a bar: allocated blocks solid in the device colour, blocks
/// waiting for a stream hatched, free space pale. Hovering a block names it.
pub fn segments_svg(gpu: &Gpu, owner: &dyn Fn(u64, usize) -> Vec<String>) -> String {
    const WIDTH: f64 = 560.0;
    const BAR: f64 = 18.0;
    const ROW: f64 = 40.0;
    let a = &gpu.allocator;
    let segs: Vec<_> = a.segments().collect();
    if segs.is_empty() {
        return "<div style=\"color:#6b7280;font-size:12px\">no segments reserved</div>".into();
    }
    let colour = device_colour(Device::Cuda(gpu.index));
    let stream_name = |s: StreamId| gpu.streams.get(s).name.to_string();
    let height = segs.len() as f64 * ROW + 4.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         font-family=\"monospace\" font-size=\"11\"><defs><pattern id=\"cudash-wait\" \
         width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
         <rect width=\"3\" height=\"6\" fill=\"#f59e0b\"/></pattern></defs>"
    );
    // What each segment's blocks hold, as text under the drawing: hover
    // text is lost in a static render (nbconvert, GitHub).
    let mut legend: Vec<String> = Vec::new();
    for (row, seg) in segs.iter().enumerate() {
        let y = row as f64 * ROW;
        let mut held: Vec<String> = Vec::new();
        let pool = match seg.pool {
            Pool::Small => "small",
            Pool::Large => "large",
        };
        let _ = write!(
            out,
            "<text x=\"0\" y=\"{}\">segment {} · {pool} pool · {} · stream {}</text>\
             <rect x=\"0\" y=\"{}\" width=\"{WIDTH}\" height=\"{BAR}\" fill=\"#e5e7eb\"/>",
            y + 12.0,
            seg.id,
            memory::segment_size(seg),
            escape(&stream_name(seg.stream)),
            y + 16.0
        );
        for (off, size, state) in a.blocks(seg) {
            let x = off as f64 / seg.size as f64 * WIDTH;
            let w = (size as f64 / seg.size as f64 * WIDTH).max(1.0);
            let (fill, name, what) = match state {
                BlockState::Free => ("none".to_string(), None, "free".to_string()),
                BlockState::Allocated { requested } => {
                    let name = memory::block_owner(owner(seg.id, seg.block_offset(off)));
                    let what = format!("{name}: requested {}", human_bytes(requested as u128));
                    (colour.to_string(), Some(name), what)
                }
                BlockState::Waiting { .. } => (
                    "url(#cudash-wait)".to_string(),
                    Some("waiting".to_string()),
                    format!(
                        "waiting for stream {}",
                        memory::waiting_for(gpu, seg.id, off)
                    ),
                ),
            };
            let _ = write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{}\" width=\"{w:.1}\" height=\"{BAR}\" fill=\"{fill}\" \
                 stroke=\"#fff\" stroke-width=\"0.5\"><title>+{} {} {}</title></rect>",
                y + 16.0,
                h(off as u64),
                h(size as u64),
                escape(&what)
            );
            if let Some(name) = name {
                // The owner's name on its block, where it fits.
                if w >= 7.0 * name.chars().count() as f64 + 6.0 {
                    let _ = write!(
                        out,
                        "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"white\" text-anchor=\"middle\" \
                         pointer-events=\"none\">{}</text>",
                        x + w / 2.0,
                        y + 29.0,
                        escape(&name)
                    );
                }
                held.push(format!("+{} {} {}", h(off as u64), h(size as u64), what));
            }
        }
        let list = match held.is_empty() {
            true => "all free".to_string(),
            false => held.join(" · "),
        };
        legend.push(format!("segment {}: {list}", seg.id));
    }
    out.push_str("</svg>");
    let _ = write!(
        out,
        "<div class=\"cudash-mem-legend\" style=\"font-family:monospace;font-size:11px;color:#374151\">{}</div>",
        legend
            .iter()
            .map(|l| escape(l))
            .collect::<Vec<_>>()
            .join("<br>")
    );
    out
}

/// `mem cpu`: the pinned host allocator's figures.
pub fn host_mem(s: &HostStats) -> String {
    format!(
        "<div class=\"cudash-mem\">{}{}</div>",
        badge(Device::Cpu),
        stat_table(
            memory::HOST_TITLE,
            &memory::host_rows(s),
            &memory::host_footer(s)
        )
    )
}
