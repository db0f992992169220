//! The C library's `erf` and `erff`, which Rust's std lacks: one binding
//! for the host's loops (`ops/elementwise.rs`, where the emulated CUDA
//! kernels call the same functions, so sim and emu agree bit for bit) and
//! for the interpreter's numbers (`trunc_normal_`'s bounds, as Python's
//! `math.erf`).

mod c {
    extern "C" {
        pub fn erf(x: f64) -> f64;
        pub fn erff(x: f32) -> f32;
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
