//! How PyTorch's CPU kernels divide their work, which fixes the order of
//! their floating-point operations: the width of its `Vectorized` registers
//! and the chunks `at::parallel_for` gives its threads.

use crate::runtime::parallel;

/// PyTorch's `at::internal::GRAIN_SIZE`: fewer elements run on one thread.
pub const GRAIN: usize = 32_768;

/// How a PyTorch CPU kernel is registered, which decides the width of
/// its `Vectorized` registers on an AVX-512 CPU. PyTorch compiles every
/// kernel for AVX2 and for AVX-512, but `REGISTER_DISPATCH` leaves the
/// AVX-512 slot empty (`DispatchStub.h`), and the dispatcher then runs the
/// AVX2 build; only kernels registered with `ALSO_REGISTER_AVX512_DISPATCH`
/// run in 64-byte registers there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `REGISTER_DISPATCH`: sum, prod, norm, arange, linspace.
    Avx2Only,
    /// `ALSO_REGISTER_AVX512_DISPATCH`: softmax and log_softmax, pow, sigmoid.
    AlsoAvx512,
}

/// The instruction set PyTorch's CPU kernels are dispatched for
/// (`at::native::get_cpu_capability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// AVX2 and FMA, or any CPU without AVX-512 (NEON's pairs of registers
    /// are as wide).
    Avx2,
    /// AVX-512 F, BW, VL and DQ.
    Avx512,
}

/// This CPU's capability as PyTorch picks it: AVX-512 where the CPU has
/// it, unless `ATEN_CPU_CAPABILITY` (PyTorch's own variable) says `avx2`.
/// cudash computes AVX-512's bits without AVX-512 instructions, so
/// `ATEN_CPU_CAPABILITY=avx512` gives them on any CPU (where PyTorch would
/// stay at AVX2). PyTorch's `default` build, whose registers call libm
/// rather than SLEEF, is not modelled; that value is ignored.
pub fn capability() -> Capability {
    static CAPABILITY: std::sync::OnceLock<Capability> = std::sync::OnceLock::new();
    *CAPABILITY.get_or_init(|| {
        let forced = std::env::var("ATEN_CPU_CAPABILITY").unwrap_or_default();
        match forced.to_ascii_lowercase().as_str() {
            "avx2" => Capability::Avx2,
            "avx512" => Capability::Avx512,
            _ if cpu_has_avx512() => Capability::Avx512,
            _ => Capability::Avx2,
        }
    })
}

/// Whether the CPU has what PyTorch's AVX-512 build needs: F, BW, VL, DQ.
pub(super) fn cpu_has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512dq")
    {
        return true;
    }
    false
}

/// The instructions cudash's own CPU loops are compiled for on this CPU
/// (they take the same bits in any of them: only their speed differs).
/// Independent of `capability`: an AVX-512 CPU computing AVX2's bits still
/// runs them in 512-bit registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    Portable,
    Avx2,
    Avx512,
}

impl Isa {
    /// The best this CPU has, or less where `CUDASH_ISA` (`avx2` or
    /// `portable`) says so: the tests run the other builds of the loops
    /// that way, and a comparison of speeds can.
    pub fn of_cpu() -> Isa {
        static ISA: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *ISA.get_or_init(|| {
            let cap = match std::env::var("CUDASH_ISA").as_deref() {
                Ok("portable") => Isa::Portable,
                Ok("avx2") => Isa::Avx2,
                _ => Isa::Avx512,
            };
            cap.min(Isa::detected())
        })
    }

    fn detected() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if cpu_has_avx512() && std::is_x86_feature_detected!("fma") {
                return Isa::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }
}

/// The name `ATEN_CPU_CAPABILITY` takes for `c`.
pub fn capability_name(c: Capability) -> &'static str {
    match c {
        Capability::Avx2 => "avx2",
        Capability::Avx512 => "avx512",
    }
}

/// The bytes in one of `kernel`'s `Vectorized` registers on this CPU: 64
/// where PyTorch runs its AVX-512 build, else 32 (AVX2, and NEON's pairs of
/// registers).
pub fn vector_bytes(kernel: Kernel) -> usize {
    match (capability(), kernel) {
        (Capability::Avx512, Kernel::AlsoAvx512) => 64,
        _ => AVX2_BYTES,
    }
}

/// The bytes of an AVX2 `Vectorized` register (and of NEON's pairs).
pub const AVX2_BYTES: usize = 32;

/// The lanes of one of `kernel`'s registers of `T` on this CPU.
pub fn lanes<T>(kernel: Kernel) -> usize {
    vector_bytes(kernel) / std::mem::size_of::<T>()
}

/// `at::parallel_for`'s chunks of `0..n` (OpenMP): as many as threads, at
/// least `grain` long, equal but for the last. PyTorch's thread count is
/// one per core by default, as rayon's is on most machines.
pub fn chunks(n: usize, grain: usize, threads: usize) -> Vec<(usize, usize)> {
    let count = threads.min(n.div_ceil(grain)).max(1);
    let size = n.div_ceil(count);
    (0..count)
        .map(|t| (t * size, ((t + 1) * size).min(n)))
        .filter(|(b, e)| b < e)
        .collect()
}

/// The values PyTorch's CPU `arange` kernel writes: each thread's chunk in
/// pairs of `lanes`-element vectors, element `j` of a vector starting at
/// `b` being `vector(b, j)` (`Vectorized::arange`: counted from the
/// vector's first value), then the elements after the last pair one by
/// one, element `i` being `scalar(i)`.
pub fn range_fill(
    n: usize,
    lanes: usize,
    scalar: impl Fn(usize) -> f64,
    vector: impl Fn(usize, usize) -> f64,
) -> Vec<f64> {
    let mut out = vec![0.0; n];
    for (b, e) in chunks(n, GRAIN, parallel::threads()) {
        let pairs = b + (e - b) / (2 * lanes) * (2 * lanes);
        for (k, v) in out[b..pairs].iter_mut().enumerate() {
            *v = vector(b + k / lanes * lanes, k % lanes);
        }
        for (i, v) in out.iter_mut().enumerate().take(e).skip(pairs) {
            *v = scalar(i);
        }
    }
    out
}

/// `TensorIterator::reorder_dimensions`' insertion sort of `perm` (dims,
/// fastest first), with ambiguous comparisons: `order(a, b)` is 1 when dim
/// `a` should come after dim `b`, -1 when before, 0 when it cannot tell.
pub fn reorder_dims(perm: &mut [usize], order: impl Fn(usize, usize) -> i32) {
    for i in 1..perm.len() {
        let mut later = i;
        for earlier in (0..i).rev() {
            match order(perm[earlier], perm[later]) {
                c if c > 0 => {
                    perm.swap(earlier, later);
                    later = earlier;
                }
                c if c < 0 => break,
                _ => {}
            }
        }
    }
}

/// Which elements of an elementwise op PyTorch's `cpu_kernel_vec` computes
/// in `Vectorized` registers (its vector op) and which one by one (its
/// scalar op): they round differently where the two call different math
/// (SLEEF's in registers, libm's one by one).
///
/// `TensorIterator` orders the dims by the inputs' strides
/// (`reorder_dimensions`), merges the dims it can (`coalesce_dimensions`),
/// and gives each thread a chunk of the elements in that order. Each row
/// of the innermost dim within a chunk runs in pairs of registers (`2 *
/// lanes` elements) where every input is contiguous along it, or all but
/// one which is broadcast; the elements after the last pair, and whole rows
/// that cannot run in registers, go one by one.
///
/// `inputs` are `(shape, strides)` as stored, broadcast to `shape`.
/// Returns, for each element of the output in row-major order, whether
/// the vector op computes it.
pub fn vectorized(shape: &[usize], inputs: &[(&[usize], &[isize])], lanes: usize) -> Vec<bool> {
    let n: usize = shape.iter().product();
    let ndim = shape.len();
    let strides: Vec<Vec<isize>> = inputs
        .iter()
        .map(|(s, st)| crate::runtime::shape::broadcast_strides(s, st, shape))
        .collect();
    // `perm[0]` is the fastest dim; PyTorch starts from the last dim first.
    let mut perm: Vec<usize> = (0..ndim).rev().collect();
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for st in &strides {
            let (s0, s1) = (st[d0], st[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 != s1 {
                return if s0 < s1 { -1 } else { 1 };
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    reorder_dims(&mut perm, should_swap);
    // The innermost dim once merged: its length, and each input's stride.
    let mut inner = perm.first().map_or(1, |&d| shape[d]);
    let mut inner_strides: Vec<isize> = strides
        .iter()
        .map(|st| perm.first().map_or(0, |&d| st[d]))
        .collect();
    for &d in perm.iter().skip(1) {
        let merges = inner == 1
            || shape[d] == 1
            || strides
                .iter()
                .zip(&inner_strides)
                .all(|(st, &s)| inner as isize * s == st[d]);
        if !merges {
            break;
        }
        if inner == 1 {
            for (s, st) in inner_strides.iter_mut().zip(&strides) {
                *s = st[d];
            }
        }
        inner *= shape[d];
    }
    let registers = inner_strides.iter().all(|&s| s == 1)
        || (0..inputs.len()).any(|k| {
            inner_strides
                .iter()
                .enumerate()
                .all(|(j, &s)| if j == k { s == 0 } else { s == 1 })
        });
    // Each position in that order: in a pair of registers or not.
    let mut in_register = vec![false; n];
    if registers {
        for (b, e) in chunks(n, GRAIN, parallel::threads()) {
            let mut row = b;
            while row < e {
                let end = ((row / inner + 1) * inner).min(e);
                let pairs = (end - row) / (2 * lanes) * (2 * lanes);
                in_register[row..row + pairs].fill(true);
                row = end;
            }
        }
    }
    // Back to row-major order: walk the dims in PyTorch's order.
    let mut row_major = vec![0usize; ndim];
    let mut acc = 1;
    for d in (0..ndim).rev() {
        row_major[d] = acc;
        acc *= shape[d];
    }
    let mut out = vec![false; n];
    let mut index = vec![0usize; ndim];
    let mut at = 0usize;
    for &v in &in_register {
        out[at] = v;
        for &d in &perm {
            index[d] += 1;
            at += row_major[d];
            if index[d] < shape[d] {
                break;
            }
            at -= index[d] * row_major[d];
            index[d] = 0;
        }
    }
    out
}
