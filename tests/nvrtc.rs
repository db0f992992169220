//! Every kernel unit compiled by the real NVRTC for a real GPU architecture
//! (sm_90, the H100), with no GPU: NVRTC needs no driver. The suite installs
//! NVRTC from PyPI (`nvidia-cuda-nvrtc` in tests/requirements.txt) and puts it
//! on the loader path (scripts/test). Without it the tests say so and pass,
//! except under CI, where they fail.

use std::collections::BTreeSet;

use cudash::runtime::cuda::nvrtc::{self, Cache, NvrtcError, Output};
use cudash::runtime::cuda::source;
use cudash::runtime::driver::Unit;
use cudash::runtime::DType;

const H100: nvrtc::Arch = (9, 0);

fn have_nvrtc() -> bool {
    if nvrtc::present() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI needs NVRTC for these tests: scripts/test installs nvidia-cuda-nvrtc and sets LD_LIBRARY_PATH"
    );
    eprintln!("SKIPPED: {}", NvrtcError::Missing);
    false
}

/// Runs `f` over the units on two threads (NVRTC takes a second or two each).
fn each_unit<T: Send>(f: impl Fn(&Unit) -> T + Sync) -> Vec<(Unit, T)> {
    let units = source::all_units();
    let (left, right) = units.split_at(units.len() / 2);
    std::thread::scope(|s| {
        let a = s.spawn(|| left.iter().map(|u| (*u, f(u))).collect::<Vec<_>>());
        let mut out: Vec<_> = right.iter().map(|u| (*u, f(u))).collect();
        out.extend(a.join().unwrap());
        out
    })
}

#[test]
fn every_unit_compiles_to_a_cubin_defining_exactly_its_kernels() {
    if !have_nvrtc() {
        return;
    }
    let (major, minor) = nvrtc::version().unwrap();
    eprintln!("NVRTC {major}.{minor}");
    let results = each_unit(|u| {
        let ptx = nvrtc::compile(u, H100, Output::Ptx)?;
        let cubin = nvrtc::compile(u, H100, Output::Cubin)?;
        Ok::<_, NvrtcError>((String::from_utf8_lossy(&ptx).into_owned(), cubin))
    });
    for (unit, r) in results {
        let (ptx, cubin) = r.unwrap_or_else(|e| panic!("{e}"));
        assert!(
            cubin.starts_with(b"\x7fELF"),
            "{}: not an ELF cubin",
            unit.label()
        );
        let defined: BTreeSet<String> = nvrtc::ptx_entries(&ptx).into_iter().collect();
        let wanted: BTreeSet<String> = source::all_kernels()
            .into_iter()
            .filter(|k| k.unit == unit)
            .map(|k| k.name)
            .collect();
        assert_eq!(
            defined,
            wanted,
            "{}: kernels defined vs the ones the runtime names",
            unit.label()
        );
    }
}

#[test]
fn the_cache_compiles_once_and_repairs_a_damaged_file() {
    if !have_nvrtc() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("cudash-kcache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let unit = Unit {
        file: "random",
        dtype: Some(DType::F32),
    };
    let cache = Cache::new(Some(dir.clone()));
    let first = cache.cubin(&unit, H100).unwrap();
    let path = cache.path(&unit, H100, nvrtc::version().unwrap()).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), *first, "written to disk");
    assert!(
        std::sync::Arc::ptr_eq(&first, &cache.cubin(&unit, H100).unwrap()),
        "kept in memory"
    );

    // A new process reads the file; a damaged one is compiled again and replaced.
    std::fs::write(&path, b"not a cubin").unwrap();
    let again = Cache::new(Some(dir.clone())).cubin(&unit, H100).unwrap();
    assert_eq!(*again, *first);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        *first,
        "the damaged file was replaced"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_compile_error_comes_back_with_nvrtcs_log() {
    if !have_nvrtc() {
        return;
    }
    let err = nvrtc::compile_source(
        "broken",
        "extern \"C\" __global__ void k() { undeclared(); }",
        vec![],
        H100,
        Output::Cubin,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("`broken` kernels for sm_90"), "{msg}");
    assert!(
        msg.contains("undeclared"),
        "the log names the problem: {msg}"
    );
}
