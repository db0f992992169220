//! The clock a Python program reads: `time.perf_counter`, `time.monotonic`,
//! `time.time` (and so `timeit`, `datetime.now`, `logging`'s times).
//!
//! On a GPU it is the wall clock, as Python's. Where device time is
//! modelled (`sim`, `emu`) the wall clock times the simulator, whose kernels
//! run one after another on this machine's cores: a program timing its GPU
//! work (`torch.cuda.synchronize(); t0 = time.perf_counter()`), or the
//! model-parallel tutorial timing a pipelined ResNet with `timeit`, would
//! learn the simulator's speed, not the GPU's. So the program's clock moves
//! as `torch.utils.benchmark`'s timer does: between two readings, by the
//! modelled host clock's advance where the model moved (launches, host
//! work, waits for devices, on the reference machine), and by the wall
//! clock's where it did not (Python alone, which the model does not time).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use super::Interp;

/// The program clock's state: its reading, and both clocks at that reading.
#[derive(Default)]
pub struct ProgramClock {
    /// Seconds since the process began counting.
    value: f64,
    wall: f64,
    model: Option<f64>,
}

impl ProgramClock {
    /// The clock now, given the wall clock and the modelled host clock
    /// (None where the wall clock is the measure).
    fn read(&mut self, wall: f64, model: Option<f64>) -> f64 {
        let by_wall = (wall - self.wall).max(0.0);
        let step = match (self.model, model) {
            (Some(before), Some(now)) if now > before => now - before,
            _ => by_wall,
        };
        self.value += step;
        self.wall = wall;
        self.model = model;
        self.value
    }
}

/// When the process began counting (the program clock's zero), on the wall
/// clock and in seconds since the Unix epoch.
fn origin() -> (Instant, f64) {
    static ORIGIN: std::sync::OnceLock<(Instant, f64)> = std::sync::OnceLock::new();
    *ORIGIN.get_or_init(|| {
        let epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        (Instant::now(), epoch)
    })
}

impl Interp {
    /// `time.perf_counter()`: seconds on the program's clock.
    pub(super) fn program_seconds(&mut self) -> f64 {
        let wall = origin().0.elapsed().as_secs_f64();
        let model = self.rt.host_modelled().then(|| self.rt.host_now());
        self.clock.read(wall, model)
    }

    /// `time.time()`: the program's clock as seconds since the Unix epoch.
    pub(super) fn program_epoch(&mut self) -> f64 {
        origin().1 + self.program_seconds()
    }
}

#[cfg(test)]
mod tests {
    use super::ProgramClock;

    #[test]
    fn the_model_times_what_it_models_and_the_wall_clock_the_rest() {
        let mut c = ProgramClock::default();
        assert_eq!(c.read(1.0, Some(0.0)), 1.0);
        // 3 s of simulating 0.25 s of GPU work: 0.25 s.
        assert_eq!(c.read(4.0, Some(0.25)), 1.25);
        // Python alone for 0.5 s: the model did not move.
        assert_eq!(c.read(4.5, Some(0.25)), 1.75);
        // On a GPU, the wall clock.
        let mut g = ProgramClock::default();
        assert_eq!(g.read(2.0, None), 2.0);
        assert_eq!(g.read(2.5, None), 2.5);
    }
}
