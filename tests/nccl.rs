//! NCCL's binding (`runtime::cuda::nccl`) on a machine without a GPU:
//! `scripts/test` puts the NCCL wheel's library on the loader's path
//! (tests/requirements.txt), so the loader, every entry point's lookup, the
//! version, the error path of `ncclCommInitAll`, a process group's unique
//! id and the error path of `ncclCommInitRank` are checked here; the
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
        group: None,
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

/// A process group's rendezvous material needs no GPU: rank 0's unique id
/// (`ncclGetUniqueId`) is made here, a new one each time. Making a rank's
/// communicator with it needs a GPU, and fails with NCCL's reason.
#[test]
fn a_unique_id_is_made_and_a_rank_cannot_init_without_a_gpu() {
    let n = nccl();
    let (a, b) = (n.unique_id().unwrap(), n.unique_id().unwrap());
    assert_ne!(a, b, "each id names a new rendezvous");
    assert_ne!(a.0, [0; 128]);
    match n.init_rank((1, 0, 1), &a).expect_err("there is no GPU") {
        DriverError::Call { call, error } => {
            assert_eq!(call, "ncclCommInitRank");
            assert!(error.starts_with("ncclResult "), "{error}");
            eprintln!("{call}: {error}");
        }
        other => panic!("{other:?}"),
    }
    // A collective of that group finds no communicator for its rank.
    let c = Collective {
        op: CollectiveOp::AllReduce(Reduce::Sum),
        dtype: DType::F32,
        count: 0,
        ranks: vec![Rank {
            stream: StreamHandle::default_of(0),
            send: 0,
            recv: 0,
        }],
        group: Some(1),
    };
    // SAFETY: it fails before any buffer is touched (count 0 touches none).
    let e = unsafe { n.run(&c, &[std::ptr::null_mut()]) }.expect_err("no communicator");
    assert!(
        e.to_string()
            .contains("rank 0 of the process group has no communicator"),
        "{e}"
    );
    n.destroy_rank(1, 0); // none was made: nothing to destroy
}
