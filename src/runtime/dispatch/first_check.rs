//! `--backend auto`'s first check of a driver's devices before a session
//! runs on them: on each device, a value uploaded and read back, and the
//! kernels of an arange, a multiply and a sum, compared with what the host
//! computes. It runs on a runtime of its own that is dropped afterwards, so
//! the session starts with empty caches and counters.

use std::sync::Arc;

use super::Runtime;
use crate::runtime::backend::Backend;
use crate::runtime::devices::Devices;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::{DType, Device, Tensor};

/// Elements in the check's tensors: more than one block of threads.
const N: usize = 1000;

/// Ok when every device of `backend` computes what the host does; the
/// error names the device and what went wrong.
pub fn first_check(backend: &dyn Backend) -> Result<(), String> {
    let devices = Arc::new(Devices::new(backend, "first check"));
    let mut rt = Runtime::new(0, Arc::clone(&devices));
    for d in 0..devices.count() {
        check_device(&mut rt, d).map_err(|e| format!("cuda:{d}: {e}"))?;
    }
    rt.sync_all().map_err(|e| e.to_string())?;
    // Its memory goes back to the driver (the tensors are gone already).
    rt.empty_cache().map_err(|e| e.to_string())
}

fn check_device(rt: &mut Runtime, d: u32) -> Result<(), String> {
    let on = Device::Cuda(d);
    let err = |e: crate::error::Error| e.to_string();
    // A copy there and back.
    let host = Tensor::from_vec(vec![1.5f32, -2.0, 3.25], vec![3]);
    let there = rt.tensor(&host, DType::F32, on).map_err(err)?;
    let back = rt.copy_to(&there, Device::Cpu).map_err(err)?;
    if back.to_vec::<f32>() != host.to_vec::<f32>() {
        return Err(format!(
            "a copy to the device and back gave {:?}, not {:?}",
            back.to_vec::<f32>(),
            host.to_vec::<f32>()
        ));
    }
    // Kernels: sum(arange(N) * 2) is N (N - 1), exactly, in f32.
    let x = rt.arange(0.0, N as f64, 1.0, DType::F32, on).map_err(err)?;
    let two = Tensor::scalar(2.0f32);
    let y = rt
        .binary(
            BinaryOp::Mul,
            Operand {
                tensor: &x,
                weak: false,
            },
            Operand {
                tensor: &two,
                weak: true,
            },
        )
        .map_err(err)?;
    let s = rt.reduce(ReduceOp::Sum, &y, None, false).map_err(err)?;
    let got = rt.copy_to(&s, Device::Cpu).map_err(err)?.to_vec::<f64>();
    let want = (N * (N - 1)) as f64;
    if got != [want] {
        return Err(format!(
            "sum(arange({N}) * 2) gave {got:?}, not {want} (the kernels do not run as they should)"
        ));
    }
    Ok(())
}
