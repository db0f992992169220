//! `time N { }` and `profile { }`: what a block costs, in device time (CUDA
//! events on the current stream; modelled on the simulator) and in the
//! runtime's counters.

use std::path::Path;
use std::time::Instant;

use super::flow::Flow;
use super::{Interp, Output, Shown};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Expr};
use crate::lang::Span;
use crate::runtime::dispatch::timer;
use crate::runtime::stream::StreamKey;
use crate::runtime::timeline::trace::TraceWriter;
use crate::runtime::timeline::Kind;

impl Interp {
    pub(crate) fn exec_time(
        &mut self,
        count: Option<&Expr>,
        body: &Block,
        span: Span,
    ) -> Result<Flow, Diagnostic> {
        let n = match count {
            Some(e) => self.eval_int(e, 0, "the iteration count of `time`")?,
            None => 1,
        };
        if n < 1 {
            return Err(Error::value("`time` needs at least 1 iteration").at(span));
        }
        self.time_loop(n, body, span)
    }

    /// `time N { }`: device time per iteration, over every stream the block
    /// queued work on (`Runtime::time_end`); host wall clock when it queued
    /// no device work. A `break`, `continue` or `return` in the block ends
    /// the timing there (the iterations run so far are reported) and leaves
    /// the block, as out of any block.
    fn time_loop(&mut self, n: i64, body: &Block, span: Span) -> Result<Flow, Diagnostic> {
        let start_mark = self.timer_start(span)?;
        let before = self.rt.counters.clone();
        let start = Instant::now();
        self.quiet += 1;
        let (mut ran, mut flow) = (0, Ok(Flow::Next));
        while ran < n && matches!(flow, Ok(Flow::Next)) {
            flow = self.exec_block(body);
            ran += 1;
            self.progress(ran as u64, n as u64);
        }
        self.progress(n as u64, n as u64);
        self.quiet -= 1;
        let flow = flow?;
        let n = ran;
        let wall = start.elapsed().as_secs_f64() / n as f64;
        let d = self.rt.counters.since(&before);
        let host = start_mark
            .as_ref()
            .and_then(|m| self.rt.modelled_host_time(m));
        let device = self.timer_end(start_mark, span)?;
        let iterations = format!("{n} iteration{}", if n == 1 { "" } else { "s" });
        let text = match device {
            Some(t) => {
                let per = t.seconds / n as f64;
                let mut text = format!(
                    "time: {} per iteration (device time on {}, {}; {iterations})",
                    display::fmt_seconds(per),
                    self.where_timed(&t.streams),
                    t.basis,
                );
                let bytes = (d.h2d.1 + d.d2h.1 + d.d2d.1) / n as u64;
                if bytes >= COPY_RATE_FROM && per > 0.0 {
                    text.push_str(&copy_rate(bytes, d.copy_ns, n, per, t.measured));
                }
                text
            }
            None => match host {
                Some(modelled) => format!(
                    "time: {} per iteration (host time: page-locking, modelled; {iterations})",
                    display::fmt_seconds(wall + modelled / n as f64)
                ),
                None => format!(
                    "time: {} per iteration (host wall clock, {iterations})",
                    display::fmt_seconds(wall)
                ),
            },
        };
        self.emit(Output::Text(text));
        Ok(flow)
    }

    /// `profile { }`: the block once, then what it counted and its device
    /// time, the same figure `time 1 { }` gives, and its timeline when it
    /// queued device work. At the end the host waits for the work the block
    /// queued, as PyTorch's profiler synchronises on exit; that wait is not
    /// counted as one of the block's host syncs. `profile "run.json" { }`
    /// also writes the timeline as a Chrome trace, as it is recorded.
    pub(crate) fn exec_profile(
        &mut self,
        file: Option<&Expr>,
        body: &Block,
        span: Span,
    ) -> Result<Flow, Diagnostic> {
        if self.rt.recording() {
            return Err(Error::value_help(
                "`profile` blocks do not nest",
                "profile the outer block only; its timeline shows the inner one's work too",
            )
            .at(span));
        }
        let start_mark = self.timer_start(span)?;
        let trace = match file {
            Some(e) => {
                let path = self.eval_str(e, "the trace file of `profile`")?;
                let w = TraceWriter::create(Path::new(&path))
                    .map_err(|err| trace_error(&path, err).at(e.span))?;
                Some((path, w))
            }
            None => None,
        };
        let before = self.rt.counters.clone();
        let segments = self.rt.total_segments();
        let (path, writer) = trace.unzip();
        self.rt.timeline_start(writer).map_err(|e| e.at(span))?;
        let start = Instant::now();
        self.shown_after = Some(Vec::new());
        let ran = self.exec_block(body);
        let wall = start.elapsed().as_secs_f64();
        let later = self.shown_after.take().unwrap_or_default();
        let flow = match ran {
            Ok(flow) => flow,
            Err(e) => {
                // The trace keeps what ran before the error (or the interrupt).
                if let (Some(path), Ok(Some((_, Ok(()))))) = (&path, self.rt.timeline_end()) {
                    self.emit(Output::Warning(format!(
                        "the block stopped early: the trace in {path} has what ran until then"
                    )));
                }
                return Err(e);
            }
        };
        let mut d = self.rt.counters.since(&before);
        d.segments = self.rt.total_segments() - segments;
        // The timeline ends before the profile's own final wait, which is
        // not the block's; items still running end past the host clock.
        let timeline = self.rt.timeline_end().map_err(|e| e.at(span))?;
        self.begin_op("profile");
        let timed = self.timer_end(start_mark, span);
        let device = timed?.map(|t| display::ProfileTime {
            seconds: t.seconds,
            measured: t.measured,
            on: format!("{}, {}", self.where_timed(&t.streams), t.basis),
            busy_modelled_on: t.measured.then(|| self.rt.modelled_on()).flatten(),
            overlap: timeline
                .as_ref()
                .and_then(|(tl, _)| display::timeline::comm_overlap(tl)),
        });
        let table = display::profile_table(&d, wall, device.as_ref());
        let mut text = table.clone();
        // With a timeline, a display (a notebook draws it as SVG).
        let mut svg = None;
        if let Some((timeline, written)) = timeline {
            // Host work alone (CPU tensors) draws no timeline: the table's
            // wall time is what it cost.
            if timeline.items.iter().any(|i| i.kind != Kind::HostWork) {
                text.push_str("\n\n");
                text.push_str(&display::timeline::text(&timeline, self.hooks.width));
                svg = Some(self.hooks.html.then(|| display::timeline::svg(&timeline)));
            }
            if let Some(path) = path {
                written.map_err(|err| trace_error(&path, err).at(span))?;
                text.push_str(&format!(
                    "\ntrace written to {path} (open it in https://ui.perfetto.dev)"
                ));
            }
        }
        match svg {
            Some(svg) => {
                let html = svg.map(|svg| format!("{}{svg}", display::html::preformatted(&table)));
                self.emit(Output::Display(Shown { html, text }))
            }
            None => self.emit(Output::Text(text)),
        }
        for (v, at) in later {
            self.show(v, at)?;
        }
        Ok(flow)
    }

    fn timer_start(&mut self, span: Span) -> Result<Option<timer::Start>, Diagnostic> {
        if self.rt.devices.count() == 0 {
            return Ok(None);
        }
        self.rt.time_start().map(Some).map_err(|e| e.at(span))
    }

    fn timer_end(
        &mut self,
        start: Option<timer::Start>,
        span: Span,
    ) -> Result<Option<timer::DeviceTime>, Diagnostic> {
        match start {
            Some(s) => self.rt.time_end(s).map_err(|e| e.at(span)),
            None => Ok(None),
        }
    }

    /// `cuda:0 stream `default``, `cuda:0 streams `default`, `s``, or
    /// several devices joined with `and`.
    fn where_timed(&self, streams: &[StreamKey]) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut devices: Vec<u32> = streams.iter().map(|k| k.device).collect();
        devices.dedup();
        for d in devices {
            let names: Vec<String> = streams
                .iter()
                .filter(|k| k.device == d)
                .map(|&k| format!("`{}`", self.rt.stream_ref(k).name))
                .collect();
            let word = if names.len() == 1 {
                "stream"
            } else {
                "streams"
            };
            parts.push(format!("cuda:{d} {word} {}", names.join(", ")));
        }
        parts.join(" and ")
    }
}

/// A trace file that could not be created or written.
fn trace_error(path: &str, err: std::io::Error) -> Error {
    Error::Io {
        action: "write the trace".into(),
        path: path.into(),
        reason: err.to_string(),
    }
}

/// `time`'s line on the block's copies: their own rate (bytes over the
/// time the copy engines were busy with them, not over the whole block)
/// and the share of each iteration they took. On a GPU the block's time
/// is measured with events at its ends only: `profile` times each copy.
fn copy_rate(bytes: u64, copy_ns: u64, n: i64, per: f64, measured: bool) -> String {
    let copying = copy_ns as f64 * 1e-9 / n as f64;
    if measured || copying <= 0.0 {
        return format!(
            "\n      copies: {} per iteration (`profile` times each copy)",
            crate::vocab::human_bytes(u128::from(bytes))
        );
    }
    format!(
        "\n      copies: {:.1} GB/s while copying, {} per iteration ({:.0}% of it)",
        bytes as f64 / copying / 1e9,
        display::fmt_seconds(copying),
        (100.0 * copying / per).min(100.0)
    )
}

/// Below this many bytes copied per iteration, `time` gives no copy rate:
/// a few bytes in a fixed-cost copy make a meaningless GB/s.
const COPY_RATE_FROM: u64 = 1 << 20;
