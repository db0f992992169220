//! `cudash cuda`: what this machine offers the CUDA backend (driver, devices,
//! NVRTC, cuBLAS, the kernel cache), and `--compile sm_XX` to compile every
//! kernel for an architecture, filling the cache, with or without a GPU.

use std::time::Instant;

use rayon::prelude::*;

use crate::runtime::cuda::nvrtc::{self, Arch, Cache};
use crate::runtime::cuda::probe::{self, Probe};
use crate::runtime::cuda::source;
use crate::runtime::dispatch::pick;
use crate::vocab::human_bytes;

/// `sm_90`, `90`, `9.0` or `compute_90` as (9, 0).
pub fn parse_arch(s: &str) -> Result<Arch, String> {
    let t = s.trim();
    let digits = t
        .strip_prefix("sm_")
        .or_else(|| t.strip_prefix("compute_"))
        .unwrap_or(t)
        // `sm_90a`: the architecture-specific variant of sm_90; compile for sm_90.
        .trim_end_matches(['a', 'f']);
    let bad =
        || format!("`{s}` is not a GPU architecture (try sm_90 for an H100, sm_80 for an A100)");
    let (major, minor) = match digits.split_once('.') {
        Some((a, b)) => (a, b),
        None if digits.len() >= 2 => digits.split_at(digits.len() - 1),
        None => return Err(bad()),
    };
    let major: u32 = major.parse().map_err(|_| bad())?;
    let minor: u32 = minor.parse().map_err(|_| bad())?;
    if !(5..=20).contains(&major) || minor > 9 {
        return Err(bad());
    }
    Ok((major, minor))
}

pub fn cuda(compile: Option<&str>) -> u8 {
    let arch = match compile.map(parse_arch).transpose() {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("cudash cuda: --compile: {msg}");
            return 2;
        }
    };
    match probe::probe() {
        Probe::NoDriver => println!("driver   not found (libcuda.so could not be loaded)"),
        Probe::InitFailed { code } => println!("driver   present, but it did not start ({code})"),
        Probe::Driver { version, devices } => {
            println!(
                "driver   CUDA {}.{}, {devices} device(s)",
                version / 1000,
                (version % 1000) / 10
            );
            for index in 0..devices {
                match probe::describe(index) {
                    Ok(d) => println!(
                        "  cuda:{}  {}  {}  sm_{}{}  {} SMs",
                        d.index,
                        d.name,
                        human_bytes(d.total_memory as u128),
                        d.compute_capability.0,
                        d.compute_capability.1,
                        d.multiprocessors
                    ),
                    Err(e) => println!("  cuda:{index}  (could not describe it: {e})"),
                }
            }
        }
    }
    let nvrtc_version = nvrtc::version();
    match &nvrtc_version {
        Ok((major, minor)) => println!("NVRTC    {major}.{minor}"),
        Err(e) => println!("NVRTC    not available: {e}"),
    }
    println!(
        "cuBLAS   {}",
        if probe::cublas_present() {
            "found"
        } else {
            "not found (libcublas.so could not be loaded)"
        }
    );
    match crate::runtime::cuda::nccl::Nccl::load() {
        Some(n) => println!("NCCL     {} (the collectives)", &n.describe()["NCCL ".len()..]),
        None => println!(
            "NCCL     not found (libnccl.so.2 could not be loaded): the collectives run as peer copies and kernels"
        ),
    }
    let units = source::all_units();
    let dir = nvrtc::default_dir();
    println!(
        "kernels  {} in {} compile units; cache {}",
        source::all_kernels().len(),
        units.len(),
        dir.as_deref()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "none (no home directory)".into())
    );
    match pick::auto_cuda() {
        Ok(picked) => println!("backend  auto picks cuda: {}", picked.reason),
        Err(why) => println!("backend  auto picks the simulator: {why}"),
    }
    let Some(arch) = arch else { return 0 };
    if nvrtc_version.is_err() {
        eprintln!("cudash cuda: cannot compile without NVRTC");
        return 2;
    }
    let start = Instant::now();
    let cache = Cache::global();
    let failures: Vec<String> = units
        .par_iter()
        .filter_map(|u| cache.cubin(u, arch).err().map(|e| e.to_string()))
        .collect();
    for f in &failures {
        eprintln!("{f}");
    }
    println!(
        "compiled {} of {} units for sm_{}{} in {:.1} s",
        units.len() - failures.len(),
        units.len(),
        arch.0,
        arch.1,
        start.elapsed().as_secs_f64()
    );
    u8::from(!failures.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_in_every_usual_spelling() {
        assert_eq!(parse_arch("sm_90"), Ok((9, 0)));
        assert_eq!(parse_arch("90"), Ok((9, 0)));
        assert_eq!(parse_arch("9.0"), Ok((9, 0)));
        assert_eq!(parse_arch("compute_80"), Ok((8, 0)));
        assert_eq!(parse_arch("sm_120"), Ok((12, 0)));
        assert_eq!(parse_arch("sm_90a"), Ok((9, 0)));
        for bad in ["", "h100", "sm_", "9", "sm_99999"] {
            assert!(parse_arch(bad).is_err(), "{bad}");
        }
    }
}
