//! `time N { }` and `profile { }`: what a block costs, in device time (CUDA
//! events on the current stream; modelled on the simulator) and in the
//! runtime's counters.

use std::time::Instant;

use super::{Interp, Output};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Expr};
use crate::lang::Span;

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

    /// `time N { }`: device time per iteration between two events on the
    /// current stream (measured on a GPU, modelled elsewhere); host wall
    /// clock when no device work ran.
    fn time_loop(&mut self, n: i64, body: &Block, span: Span) -> Result<(), Diagnostic> {
        let key = self.rt.current_stream().ok();
        let start_mark = match key {
            Some(k) => Some(self.rt.time_start(k).map_err(|e| e.at(span))?),
            None => None,
        };
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
        let iterations = format!("{n} iteration{}", if n == 1 { "" } else { "s" });
        let device_work = d.kernels + d.h2d.0 + d.d2h.0 + d.d2d.0 > 0;
        let text = match (key, start_mark) {
            (Some(k), Some(m0)) if device_work => {
                let t = self.rt.time_end(k, m0).map_err(|e| e.at(span))?;
                let per = t.seconds / n as f64;
                let stream = self.rt.stream_ref(k).name;
                let mut text = format!(
                    "time: {} per iteration (device time on cuda:{} stream `{stream}`, {}; {iterations})",
                    display::fmt_seconds(per),
                    k.device,
                    t.basis,
                );
                let bytes = d.h2d.1 + d.d2h.1 + d.d2d.1;
                if bytes > 0 && per > 0.0 {
                    let rate = bytes as f64 / n as f64 / per / 1e9;
                    text.push_str(&format!("\n      copies: {rate:.1} GB/s"));
                }
                text
            }
            _ => format!(
                "time: {} per iteration (host wall clock, {iterations})",
                display::fmt_seconds(wall)
            ),
        };
        self.emit(Output::Text(text));
        Ok(())
    }

    /// `profile { }`: the block once, then what it counted.
    pub(crate) fn exec_profile(&mut self, body: &Block) -> Result<(), Diagnostic> {
        let before = self.rt.counters.clone();
        let segments = self.rt.total_segments();
        let start = Instant::now();
        self.exec_block(body)?;
        let wall = start.elapsed().as_secs_f64();
        let mut d = self.rt.counters.since(&before);
        d.segments = self.rt.total_segments() - segments;
        let model = self.rt.modelled_on();
        self.emit(Output::Text(display::profile_table(
            &d,
            wall,
            model.as_deref(),
        )));
        Ok(())
    }
}
