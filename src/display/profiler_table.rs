//! `torch.profiler`'s `key_averages().table()`: a timeline's ops, the CUDA
//! runtime calls the host made for them and the device's kernels and
//! copies, one row per name, in PyTorch's columns and number formats
//! (PyTorch 2.15's `_build_table`).
//!
//! Each op the host began (`Timeline::ops`) runs until the next begins:
//! its `CPU total`. Its launches (`cudaLaunchKernel`, `cudaMemcpyAsync`)
//! and host waits (`cudaStreamSynchronize`, `cudaDeviceSynchronize`,
//! `cudaEventSynchronize`) are its children, rows of their own; what is
//! left is its `Self CPU`. Its kernels' and copies' device time is its
//! `Self CUDA`, as PyTorch gives an op the kernels it launched; the
//! kernels and copies are rows too, and only they make up `Self CUDA time
//! total`. cudash lists each op once under its PyTorch name: the ops
//! PyTorch's dispatcher runs inside it (`aten::matmul` → `aten::mm`) are
//! not rows.

use crate::runtime::timeline::{Kind, Timeline, STAGING};

/// One row: times in seconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    pub name: String,
    pub self_cpu: f64,
    pub cpu_total: f64,
    pub self_cuda: f64,
    pub cuda_total: f64,
    pub count: u64,
    /// A kernel or copy (counts towards `Self CUDA time total`).
    pub device: bool,
    first: f64,
}

/// PyTorch's name for the op cudash calls `op`.
fn op_name(op: &str) -> String {
    let node = op.ends_with("Backward0") || op.ends_with("Backward1") || op.ends_with("Backward");
    match op {
        "AccumulateGrad" => {
            "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad".into()
        }
        _ if node => format!("autograd::engine::evaluate_function: {op}"),
        _ => format!("aten::{op}"),
    }
}

/// The CUDA runtime call a host wait for `what` is.
fn wait_call(what: Option<&str>) -> &'static str {
    match what {
        Some("an event") => "cudaEventSynchronize",
        Some("every device") => "cudaDeviceSynchronize",
        Some(w) if w.starts_with("cuda:") && !w.contains(' ') => "cudaDeviceSynchronize",
        _ => "cudaStreamSynchronize",
    }
}

/// The ops cudash begins that are not PyTorch's ops (a value shown, a
/// module's call), and the syncs, which are their waits (a row named by
/// the CUDA call each is: `cudaDeviceSynchronize`, ...).
fn skipped(op: &str) -> bool {
    matches!(op, "show" | "forward" | "profile" | "synchronize" | "sync")
}

/// The row named `name` (added, first seen at `first`, if new).
fn row_of<'a>(rows: &'a mut Vec<Row>, name: &str, first: f64) -> &'a mut Row {
    let k = match rows.iter().position(|r| r.name == name) {
        Some(k) => k,
        None => {
            rows.push(Row {
                name: name.to_string(),
                first,
                ..Row::default()
            });
            rows.len() - 1
        }
    };
    &mut rows[k]
}

/// The rows of timeline `t`, in the order each name first ran; the
/// device's kernels and copies only when `cuda` (`ProfilerActivity.CUDA`).
pub fn key_averages(t: &Timeline, cuda: bool) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for (k, &(op, start, python)) in t.ops.iter().enumerate() {
        if python || skipped(op) {
            continue;
        }
        let end = t
            .ops
            .get(k + 1)
            .map_or(t.host_end, |&(_, s, _)| s)
            .max(start);
        let r = row_of(&mut rows, &op_name(op), start);
        r.cpu_total += end - start;
        r.self_cpu += end - start;
        r.count += 1;
    }
    for item in &t.items {
        let d = item.end - item.start;
        let parent = op_name(item.op);
        // The CUDA call `call` on the host: its own row (`calls` more of
        // it), and time out of its op's `Self CPU`.
        let host_call = |rows: &mut Vec<Row>, call: &str, calls: u64| {
            if let Some(r) = rows.iter_mut().find(|r| r.name == parent) {
                r.self_cpu = (r.self_cpu - d).max(0.0);
            }
            let r = row_of(rows, call, item.start);
            r.self_cpu += d;
            r.cpu_total += d;
            r.count += calls;
        };
        match item.kind {
            Kind::Launch if item.lane == 0 => {
                // The call that queued it (named when each launch is kept).
                let call = item.detail.as_deref().unwrap_or("cudaLaunchKernel");
                host_call(&mut rows, call, 1);
            }
            // The driver staging pageable memory: inside the copy's call.
            Kind::HostWait if item.lane == 0 && item.detail.as_deref() == Some(STAGING) => {
                host_call(&mut rows, "cudaMemcpyAsync", 0);
            }
            Kind::HostWait if item.lane == 0 => {
                host_call(&mut rows, wait_call(item.detail.as_deref()), 1);
            }
            Kind::Kernel | Kind::Copy(_) if cuda => {
                if let Some(r) = rows.iter_mut().find(|r| r.name == parent) {
                    r.self_cuda += d;
                    r.cuda_total += d;
                }
                let name = match item.kind {
                    Kind::Copy("H2D") => "Memcpy HtoD".to_string(),
                    Kind::Copy("D2H") => "Memcpy DtoH".to_string(),
                    Kind::Copy(_) => "Memcpy DtoD".to_string(),
                    _ => format!("{parent} kernel"),
                };
                let r = row_of(&mut rows, &name, item.start);
                r.self_cuda += d;
                r.cuda_total += d;
                r.count += 1;
                r.device = true;
            }
            _ => {}
        }
    }
    ranges(t, &mut rows);
    rows.sort_by(|a, b| a.first.total_cmp(&b.first));
    rows
}

/// The program's labelled ranges (`record_function`), each a row: its
/// span as `CPU total` (its ops' own rows keep their time, so its `Self
/// CPU` is what ran outside them: nothing on the model), and the device
/// time of the work launched inside it as `CUDA total`. One pass over
/// the items: each kernel or copy at the start of the launch before it
/// (host-clock order), with running sums to read a range's share.
fn ranges(t: &Timeline, rows: &mut Vec<Row>) {
    if t.ranges.is_empty() {
        return;
    }
    let (mut launched, mut at, mut sums) = (f64::NEG_INFINITY, Vec::new(), vec![0.0]);
    for item in &t.items {
        match item.kind {
            Kind::Launch => launched = item.start,
            Kind::Kernel | Kind::Copy(_) => {
                at.push(launched);
                sums.push(sums[sums.len() - 1] + item.end - item.start);
            }
            _ => {}
        }
    }
    for (name, start, end) in &t.ranges {
        let end = end.unwrap_or(t.host_end).max(*start);
        let (from, to) = (
            at.partition_point(|&a| a < *start),
            at.partition_point(|&a| a < end),
        );
        let r = row_of(rows, name, *start);
        r.cpu_total += end - start;
        r.cuda_total += sums[to] - sums[from];
        r.count += 1;
    }
}

/// A row's figure that `sort_by` names (PyTorch's attribute, `cuda` or
/// `device`), or None for a name it does not know.
fn sort_key(r: &Row, by: &str) -> Option<f64> {
    let by = by.replace("cuda", "device");
    let n = r.count.max(1) as f64;
    Some(match by.as_str() {
        "cpu_time_total" => r.cpu_total,
        "self_cpu_time_total" => r.self_cpu,
        "device_time_total" => r.cuda_total,
        "self_device_time_total" => r.self_cuda,
        "cpu_time" => r.cpu_total / n,
        "device_time" => r.cuda_total / n,
        "count" => r.count as f64,
        _ => return None,
    })
}

/// The names `sort_by` takes.
pub const SORT_KEYS: &str = "cpu_time_total, self_cpu_time_total, cuda_time_total, self_cuda_time_total, cpu_time, cuda_time, count (or `device` for `cuda`)";

/// PyTorch's `_format_time`: microseconds as `us`, `ms` or `s`, 3 decimals.
fn time(seconds: f64) -> String {
    let us = seconds * 1e6;
    if us >= 1e6 {
        format!("{:.3}s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.3}ms", us / 1e3)
    } else {
        format!("{us:.3}us")
    }
}

fn share(part: f64, total: f64) -> String {
    match total == 0.0 {
        true => "NaN".into(),
        false => format!("{:.2}%", part * 100.0 / total),
    }
}

/// The table of `rows`, sorted by `sort_by` (descending, ties in order),
/// at most `row_limit` of them. Err names a `sort_by` it does not know.
pub fn table(
    mut rows: Vec<Row>,
    sort_by: Option<&str>,
    row_limit: usize,
) -> Result<String, String> {
    if rows.is_empty() {
        return Ok(String::new());
    }
    if let Some(by) = sort_by {
        if sort_key(&rows[0], by).is_none() {
            return Err(by.to_string());
        }
        rows.sort_by(|a, b| {
            let (x, y) = (
                sort_key(a, by).unwrap_or(0.0),
                sort_key(b, by).unwrap_or(0.0),
            );
            y.total_cmp(&x)
        });
    }
    let device = rows.iter().any(|r| r.self_cuda > 0.0);
    let name_width = (rows.iter().map(|r| r.name.len()).max().unwrap_or(0) + 4).min(55);
    let mut headers = vec![
        "Name",
        "Self CPU %",
        "Self CPU",
        "CPU total %",
        "CPU total",
        "CPU time avg",
    ];
    if device {
        headers.extend(["Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"]);
    }
    headers.push("# of Calls");
    let widths: Vec<usize> = (0..headers.len())
        .map(|k| if k == 0 { name_width } else { 12 })
        .collect();
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (c, w) in cells.iter().zip(&widths) {
            s.push_str(&format!("{c:>w$}  "));
        }
        s
    };
    let sep: String = widths.iter().map(|w| "-".repeat(*w) + "  ").collect();
    let cpu_sum: f64 = rows.iter().map(|r| r.self_cpu).sum();
    let cuda_sum: f64 = rows.iter().filter(|r| r.device).map(|r| r.self_cuda).sum();
    let mut out = String::new();
    let mut push = |s: &str| {
        out.push_str(s);
        out.push('\n');
    };
    push(&sep);
    push(&line(
        &headers.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
    ));
    push(&sep);
    for r in rows.iter().take(row_limit) {
        let mut name = r.name.clone();
        if name.len() >= 52 {
            name.truncate(52);
            name.push_str("...");
        }
        let n = r.count.max(1) as f64;
        let mut cells = vec![
            name,
            share(r.self_cpu, cpu_sum),
            time(r.self_cpu),
            share(r.cpu_total, cpu_sum),
            time(r.cpu_total),
            time(r.cpu_total / n),
        ];
        if device {
            cells.extend([
                time(r.self_cuda),
                share(r.self_cuda, cuda_sum),
                time(r.cuda_total),
                time(r.cuda_total / n),
            ]);
        }
        cells.push(r.count.to_string());
        push(&line(&cells));
    }
    push(&sep);
    push(&format!("Self CPU time total: {}", time(cpu_sum)));
    if device {
        push(&format!("Self CUDA time total: {}", time(cuda_sum)));
    }
    Ok(out)
}
