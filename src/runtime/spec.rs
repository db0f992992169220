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
    pub fp16_flops: f64,
    /// Time from launch to a kernel starting.
    pub launch_latency: f64,
    /// Host-device copies over PCIe, bytes per second.
    pub pcie_pageable: f64,
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
    fp16_flops: 989e12,
    launch_latency: 4e-6,
    pcie_pageable: 12e9,
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
