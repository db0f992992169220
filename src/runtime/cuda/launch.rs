//! Launch shapes: how many blocks of how many threads each kernel runs with,
//! and how a reduction splits its work.

use crate::runtime::driver::ReduceTargets;

/// Threads per block for every kernel (a power of two, as the reductions need).
pub const BLOCK: u32 = 256;

/// Blocks for a grid-stride loop over `n` items: enough to fill the device
/// (`max_blocks`, e.g. 32 per multiprocessor), never more than the items need.
pub fn grid(n: u64, block: u32, max_blocks: u32) -> u32 {
    let need = n.div_ceil(block as u64).max(1);
    need.min(max_blocks.max(1) as u64) as u32
}

/// How a reduction over `[outer, len, inner]` runs. Either way the reduced
/// axis is shared by `chunks` parts that take its elements in turns (so the
/// parts read neighbouring memory); with more than one part each gives a
/// partial result, and `reduce_finish` combines each output's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReducePlan {
    /// `inner == 1`: `outer * chunks` blocks over contiguous rows.
    Rows { chunks: u64 },
    /// `inner != 1`: one thread per (output, chunk), neighbouring threads
    /// reading neighbouring elements.
    Cols { chunks: u64 },
}

impl ReducePlan {
    pub fn chunks(&self) -> u64 {
        match *self {
            ReducePlan::Rows { chunks } | ReducePlan::Cols { chunks } => chunks,
        }
    }

    /// Partial results the workspace must hold: one per (output, chunk)
    /// when there are several chunks. (Rows have `inner == 1`.)
    pub fn partials(&self, outer: u64, inner: u64) -> u64 {
        match self.chunks() {
            1 => 0,
            chunks => outer * inner * chunks,
        }
    }
}

/// Elements one block reduces at the least: below this a second block costs
/// more than it saves.
pub const MIN_CHUNK: u64 = 8 * BLOCK as u64;

/// Elements one thread of the column pass reduces at the least, when it
/// gives a partial result (24 bytes written per chunk).
pub const MIN_COL_CHUNK: u64 = 64;

impl ReduceTargets {
    /// A GPU with `sms` multiprocessors: four row blocks and 2048 column
    /// threads (a full multiprocessor) each.
    pub fn for_device(sms: u32) -> ReduceTargets {
        let sms = sms.max(1) as u64;
        ReduceTargets {
            blocks: 4 * sms,
            min_chunk: MIN_CHUNK,
            threads: 2048 * sms,
            min_col_chunk: MIN_COL_CHUNK,
        }
    }
}

/// Splits the reduced axis so the whole device has work (the CPU tests use
/// small targets to exercise the combining pass): as many chunks as the
/// targets ask, each with at least its minimum of elements, always at least
/// one (an empty axis has one empty chunk: sums give 0 and means NaN).
pub fn reduce_plan(outer: u64, len: u64, inner: u64, t: ReduceTargets) -> ReducePlan {
    let split = |most: u64, min: u64| (len / min.max(1)).clamp(1, most.max(1));
    if inner == 1 {
        ReducePlan::Rows {
            chunks: split(t.blocks / outer.max(1), t.min_chunk),
        }
    } else {
        let outputs = (outer * inner).max(1);
        ReducePlan::Cols {
            chunks: split(t.threads / outputs, t.min_col_chunk),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_small_inputs_and_cap_large_ones() {
        assert_eq!(grid(0, 256, 4224), 1);
        assert_eq!(grid(1000, 256, 4224), 4);
        assert_eq!(grid(1 << 28, 256, 4224), 4224);
    }

    const H100: u32 = 132;

    #[test]
    fn a_full_sum_spreads_over_the_device_and_small_ones_stay_in_one_block() {
        let t = ReduceTargets::for_device(H100);
        assert_eq!(
            reduce_plan(1, 1 << 28, 1, t),
            ReducePlan::Rows { chunks: 528 }
        );
        assert_eq!(reduce_plan(1, 1000, 1, t), ReducePlan::Rows { chunks: 1 });
        // Many rows already fill the device: one chunk each, no partials.
        let p = reduce_plan(10_000, 5000, 1, t);
        assert_eq!(p, ReducePlan::Rows { chunks: 1 });
        assert_eq!(p.partials(10_000, 1), 0);
        // An empty axis still has one (empty) chunk.
        assert_eq!(reduce_plan(3, 0, 1, t), ReducePlan::Rows { chunks: 1 });
    }

    #[test]
    fn few_columns_split_their_axis_and_many_do_not() {
        let t = ReduceTargets::for_device(H100);
        // 16384 outputs of 16384 elements: 16 chunks fill 132 SMs.
        let p = reduce_plan(1, 16384, 16384, t);
        assert_eq!(p, ReducePlan::Cols { chunks: 16 });
        assert_eq!(p.partials(1, 16384), 16 * 16384);
        // Enough outputs to fill the device: one chunk, no partials.
        let p = reduce_plan(64, 100, 8192, t);
        assert_eq!(p, ReducePlan::Cols { chunks: 1 });
        assert_eq!(p.partials(64, 8192), 0);
        // No outputs at all (an empty dimension after the reduced one).
        assert_eq!(reduce_plan(4, 1, 0, t), ReducePlan::Cols { chunks: 1 });
    }

    #[test]
    fn every_chunk_has_its_minimum_of_elements() {
        let t = ReduceTargets {
            blocks: 100,
            min_chunk: MIN_CHUNK,
            threads: 1000,
            min_col_chunk: 3,
        };
        for len in [0u64, 1, 7, 2048, 2049, 1 << 20, 12_345_679] {
            for inner in [1, 2, 7] {
                let p = reduce_plan(2, len, inner, t);
                let min = if inner == 1 { MIN_CHUNK } else { 3 };
                assert!(p.chunks() >= 1);
                assert!(
                    p.chunks() == 1 || len / p.chunks() >= min,
                    "{len} {inner}: {p:?}"
                );
            }
        }
    }
}
