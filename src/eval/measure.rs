//! `time N { }` and `profile { }`: what a block costs, in device time (CUDA
//! events on the current stream; modelled on the simulator) and in the
//! runtime's counters.

use std::time::Instant;

use super::{Interp, Output};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Expr};
use crate::lang::Span;
use crate::runtime::dispatch::timer;
use crate::runtime::stream::StreamKey;

impl Interp {
    pub(crate) fn exec_time(
        &mut self,
        count: Option<&Expr>,
        body: &Block,
        span: Span,
    ) -> Result<(), Diagnostic> {
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
    /// no device work.
    fn time_loop(&mut self, n: i64, body: &Block, span: Span) -> Result<(), Diagnostic> {
        let start_mark = self.timer_start(span)?;
        let before = self.rt.counters.clone();
        let start = Instant::now();
        self.quiet += 1;
        let r = (0..n).try_for_each(|i| {
            let r = self.exec_block(body);
            self.progress(i as u64 + 1, n as u64);
            r
        });
        self.progress(n as u64, n as u64);
        self.quiet -= 1;
        r?;
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
                    let rate = bytes as f64 / per / 1e9;
                    text.push_str(&format!("\n      copies: {rate:.1} GB/s"));
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
        Ok(())
    }

    /// `profile { }`: the block once, then what it counted and its device
    /// time, the same figure `time 1 { }` gives. At the end the host waits
    /// for the work the block queued, as PyTorch's profiler synchronises on
    /// exit; that wait is not counted as one of the block's host syncs.
    pub(crate) fn exec_profile(&mut self, body: &Block, span: Span) -> Result<(), Diagnostic> {
        let start_mark = self.timer_start(span)?;
        let before = self.rt.counters.clone();
        let segments = self.rt.total_segments();
        let start = Instant::now();
        self.exec_block(body)?;
        let wall = start.elapsed().as_secs_f64();
        let mut d = self.rt.counters.since(&before);
        d.segments = self.rt.total_segments() - segments;
        let device = self
            .timer_end(start_mark, span)?
            .map(|t| display::ProfileTime {
                seconds: t.seconds,
                on: format!("{}, {}", self.where_timed(&t.streams), t.basis),
                busy_modelled_on: t.measured.then(|| self.rt.modelled_on()).flatten(),
            });
        self.emit(Output::Text(display::profile_table(
            &d,
            wall,
            device.as_ref(),
        )));
        Ok(())
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

/// Below this many bytes copied per iteration, `time` gives no copy rate:
/// a few bytes in a fixed-cost copy make a meaningless GB/s.
const COPY_RATE_FROM: u64 = 1 << 20;
