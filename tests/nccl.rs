//! NCCL's binding (`runtime::cuda::nccl`) on a machine without a GPU:
//! `scripts/test` puts the NCCL wheel's library on the loader's path
//! (tests/requirements.txt), so the loader, every entry point's lookup, the
//! version and the error path of `ncclCommInitAll` are checked here; the
//! collectives themselves need a GPU (`scripts/gpu-check`, the golden
//! `collectives_one_device` on `--backend cuda`).

use cudash::runtime::cuda::nccl::Nccl;
use cudash::runtime::driver::DriverError;
use cudash::runtime::driver::{Collective, CollectiveOp, Rank, Reduce, StreamHandle};
use cudash::runtime::DType;

/// NCCL, which the test run must find (as CI's does).
fn nccl() -> Nccl {
    Nccl::load().unwrap_or_else(|| {
        panic!(
            "libnccl.so.2 is not on the loader's path (LD_LIBRARY_PATH={:?}); \
             scripts/test installs it with tests/requirements.txt",
            std::env::var("LD_LIBRARY_PATH").unwrap_or_default()
        )
    })
}

#[test]
fn nccl_loads_with_every_entry_point_and_names_its_version() {
    let n = nccl();
    let name = n.describe();
    let (major, minor) = name
        .strip_prefix("NCCL ")
        .and_then(|v| {
            let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
            Some((parts.next()??, parts.next()??))
        })
        .unwrap_or_else(|| panic!("not a version: {name}"));
    assert!((major, minor) >= (2, 10), "{name}: avg and bf16 need 2.10");
}

#[test]
fn without_a_gpu_the_communicators_fail_with_nccls_reason() {
    let n = nccl();
    let rank = Rank {
        stream: StreamHandle::default_of(0),
        send: 0,
        recv: 0,
    };
    let c = Collective {
        op: CollectiveOp::AllReduce(Reduce::Sum),
        dtype: DType::F32,
        count: 0,
        ranks: vec![rank],
    };
    // SAFETY: no GPU, so NCCL fails to make the communicator before any
    // buffer could be touched (and count 0 touches none).
    let e = unsafe { n.run(&c, &[std::ptr::null_mut()]) }.expect_err("there is no GPU");
    match e {
        DriverError::Call { call, error } => {
            assert_eq!(call, "ncclCommInitAll");
            assert!(error.starts_with("ncclResult "), "{error}");
            eprintln!("{call}: {error}");
        }
        other => panic!("{other:?}"),
    }
}
