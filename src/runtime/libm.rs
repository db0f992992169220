//! The C library's `erf` and `erff`, which Rust's std lacks: one binding
//! for the host's loops (`ops/elementwise.rs`, where the emulated CUDA
//! kernels call the same functions, so sim and emu agree bit for bit) and
//! for the interpreter's numbers (`trunc_normal_`'s bounds, as Python's
//! `math.erf`), `lgamma` (PyTorch's CPU Poisson sampler calls it), `tgamma` and `erfc`
//! (Python's `math.gamma`, `math.erfc`).

mod c {
    extern "C" {
        pub fn erf(x: f64) -> f64;
        pub fn erff(x: f32) -> f32;
        pub fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        pub fn tgamma(x: f64) -> f64;
        pub fn erfc(x: f64) -> f64;
    }
}

pub fn erf(x: f64) -> f64 {
    // SAFETY: a pure function of a number.
    unsafe { c::erf(x) }
}

pub fn erff(x: f32) -> f32 {
    // SAFETY: a pure function of a number.
    unsafe { c::erff(x) }
}

/// `lgamma(x)` (as `lgamma_r`, which keeps the sign to itself rather than
/// in the global `signgam`).
pub fn lgamma(x: f64) -> f64 {
    let mut sign = 0;
    // SAFETY: a pure function of a number writing one local int.
    unsafe { c::lgamma_r(x, &mut sign) }
}

/// `tgamma(x)`, the gamma function (Python's `math.gamma`).
pub fn gamma(x: f64) -> f64 {
    // SAFETY: a pure function of a number.
    unsafe { c::tgamma(x) }
}

/// `erfc(x)` (Python's `math.erfc`).
pub fn erfc(x: f64) -> f64 {
    // SAFETY: a pure function of a number.
    unsafe { c::erfc(x) }
}
