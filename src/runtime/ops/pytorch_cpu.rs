//! How PyTorch's CPU kernels divide their work, which fixes the order of
//! their floating-point operations: the width of its `Vectorized` registers
//! and the chunks `at::parallel_for` gives its threads.

/// PyTorch's `at::internal::GRAIN_SIZE`: fewer elements run on one thread.
pub const GRAIN: usize = 32_768;

/// The bytes in one of PyTorch's `Vectorized` registers on this CPU: 64
/// where its AVX-512 kernels run, else 32 (AVX2, and NEON's pairs of
/// registers).
pub fn vector_bytes() -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512dq")
    {
        return 64;
    }
    32
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
    for (b, e) in chunks(n, GRAIN, rayon::current_num_threads()) {
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
