//! The reference GPU the time model uses: a device's rates and latencies.

/// The reference GPU the simulator's timing model uses.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuSpec {
    pub name: &'static str,
    /// The GPU without its memory size (`NVIDIA H100`), for a simulated
    /// device that has another size.
    pub family: &'static str,
    pub compute_capability: (u32, u32),
    /// Device memory bandwidth, bytes per second.
    pub memory_bandwidth: f64,
    /// Dense FLOP rates, per second.
    pub fp32_flops: f64,
    /// Tensor cores on f32 operands rounded to TF32.
    pub tf32_flops: f64,
    pub fp16_flops: f64,
    /// Time from launch to a kernel starting.
    pub launch_latency: f64,
    /// Host-device DMA over PCIe from or to page-locked memory, bytes per
    /// second (a pageable copy is staged by the host: `timing::staged_rate`).
    pub pcie_pinned: f64,
    /// Device-to-device copies (NVLink), bytes per second.
    pub peer_bandwidth: f64,
}

/// NVIDIA H100 SXM5 (public datasheet figures; PCIe gen5 x16 practical rates).
pub const H100: GpuSpec = GpuSpec {
    name: "NVIDIA H100 80GB HBM3",
    family: "NVIDIA H100",
    compute_capability: (9, 0),
    memory_bandwidth: 3.35e12,
    fp32_flops: 67e12,
    tf32_flops: 494e12,
    fp16_flops: 989e12,
    launch_latency: 4e-6,
    pcie_pinned: 50e9,
    peer_bandwidth: 450e9,
};

/// What a device standing in for `spec` with `memory` bytes is called:
/// `NVIDIA H100 (simulated, 16.0 GiB)`, its own size and not the model's
/// 80 GB. `how` is `simulated` or `emulated`.
pub fn stand_in_name(spec: &GpuSpec, how: &str, memory: usize) -> String {
    format!(
        "{} ({how}, {})",
        spec.family,
        crate::vocab::human_bytes(memory as u128)
    )
}

/// The reference host CPU the time model charges host work on (CPU-tensor
/// ops, copies into pinned memory, a DataLoader's workers) when device time
/// is modelled: the same figures on every machine, so transcripts stay
/// stable. On a GPU the host's own clock measures that work instead.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuSpec {
    pub name: &'static str,
    /// Cores that run threads in parallel (hyperthreads add nothing here).
    pub cores: u32,
    /// What one core streams through memory, bytes per second.
    pub core_bandwidth: f64,
    /// What all cores together stream, bytes per second.
    pub memory_bandwidth: f64,
    /// Vectorised f32 FLOP rate of one core, per second.
    pub core_flops: f64,
    /// The fixed cost of one eager op on the host (dispatch, allocation).
    pub op_overhead: f64,
    /// What one core copies per second (`memcpy`, bytes copied): the copy
    /// a pin thread makes, and the driver's staging of a pageable copy.
    pub memcpy: f64,
}

/// The host a single H100 comes with in the cloud: Google Cloud's
/// a3-highgpu-1g, 26 vCPUs (13 cores) of an Intel Xeon Platinum 8481C
/// (Sapphire Rapids, 2.7 GHz, AVX-512). A core streams about 12 GB/s; the
/// VM's share of the socket's DDR5 about 120 GB/s; a core's two AVX-512 FMA
/// units peak at 173 GFLOP/s, of which vectorised kernels reach about 100.
/// PyTorch's eager CPU op costs about 2 µs before it touches an element. A
/// core's `memcpy` runs at the rate the H100's host measured for pageable
/// copies, which the driver stages with one.
/// A named cloud host rather than a laptop: it is what a learner's H100 is
/// attached to, and its 13 cores make "more workers is not always better"
/// visible at worker counts a lesson can show.
pub const HOST: CpuSpec = CpuSpec {
    name: "13 cores of an Intel Xeon Platinum 8481C (the host of a 1-GPU H100 cloud VM)",
    cores: 13,
    core_bandwidth: 12e9,
    memory_bandwidth: 120e9,
    core_flops: 100e9,
    op_overhead: 2e-6,
    // The H100's host measured 7.7 GB/s (6.6-8.9 over a session) for a
    // pageable 1 GiB host-to-device copy, PyTorch and cudash alike
    // (docs/performance.md): one core's memcpy into the driver's staging.
    memcpy: 7.7e9,
};
