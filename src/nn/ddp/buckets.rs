//! DDP's gradient buckets, laid out as PyTorch 2.15's reducer lays them
//! out (`compute_bucket_assignment_by_size` in `reducer.cpp`, and
//! `BucketCapacityConfig` in `distributed.py`):
//!
//! - the parameters are taken in a given order, grouped by dtype and
//!   device; a group's open bucket closes once its bytes reach the limit,
//!   and the next bucket of that group takes the next limit (the last one
//!   repeats);
//! - at construction, in parameter order, the buckets are sorted by their
//!   first parameter and then reversed (the last parameters' gradients are
//!   ready first); with `find_unused_parameters=false` the limit is
//!   unbounded, so one bucket holds everything for the first iteration;
//! - after the first backward the buckets are rebuilt in the order the
//!   gradients became ready (no sorting), the first capped at 1 MiB and the
//!   rest at `bucket_cap_mb` (25 MiB by default; a given `bucket_cap_mb`
//!   caps the first one too).

use crate::runtime::{DType, Device};

/// PyTorch's `dist._DEFAULT_FIRST_BUCKET_BYTES`.
pub const FIRST_BUCKET_BYTES: usize = 1024 * 1024;
/// `bucket_cap_mb`'s default, 25 MiB.
pub const DEFAULT_CAP_BYTES: usize = 25 * 1024 * 1024;

/// A parameter as the assignment sees it.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    pub bytes: usize,
    pub dtype: DType,
    pub device: Device,
}

/// The buckets (parameter indices, each with its size limit) of
/// `params[order[k]]`, in the order given: PyTorch's
/// `compute_bucket_assignment_by_size`. With `sort`, the buckets are
/// ordered by their smallest index (the construction-time call, whose
/// tensor indices are empty).
pub fn assign(
    params: &[Slot],
    order: &[usize],
    limits: &[usize],
    sort: bool,
) -> Vec<(Vec<usize>, usize)> {
    struct Open {
        key: (DType, Device),
        indices: Vec<usize>,
        bytes: usize,
        limit: usize,
        next_limit: usize,
    }
    let mut result: Vec<(Vec<usize>, usize)> = Vec::new();
    // The open bucket of each dtype and device, in order of first use.
    let mut open: Vec<Open> = Vec::new();
    for &i in order {
        let p = params[i];
        let key = (p.dtype, p.device);
        let at = match open.iter().position(|o| o.key == key) {
            Some(at) => at,
            None => {
                open.push(Open {
                    key,
                    indices: Vec::new(),
                    bytes: 0,
                    limit: limits[0],
                    next_limit: 0,
                });
                open.len() - 1
            }
        };
        let o = &mut open[at];
        o.indices.push(i);
        o.bytes += p.bytes;
        o.limit = limits[o.next_limit];
        if o.bytes >= o.limit {
            result.push((std::mem::take(&mut o.indices), o.limit));
            o.bytes = 0;
            if o.next_limit + 1 < limits.len() {
                o.next_limit += 1;
            }
        }
    }
    for o in open {
        if !o.indices.is_empty() {
            result.push((o.indices, o.limit));
        }
    }
    if sort {
        result.sort_by_key(|(indices, _)| indices.iter().copied().min().unwrap_or(usize::MAX));
    }
    result
}

/// The buckets a new `DistributedDataParallel` starts with: PyTorch's
/// assignment in parameter order, reversed.
pub fn initial(
    params: &[Slot],
    find_unused: bool,
    caps: (usize, usize),
) -> Vec<(Vec<usize>, usize)> {
    let (first, cap) = caps;
    let limits: Vec<usize> = match find_unused {
        false => vec![usize::MAX],
        true if first < cap => vec![first, cap],
        true => vec![cap],
    };
    let order: Vec<usize> = (0..params.len()).collect();
    let mut buckets = assign(params, &order, &limits, true);
    buckets.reverse();
    buckets
}

/// The buckets after the first backward: in the order the gradients
/// became ready.
pub fn rebuilt(params: &[Slot], ready: &[usize], caps: (usize, usize)) -> Vec<(Vec<usize>, usize)> {
    assign(params, ready, &[caps.0, caps.1], false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(numels: &[usize]) -> Vec<Slot> {
        numels
            .iter()
            .map(|&n| Slot {
                bytes: 4 * n,
                dtype: DType::F32,
                device: Device::Cuda(0),
            })
            .collect()
    }

    fn sizes(params: &[Slot], buckets: &[(Vec<usize>, usize)]) -> Vec<usize> {
        buckets
            .iter()
            .map(|(ix, _)| ix.iter().map(|&i| params[i].bytes).sum())
            .collect()
    }

    /// PyTorch 2.15 (gloo, world size 1, CPU) on Linear(512, 512),
    /// Linear(512, 1024), Linear(1024, 10): `_get_ddp_logging_data()`'s
    /// "bucket_sizes" and, after one backward, the reducer's rebuilt
    /// buckets (`_get_zeros_like_grad_buckets()`): "2142248, 1050624",
    /// parameter indices "5 4 3 2, 1 0".
    #[test]
    fn as_pytorch_lays_them_out() {
        let p = f32s(&[512 * 512, 512, 1024 * 512, 1024, 10 * 1024, 10]);
        let caps = (FIRST_BUCKET_BYTES, DEFAULT_CAP_BYTES);
        let first = initial(&p, false, caps);
        assert_eq!(sizes(&p, &first), [3192872]);
        assert_eq!(first[0].0, [0, 1, 2, 3, 4, 5]);
        let unused = initial(&p, true, caps);
        assert_eq!(sizes(&p, &unused), [2144296, 1048576]);
        assert_eq!(unused[0].0, [1, 2, 3, 4, 5]);
        let again = rebuilt(&p, &[5, 4, 3, 2, 1, 0], caps);
        assert_eq!(sizes(&p, &again), [2142248, 1050624]);
        assert_eq!(again[0].0, [5, 4, 3, 2]);
        assert_eq!(again[1].0, [1, 0]);
    }

    #[test]
    fn dtypes_go_to_buckets_of_their_own() {
        let mut p = f32s(&[10, 10, 10]);
        p[1].dtype = DType::F16;
        let b = assign(&p, &[0, 1, 2], &[usize::MAX], true);
        assert_eq!(
            b.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>(),
            [vec![0, 2], vec![1]]
        );
    }
}
