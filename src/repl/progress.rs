//! A progress bar for long loops in the terminal: it appears after about a
//! second and disappears when the loop ends. Never in pipes or notebooks (only
//! the terminal REPL installs it). What the program prints meanwhile is
//! printed with the bar cleared first; once the program draws a progress
//! line of its own (tqdm's `\r`), the bar stays away until the loop ends.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

const DELAY: Duration = Duration::from_secs(1);

/// The bar while it shows, shared by the loop's callback (`bar`) and what
/// prints the program's output (`around`).
#[derive(Clone, Default)]
pub struct Shown(Rc<RefCell<State>>);

#[derive(Default)]
struct State {
    bar: Option<ProgressBar>,
    /// The program draws its own progress: no bar until the loop ends.
    held_back: bool,
}

impl Shown {
    /// Runs `print` with the bar cleared, then draws it again; after a
    /// line the program left open (`own_progress`), the bar goes away.
    pub fn around(&self, own_progress: bool, print: impl FnOnce()) {
        let mut s = self.0.borrow_mut();
        if own_progress {
            s.held_back = true;
            if let Some(b) = s.bar.take() {
                b.finish_and_clear();
            }
        }
        match &s.bar {
            Some(b) => b.suspend(print),
            None => print(),
        }
    }
}

/// The callback `Session::set_progress` takes.
pub fn bar(shown: Shown) -> impl FnMut(u64, u64) {
    let mut started: Option<Instant> = None;
    move |done, total| {
        let mut s = shown.0.borrow_mut();
        if done == u64::MAX || done >= total {
            if let Some(b) = s.bar.take() {
                b.finish_and_clear();
            }
            s.held_back = false;
            started = None;
            return;
        }
        // Reading the clock on every iteration of a tight loop costs more than the loop.
        if done > 256 && done % 256 != 0 {
            return;
        }
        let t0 = *started.get_or_insert_with(Instant::now);
        if s.bar.is_none() && !s.held_back && t0.elapsed() >= DELAY {
            let b = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:40} {human_pos}/{human_len} ({eta} left)  Ctrl-C stops",
            ) {
                b.set_style(style);
            }
            s.bar = Some(b);
        }
        if let Some(b) = &s.bar {
            b.set_position(done);
        }
    }
}
