//! `mem history`: a device's allocated and reserved bytes over its recorded
//! events, as a chart of block characters for terminals (one row per size
//! band, allocated solid, reserved shaded, the peak marked and named by its
//! statement) and as an SVG for notebooks, where hovering a column names the
//! statements in it. The part of allocated memory kept for backward (blocks
//! allocated outside backward and freed by a backward node: what PyTorch's
//! memory profiler calls activations) is its own band, so a training step
//! shows memory falling node by node during backward.

use std::collections::HashMap;

use crate::runtime::alloc::history::{Action, Entry, Place};
use crate::vocab::human_bytes;

use super::html::escape;

/// Rows of the text chart.
const ROWS: usize = 8;
/// Columns of the SVG chart at most.
const SVG_COLUMNS: usize = 240;
const EIGHTHS: [char; 8] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇'];

fn h(b: u64) -> String {
    human_bytes(b as u128)
}

/// One column: the events `first..=last` (0-based, in the kept ring), the
/// highest allocated and reserved among them, and the event of the highest allocated.
#[derive(Debug, Clone, Copy)]
struct Column {
    first: usize,
    last: usize,
    allocated: u64,
    reserved: u64,
    top: usize,
    /// Kept for backward at `top` (at most `allocated`).
    kept: u64,
}

/// Bytes kept for backward after each event: the blocks allocated outside
/// backward (`is_backward` of the allocation's op is false) whose free was
/// asked for by a backward node (a node freeing what it saved, or the
/// last reference a graph held), or that a graph still keeps
/// (`still_saved` of the address of a block not freed yet), from their
/// allocation to their free.
pub fn kept_for_backward(
    entries: &[Entry],
    is_backward: &dyn Fn(u16) -> bool,
    still_saved: &dyn Fn(u64) -> bool,
) -> Vec<u64> {
    let mut open: HashMap<u64, usize> = HashMap::new();
    let mut kept = vec![false; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        match e.action {
            Action::Alloc => {
                open.insert(e.addr, i);
            }
            Action::FreeRequested | Action::Free => {
                if let Some(a) = open.remove(&e.addr) {
                    kept[a] = !is_backward(entries[a].frame.op()) && is_backward(e.frame.op());
                }
            }
            _ => {}
        }
    }
    for (addr, a) in open {
        kept[a] = !is_backward(entries[a].frame.op()) && still_saved(addr);
    }
    let mut live: HashMap<u64, u64> = HashMap::new();
    let mut total = 0;
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            match e.action {
                Action::Alloc if kept[i] => {
                    live.insert(e.addr, e.size);
                    total += e.size;
                }
                Action::FreeRequested | Action::Free => {
                    total -= live.remove(&e.addr).unwrap_or(0);
                }
                _ => {}
            }
            total
        })
        .collect()
}

/// `entries` drawn in `n` columns: each a run of consecutive events, or,
/// with fewer events than columns, each event over several columns.
fn columns(entries: &[Entry], kept: &[u64], n: usize) -> Vec<Column> {
    let len = entries.len();
    if len == 0 {
        return Vec::new();
    }
    let n = n.max(1);
    (0..n)
        .map(|c| {
            let first = c * len / n;
            let last = ((c + 1) * len / n).max(first + 1) - 1;
            let slice = &entries[first..=last];
            let top = first
                + slice.iter().enumerate().fold(0, |best, (i, e)| {
                    if e.allocated > slice[best].allocated {
                        i
                    } else {
                        best
                    }
                });
            let allocated = slice.iter().map(|e| e.allocated).max().unwrap_or(0);
            Column {
                first,
                last,
                allocated,
                reserved: slice.iter().map(|e| e.reserved).max().unwrap_or(0),
                top,
                kept: kept.get(top).copied().unwrap_or(0).min(allocated),
            }
        })
        .collect()
}

/// The event with the highest allocated (the first of equals), and with the highest reserved.
fn peaks(entries: &[Entry]) -> (usize, usize) {
    let first_max = |f: fn(&Entry) -> u64| {
        let mut best = 0;
        for (i, e) in entries.iter().enumerate() {
            if f(e) > f(&entries[best]) {
                best = i;
            }
        }
        best
    };
    (first_max(|e| e.allocated), first_max(|e| e.reserved))
}

/// "cell 3, line 2: `h = x @ W` (matmul)", or what is known of it.
pub fn describe(place: Option<&Place>) -> String {
    match place {
        None => "before any statement ran".into(),
        Some(p) => {
            let op = match p.name {
                "" => String::new(),
                name => format!(" ({name})"),
            };
            format!("{}, line {}: `{}`{op}", p.filename, p.line, p.statement)
        }
    }
}

/// What heads both charts: the device, how many events, and what was dropped.
fn heading(device: &str, kept: usize, dropped: u64, number: u64) -> String {
    let dropped = match dropped {
        0 => String::new(),
        n => format!(", the {} before them dropped", count(n)),
    };
    let first = number - kept as u64 + 1;
    match first == number {
        true => format!("{device} memory history: event {}{dropped}", count(first)),
        false => format!(
            "{device} memory history: events {} to {}{dropped}",
            count(first),
            count(number)
        ),
    }
}

fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The text chart, `width` columns wide in all. `place(i)` resolves event `i`'s frame;
/// `dropped` events came before the kept ones; `kept[i]` is what was kept
/// for backward after event `i` ([`kept_for_backward`]).
pub fn text(
    device: &str,
    (entries, kept): (&[Entry], &[u64]),
    dropped: u64,
    width: usize,
    place: &mut dyn FnMut(usize) -> Option<Place>,
) -> String {
    let number = dropped + entries.len() as u64;
    let mut out = heading(device, entries.len(), dropped, number);
    let top = entries
        .iter()
        .map(|e| e.reserved.max(e.allocated))
        .max()
        .unwrap_or(0);
    if top == 0 {
        out.push_str(": nothing was allocated or reserved");
        out.push_str(&ooms(entries, dropped, place));
        return out;
    }
    let any_kept = kept.iter().any(|&k| k > 0);
    out.push_str(match any_kept {
        true => " (▓ activations, kept for backward; █ allocated; ░ reserved)\n",
        false => " (█ allocated, ░ reserved)\n",
    });
    let label_width = h(top).len().max(1);
    let plot = width.saturating_sub(label_width + 2).clamp(8, 200);
    let cols = columns(entries, kept, plot);
    let (peak_alloc, peak_reserved) = peaks(entries);
    let band = (top as f64 / ROWS as f64).max(1.0);
    for row in (0..ROWS).rev() {
        let (low, high) = (row as f64 * band, (row + 1) as f64 * band);
        let label = match row {
            r if r == ROWS - 1 => h(top),
            r if r == ROWS / 2 - 1 => h((high) as u64),
            _ => String::new(),
        };
        out.push_str(&format!("{label:>label_width$} ┤"));
        for c in &cols {
            let (a, r) = (c.allocated as f64, c.reserved as f64);
            let ch = if c.kept as f64 >= (low + high) / 2.0 {
                '▓'
            } else if a >= high {
                '█'
            } else if a > low {
                let eighths = (((a - low) / band) * 8.0).round() as usize;
                match eighths {
                    0 if r >= (low + high) / 2.0 => '░',
                    0 => ' ',
                    8 => '█',
                    e => EIGHTHS[e],
                }
            } else if r >= (low + high) / 2.0 {
                '░'
            } else {
                ' '
            };
            out.push(ch);
        }
        out.push('\n');
    }
    // The axis, with the peak's column marked.
    let marked = cols
        .iter()
        .position(|c| (c.first..=c.last).contains(&peak_alloc));
    out.push_str(&format!("{:>label_width$} └", "0"));
    for i in 0..cols.len() {
        out.push(if Some(i) == marked { '▲' } else { '─' });
    }
    out.push('\n');
    let first = count(dropped + 1);
    let last = count(number);
    let gap = cols.len().saturating_sub(first.len() + last.len());
    out.push_str(&format!("{:label_width$}  {first}{:gap$}{last}\n", "", ""));
    let a = entries[peak_alloc].allocated;
    out.push_str(&format!(
        "▲ {}\n",
        peak("allocated", a, peak_alloc, dropped, place)
    ));
    let r = entries[peak_reserved].reserved;
    out.push_str(&format!(
        "  {}\n",
        peak("reserved", r, peak_reserved, dropped, place)
    ));
    if any_kept {
        let k = kept[peak_alloc].min(a);
        out.push_str(&format!(
            "  activations at the peak {}, at most {} (blocks the forward made that only a graph kept, until a backward node freed them)\n",
            h(k),
            h(kept.iter().copied().max().unwrap_or(0))
        ));
    }
    let now = entries.last().copied();
    if let Some(now) = now {
        out.push_str(&format!(
            "  now {} allocated, {} reserved",
            h(now.allocated),
            h(now.reserved)
        ));
    }
    out.push_str(&ooms(entries, dropped, place));
    out
}

/// "peak allocated 16.0 MiB at event 4: cell 1, line 2: `...` (zeros)".
fn peak(
    what: &str,
    bytes: u64,
    i: usize,
    dropped: u64,
    place: &mut dyn FnMut(usize) -> Option<Place>,
) -> String {
    format!(
        "peak {what} {} at event {}: {}",
        h(bytes),
        count(dropped + i as u64 + 1),
        describe(place(i).as_ref())
    )
}

/// A line for each of the last out-of-memory events, if any.
fn ooms(entries: &[Entry], dropped: u64, place: &mut dyn FnMut(usize) -> Option<Place>) -> String {
    let all: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].action == Action::Oom)
        .collect();
    let mut out = String::new();
    if all.len() > 3 {
        out.push_str(&format!(
            "\n  {} out-of-memory errors; the last 3:",
            all.len()
        ));
    }
    for &i in all.iter().rev().take(3).rev() {
        let e = &entries[i];
        out.push_str(&format!(
            "\n✗ out of memory at event {}: asked for {} with {} free: {}",
            count(dropped + i as u64 + 1),
            h(e.size),
            h(e.addr),
            describe(place(i).as_ref())
        ));
    }
    out
}

/// The SVG chart for notebooks: reserved and allocated as areas, and one
/// transparent column per group of events whose title names its statements.
pub fn svg(
    device: &str,
    (entries, kept): (&[Entry], &[u64]),
    dropped: u64,
    place: &mut dyn FnMut(usize) -> Option<Place>,
) -> String {
    let (w, plot_h, left, pad) = (640.0, 160.0, 70.0, 10.0);
    let number = dropped + entries.len() as u64;
    let cols = columns(entries, kept, entries.len().min(SVG_COLUMNS));
    let top = entries
        .iter()
        .map(|e| e.reserved.max(e.allocated))
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let cw = (w - left - pad) / cols.len().max(1) as f64;
    let y = |b: u64| pad + plot_h - (b as f64 / top) * plot_h;
    let area = |f: &dyn Fn(&Column) -> u64| {
        let mut d = format!("M{left:.1},{:.1}", y(0));
        for (i, c) in cols.iter().enumerate() {
            let x0 = left + i as f64 * cw;
            d.push_str(&format!(
                " L{x0:.1},{:.1} L{:.1},{:.1}",
                y(f(c)),
                x0 + cw,
                y(f(c))
            ));
        }
        d.push_str(&format!(
            " L{:.1},{:.1} Z",
            left + cols.len() as f64 * cw,
            y(0)
        ));
        d
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" \
         font-family=\"monospace\" font-size=\"11\">",
        plot_h + 2.0 * pad + 36.0
    );
    s.push_str(&format!(
        "<path d=\"{}\" fill=\"#c6dbef\"/><path d=\"{}\" fill=\"#4e79a7\"/>",
        area(&|c| c.reserved),
        area(&|c| c.allocated)
    ));
    if cols.iter().any(|c| c.kept > 0) {
        s.push_str(&format!(
            "<path d=\"{}\" fill=\"#f28e2b\"><title>activations, kept for backward</title></path>",
            area(&|c| c.kept)
        ));
    }
    s.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"#333\"/>\
         <line x1=\"{left}\" y1=\"{pad}\" x2=\"{left}\" y2=\"{0:.1}\" stroke=\"#333\"/>",
        y(0),
        w - pad
    ));
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">0</text>",
        left - 4.0,
        pad + 4.0,
        escape(&h(top as u64)),
        left - 4.0,
        y(0)
    ));
    let (peak_alloc, _) = peaks(entries);
    for (i, c) in cols.iter().enumerate() {
        let e = &entries[c.top];
        let events = match c.first == c.last {
            true => format!("event {}", count(dropped + c.first as u64 + 1)),
            false => format!(
                "events {} to {}",
                count(dropped + c.first as u64 + 1),
                count(dropped + c.last as u64 + 1)
            ),
        };
        let kept = match c.kept {
            0 => String::new(),
            k => format!(" ({} of it activations, kept for backward)", h(k)),
        };
        let title = format!(
            "{events}: {} allocated{kept}, {} reserved at most; highest at {}",
            h(c.allocated),
            h(c.reserved),
            describe(place(c.top).as_ref())
        );
        let x = left + i as f64 * cw;
        s.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{pad}\" width=\"{cw:.2}\" height=\"{plot_h}\" fill=\"transparent\"><title>{}</title></rect>",
            escape(&title)
        ));
        if (c.first..=c.last).contains(&peak_alloc) {
            s.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#e15759\">▲</text>",
                x + cw / 2.0,
                y(e.allocated) - 2.0
            ));
        }
    }
    let a = entries[peak_alloc].allocated;
    s.push_str(&format!(
        "<text x=\"{left}\" y=\"{:.1}\">{}</text><text x=\"{left}\" y=\"{:.1}\">{}</text></svg>",
        y(0) + 16.0,
        escape(&heading(device, entries.len(), dropped, number)),
        y(0) + 30.0,
        escape(&format!(
            "▲ {}",
            peak("allocated", a, peak_alloc, dropped, place)
        ))
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::alloc::history::Frame;

    fn entry(allocated: u64, reserved: u64) -> Entry {
        Entry {
            action: Action::Alloc,
            addr: 0,
            size: 0,
            stream: 0,
            time_us: 0,
            frame: Frame::default(),
            allocated,
            reserved,
        }
    }

    #[test]
    fn the_chart_rises_and_falls_with_the_events_and_marks_the_peak() {
        let mib = 1 << 20;
        let entries: Vec<Entry> = [1, 2, 4, 8, 8, 4, 2, 1]
            .iter()
            .map(|&m| entry(m * mib, 8 * mib))
            .collect();
        let t = text("cuda:0", (&entries, &[]), 0, 20, &mut |_| None);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].starts_with("cuda:0 memory history: events 1 to 8"),
            "{t}"
        );
        // The top row: reserved everywhere, allocated only at the peak.
        let top_row: String = lines[1].chars().skip_while(|&c| c != '┤').skip(1).collect();
        assert_eq!(top_row.chars().filter(|&c| c == '█').count(), 2, "{t}");
        assert!(top_row.contains('░'), "{t}");
        let bottom_row: String = lines[ROWS]
            .chars()
            .skip_while(|&c| c != '┤')
            .skip(1)
            .collect();
        assert!(bottom_row.chars().all(|c| c == '█'), "{t}");
        let axis = lines[ROWS + 1];
        assert_eq!(axis.chars().filter(|&c| c == '▲').count(), 1, "{t}");
        assert!(
            t.contains("peak allocated 8.0 MiB at event 4: before any statement ran"),
            "{t}"
        );
        assert!(t.contains("now 1.0 MiB allocated, 8.0 MiB reserved"), "{t}");
    }

    /// A forward allocates three blocks; a backward node (op 2) frees two
    /// of them (kept for backward), the third is freed by a forward op;
    /// a block backward allocates and frees (op 2 both) is not kept.
    #[test]
    fn blocks_freed_by_backward_are_kept_for_backward_from_their_allocation() {
        let mib = 1 << 20;
        let ev = |action, addr, op: u16, allocated| Entry {
            action,
            addr,
            size: mib,
            frame: Frame::new(1, 0, op),
            ..entry(allocated * mib, 8 * mib)
        };
        let entries = [
            ev(Action::Alloc, 0, 1, 1),
            ev(Action::Alloc, 1, 1, 2),
            ev(Action::Alloc, 2, 1, 3),
            ev(Action::Alloc, 3, 2, 4),
            ev(Action::FreeRequested, 3, 2, 3),
            ev(Action::FreeRequested, 0, 2, 2),
            ev(Action::FreeRequested, 2, 1, 1),
            ev(Action::FreeRequested, 1, 2, 0),
        ];
        let m = |k: u64| k * mib;
        let kept = kept_for_backward(&entries, &|op| op == 2, &|_| false);
        // A block a graph still keeps counts from its allocation.
        let still = kept_for_backward(&entries[..3], &|op| op == 2, &|addr| addr == 1);
        assert_eq!(still, [0, m(1), m(1)]);
        assert_eq!(kept, [m(1), m(2), m(2), m(2), m(2), m(1), m(1), 0]);
        let t = text("cuda:0", (&entries, &kept), 0, 20, &mut |_| None);
        assert!(
            t.contains("(▓ activations, kept for backward; █ allocated; ░ reserved)"),
            "{t}"
        );
        assert!(t.contains('▓'), "{t}");
        assert!(
            t.contains("activations at the peak 2.0 MiB, at most 2.0 MiB"),
            "{t}"
        );
    }

    #[test]
    fn many_events_fit_the_width_and_the_svg_names_each_column() {
        let entries: Vec<Entry> = (0..10_000u64).map(|i| entry(i % 977, 1024)).collect();
        let t = text("cuda:1", (&entries, &[]), 5, 60, &mut |_| None);
        let mut chart = t.lines().filter(|l| l.contains('┤') || l.contains('└'));
        assert!(
            chart.clone().count() == ROWS + 1 && chart.all(|l| l.chars().count() <= 60),
            "{t}"
        );
        assert!(
            t.contains("events 6 to 10,005, the 5 before them dropped"),
            "{t}"
        );
        let s = svg("cuda:1", (&entries, &[]), 5, &mut |_| None);
        assert_eq!(s.matches("<title>").count(), SVG_COLUMNS);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
    }
}
