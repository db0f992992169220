//! A progress bar for long loops in the terminal: it appears after about a
//! second and disappears when the loop ends. Never in pipes or notebooks (only
//! the terminal REPL installs it).

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

const DELAY: Duration = Duration::from_secs(1);

/// The callback `Session::set_progress` takes.
pub fn bar() -> impl FnMut(u64, u64) {
    let mut started: Option<Instant> = None;
    let mut shown: Option<ProgressBar> = None;
    move |done, total| {
        if done == u64::MAX || done >= total {
            if let Some(b) = shown.take() {
                b.finish_and_clear();
            }
            started = None;
            return;
        }
        // Reading the clock on every iteration of a tight loop costs more than the loop.
        if done > 256 && done % 256 != 0 {
            return;
        }
        let t0 = *started.get_or_insert_with(Instant::now);
        if shown.is_none() && t0.elapsed() >= DELAY {
            let b = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:40} {human_pos}/{human_len} ({eta} left)  Ctrl-C stops",
            ) {
                b.set_style(style);
            }
            shown = Some(b);
        }
        if let Some(b) = &shown {
            b.set_position(done);
        }
    }
}
