//! `profile`'s timeline, drawn: one lane per (device, stream) and one for
//! the host, each kernel, copy and host wait a segment in time. The terminal
//! gets text scaled to a width; a notebook gets an SVG whose segments give
//! the op, shape, bytes, duration and stream on hover. Items too short to
//! see at that scale merge with their neighbours, so a block of 10⁵ ops
//! draws as fast as it reads.

use super::fmt_seconds;
use crate::runtime::timeline::{Item, Kind, Lane, Timeline};
use crate::vocab::human_bytes;

const KERNEL: char = '█';
const COPY: char = '▒';
const WAIT: char = '░';
const SYNC: char = '|';
const BEFORE: char = '·';
const WORK: char = '▓';
const LAUNCH: char = '▄';

fn fill(kind: Kind) -> char {
    match kind {
        Kind::Kernel => KERNEL,
        Kind::Copy(_) => COPY,
        Kind::HostWait => WAIT,
        Kind::HostWork => WORK,
        Kind::Launch => LAUNCH,
        Kind::Before => BEFORE,
    }
}

/// What a segment is called on the timeline: the op for kernels and waits,
/// the direction for copies.
fn label(item: &Item) -> String {
    match item.kind {
        Kind::Copy(dir) => dir.to_string(),
        _ => item.op.to_string(),
    }
}

/// The lanes in the order they are drawn: the host, then each device's
/// streams in order of creation (`default` first).
fn order(t: &Timeline) -> Vec<usize> {
    let mut order: Vec<usize> = (0..t.lanes.len()).collect();
    order.sort_by_key(|&i| t.lanes[i].0);
    order
}

/// The share of the span each lane was busy with the block's work (the
/// host: waiting), as the table's `device busy` counts it.
fn busy(t: &Timeline) -> Vec<f64> {
    let mut busy = vec![0.0; t.lanes.len()];
    for i in t.items.iter().filter(|i| i.kind != Kind::Before) {
        busy[i.lane] += i.end - i.start;
    }
    busy
}

/// Whether an item of `kind` is on the timeline.
fn any(t: &Timeline, kind: Kind) -> bool {
    t.items.iter().any(|i| i.kind == kind)
}

/// What the host lanes' percentages count.
fn host_share(t: &Timeline) -> String {
    let mut did = Vec::new();
    if any(t, Kind::Launch) {
        did.push("launching");
    }
    if any(t, Kind::HostWork) {
        did.push("working");
    }
    did.push("waiting");
    let did = match did.len() {
        1 => did[0].to_string(),
        n => format!("{} or {}", did[..n - 1].join(", "), did[n - 1]),
    };
    format!("% busy (the host: {did})")
}

/// Whether a stream was still running earlier work when the block began.
fn any_before(t: &Timeline) -> bool {
    t.items.iter().any(|i| i.kind == Kind::Before)
}

/// The timeline as text `width` columns wide.
/// How much of the collectives' time (items on a device's `nccl` stream)
/// ran beside other work on the same device, and that time in all:
/// `(overlapped, communication)` in seconds, when there was any.
pub fn comm_overlap(t: &Timeline) -> Option<(f64, f64)> {
    let is_comm = |lane: usize| t.lanes[lane].1.ends_with(" nccl");
    let device = |lane: usize| match t.lanes[lane].0 {
        Lane::Stream(k) => Some(k.device),
        _ => None,
    };
    let (mut overlapped, mut comm) = (0.0, 0.0);
    let devices: std::collections::BTreeSet<u32> = (0..t.lanes.len()).filter_map(device).collect();
    for d in devices {
        let spans = |want_comm: bool| {
            let mut s: Vec<(f64, f64)> = t
                .items
                .iter()
                .filter(|i| device(i.lane) == Some(d) && is_comm(i.lane) == want_comm)
                .filter(|i| matches!(i.kind, Kind::Kernel | Kind::Copy(_)))
                .map(|i| (i.start, i.end))
                .collect();
            s.sort_by(|a, b| a.0.total_cmp(&b.0));
            merged(s)
        };
        let (mine, others) = (spans(true), spans(false));
        comm += mine.iter().map(|(a, b)| b - a).sum::<f64>();
        for (a, b) in &mine {
            for (c, e) in &others {
                overlapped += (b.min(*e) - a.max(*c)).max(0.0);
            }
        }
    }
    (comm > 0.0).then_some((overlapped, comm))
}

/// Sorted intervals with the overlapping ones joined.
fn merged(spans: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

pub fn text(t: &Timeline, width: usize) -> String {
    let names: Vec<&str> = t.lanes.iter().map(|(_, n)| n.as_str()).collect();
    let name_w = names.iter().map(|n| n.chars().count()).max().unwrap_or(4);
    // "  name │bars│ 100%"
    let bars = width.saturating_sub(2 + name_w + 2 + 6).max(10);
    let span = t.end.max(1e-12);
    let unit = span / bars as f64;
    let mut rows: Vec<Vec<char>> = vec![vec![' '; bars]; t.lanes.len()];
    let mut labelled: Vec<Vec<bool>> = vec![vec![false; bars]; t.lanes.len()];
    let col = |s: f64| ((s / unit) as usize).min(bars - 1);
    // An item fills the columns it covers at least half of, and at least
    // one: rounding both ends keeps a gap of a column or more visible.
    let cols = |i: &Item| {
        let c0 = ((i.start / unit).round() as usize).min(bars - 1);
        let c1 = ((i.end / unit).round() as usize).clamp(c0 + 1, bars);
        (c0, c1)
    };
    for i in &t.items {
        let (c0, c1) = cols(i);
        for c in &mut rows[i.lane][c0..c1] {
            *c = fill(i.kind);
        }
    }
    for &(at, _) in &t.syncs {
        let c = col(at);
        if rows[0][c] == ' ' {
            rows[0][c] = SYNC;
        }
    }
    // Labels inside the segments wide enough to hold them.
    for i in &t.items {
        let (c0, c1) = cols(i);
        let name = label(i);
        let n = name.chars().count();
        if c1 - c0 < n + 2 || labelled[i.lane][c0..c1].iter().any(|&l| l) {
            continue;
        }
        let at = c0 + (c1 - c0 - n) / 2;
        for (k, ch) in name.chars().enumerate() {
            rows[i.lane][at + k] = ch;
        }
        for l in &mut labelled[i.lane][c0..c1] {
            *l = true;
        }
    }
    let busy = busy(t);
    let mut out = format!("timeline ({}; {} per column)", basis(t), fmt_seconds(unit));
    for lane in order(t) {
        let bar: String = rows[lane].iter().collect();
        let share = (busy[lane] / span * 100.0).round().min(100.0);
        out.push_str(&format!("\n  {:<name_w$} │{bar}│ {share:>3}%", names[lane]));
    }
    let end = fmt_seconds(t.end);
    out.push_str(&format!(
        "\n  {:<name_w$}  0{end:>w$}",
        "",
        w = bars.saturating_sub(1)
    ));
    let mut host = String::new();
    if any(t, Kind::Launch) {
        host.push_str(&format!("{LAUNCH} host launches  "));
    }
    if any(t, Kind::HostWork) {
        host.push_str(&format!("{WORK} host works  "));
    }
    out.push_str(&format!(
        "\n  {KERNEL} kernel  {COPY} copy  {host}{WAIT} host waits  {SYNC} host sync\n  {}",
        host_share(t)
    ));
    // Said when a mark of it is left to see (later work may cover it).
    if rows.iter().flatten().any(|&c| c == BEFORE) {
        out.push_str(&format!(
            "\n  {BEFORE} work queued before the block (its device time starts after it)"
        ));
    }
    out
}

/// One rectangle of the SVG: one item, or neighbours too short to draw apart.
struct Rect {
    lane: usize,
    x0: f64,
    x1: f64,
    first: usize,
    count: usize,
    busy: f64,
    kernels: usize,
}

const SVG_LANE_H: f64 = 22.0;
const SVG_NAME_W: f64 = 150.0;
const SVG_BARS_W: f64 = 650.0;

/// The timeline as an SVG for a notebook; every rectangle says what it is
/// on hover.
pub fn svg(t: &Timeline) -> String {
    let span = t.end.max(1e-12);
    let px = |s: f64| s / span * SVG_BARS_W;
    // Each lane's row, top to bottom.
    let mut row = vec![0; t.lanes.len()];
    for (r, lane) in order(t).into_iter().enumerate() {
        row[lane] = r;
    }
    let mut rects: Vec<Rect> = Vec::new();
    // The last rectangle of each lane, to merge short neighbours into.
    let mut last: Vec<Option<usize>> = vec![None; t.lanes.len()];
    for (n, i) in t.items.iter().enumerate() {
        let (x0, x1) = (px(i.start), px(i.end));
        let short = x1 - x0 < 2.0;
        if let Some(r) = last[i.lane].map(|k| &mut rects[k]) {
            if short && r.x1 - r.x0 < 2.0 * r.count as f64 + 2.0 && x0 <= r.x1 + 1.0 {
                r.x1 = r.x1.max(x1);
                r.count += 1;
                r.busy += i.end - i.start;
                r.kernels += usize::from(i.kind == Kind::Kernel);
                continue;
            }
        }
        last[i.lane] = Some(rects.len());
        rects.push(Rect {
            lane: i.lane,
            x0,
            x1,
            first: n,
            count: 1,
            busy: i.end - i.start,
            kernels: usize::from(i.kind == Kind::Kernel),
        });
    }
    // The lanes, the time axis, then the legend.
    let h = SVG_LANE_H * (t.lanes.len() as f64 + 2.0);
    let w = SVG_NAME_W + SVG_BARS_W + 10.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cudash-timeline\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"11\">"
    );
    let busy = busy(t);
    for (lane, (_, name)) in t.lanes.iter().enumerate() {
        let y = row[lane] as f64 * SVG_LANE_H;
        let share = (busy[lane] / span * 100.0).round().min(100.0);
        s.push_str(&format!(
            "<text x=\"0\" y=\"{:.1}\">{} ({share}%)</text><line x1=\"{SVG_NAME_W}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ccc\"/>",
            y + 15.0,
            super::html::escape(name),
            SVG_NAME_W + SVG_BARS_W,
            y + SVG_LANE_H - 2.0,
            y + SVG_LANE_H - 2.0,
        ));
    }
    // Host syncs as ticks; those within 2 px of the last tick share it.
    let mut ticks: Vec<(f64, usize, f64, &str)> = Vec::new();
    for &(at, op) in &t.syncs {
        match ticks.last_mut() {
            Some((x, n, _, _)) if px(at) - *x < 2.0 => *n += 1,
            _ => ticks.push((px(at), 1, at, op)),
        }
    }
    for (x, n, at, op) in ticks {
        let x = SVG_NAME_W + x;
        let title = match n {
            1 => format!("host sync ({op}) at {}", fmt_seconds(at)),
            n => format!("{n} host syncs from {}", fmt_seconds(at)),
        };
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"1\" y2=\"{:.1}\" stroke=\"#333\"><title>{title}</title></line>",
            SVG_LANE_H - 3.0,
        ));
    }
    for r in &rects {
        let first = &t.items[r.first];
        let y = row[r.lane] as f64 * SVG_LANE_H + 3.0;
        let x = SVG_NAME_W + r.x0;
        let width = (r.x1 - r.x0).max(1.0);
        let (color, title) = if r.count == 1 {
            (color(first.kind), hover(t, first))
        } else {
            (
                "#7f7f7f",
                format!(
                    "{} items ({} kernels, {} other) from {} to {}, busy {}",
                    r.count,
                    r.kernels,
                    r.count - r.kernels,
                    fmt_seconds(first.start),
                    fmt_seconds(r.x1 / SVG_BARS_W * span),
                    fmt_seconds(r.busy)
                ),
            )
        };
        s.push_str(&format!(
            "<rect x=\"{x:.2}\" y=\"{y:.1}\" width=\"{width:.2}\" height=\"{:.1}\" fill=\"{color}\"><title>{}</title></rect>",
            SVG_LANE_H - 6.0,
            super::html::escape(&title)
        ));
        let name = label(first);
        if r.count == 1 && width >= 7.0 * name.len() as f64 + 6.0 {
            s.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"white\" text-anchor=\"middle\" pointer-events=\"none\">{}</text>",
                x + width / 2.0,
                y + 12.0,
                super::html::escape(&name)
            ));
        }
    }
    let y = t.lanes.len() as f64 * SVG_LANE_H + 14.0;
    s.push_str(&format!(
        "<text x=\"{SVG_NAME_W}\" y=\"{y:.1}\">0</text><text x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"end\">{} ({})</text>",
        SVG_NAME_W + SVG_BARS_W,
        fmt_seconds(t.end),
        basis(t)
    ));
    s.push_str(&svg_legend(y + SVG_LANE_H, t));
    s.push_str("</svg>");
    s
}

/// The terminal's legend, drawn: what each colour and mark means, and
/// what the percentages are (a static render keeps it, unlike hover text).
fn svg_legend(y: f64, t: &Timeline) -> String {
    let mut s = String::new();
    let mut x = SVG_NAME_W;
    let mut kinds = vec![(Kind::Kernel, "kernel"), (Kind::Copy("H2D"), "copy")];
    if any(t, Kind::Launch) {
        kinds.push((Kind::Launch, "host launches"));
    }
    if any(t, Kind::HostWork) {
        kinds.push((Kind::HostWork, "host works"));
    }
    kinds.push((Kind::HostWait, "host waits"));
    if any_before(t) {
        kinds.push((Kind::Before, "queued before"));
    }
    for (kind, name) in kinds {
        s.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{y:.1}\">{name}</text>",
            y - 9.0,
            color(kind),
            x + 16.0
        ));
        x += 16.0 + 7.0 * name.len() as f64 + 14.0;
    }
    s.push_str(&format!(
        "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#333\"/><text x=\"{:.1}\" y=\"{y:.1}\">host sync</text>",
        y - 10.0,
        y + 1.0,
        x + 5.0
    ));
    x += 5.0 + 7.0 * 9.0 + 14.0;
    s.push_str(&format!(
        "<text x=\"{x:.1}\" y=\"{y:.1}\">{}</text>",
        host_share(t)
    ));
    s
}

/// How the times are known: `modelled` (the simulator, `emu`) or
/// `measured with CUDA events` (a GPU).
fn basis(t: &Timeline) -> &'static str {
    match t.measured {
        true => "measured with CUDA events",
        false => "modelled",
    }
}

fn color(kind: Kind) -> &'static str {
    match kind {
        Kind::Kernel => "#4c78a8",
        Kind::Copy(_) => "#f58518",
        Kind::HostWait => "#e45756",
        Kind::HostWork => "#54a24b",
        Kind::Launch => "#b279a2",
        Kind::Before => "#d0d0d0",
    }
}

/// An item's hover text: op, shape, bytes, duration and lane.
fn hover(t: &Timeline, i: &Item) -> String {
    let what = match i.kind {
        Kind::Kernel => format!("{} kernel", i.op),
        Kind::Copy(dir) => format!("{dir} copy ({})", i.op),
        Kind::HostWait => format!("host waits ({})", i.op),
        Kind::HostWork => format!("host works ({})", i.op),
        Kind::Launch => format!("host launches ({})", i.op),
        Kind::Before => "work queued before the block (its device time starts after it)".into(),
    };
    let mut parts = vec![what];
    if let Some(d) = &i.detail {
        parts.push(match i.kind {
            Kind::HostWait => format!("for {d}"),
            _ => d.to_string(),
        });
    }
    if i.bytes > 0 {
        parts.push(human_bytes(i.bytes as u128));
    }
    parts.push(format!(
        "{} from {}",
        fmt_seconds(i.end - i.start),
        fmt_seconds(i.start)
    ));
    parts.push(format!("on {}", t.lanes[i.lane].1));
    parts.join("\n")
}
