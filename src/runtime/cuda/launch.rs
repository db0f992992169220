//! Launch shapes: how many blocks of how many threads each kernel runs with,
//! and how a reduction splits its work.

/// Threads per block for every kernel (a power of two, as the reductions need).
pub const BLOCK: u32 = 256;

/// Blocks for a grid-stride loop over `n` items: enough to fill the device
/// (`max_blocks`, e.g. 32 per multiprocessor), never more than the items need.
pub fn grid(n: u64, block: u32, max_blocks: u32) -> u32 {
    let need = n.div_ceil(block as u64).max(1);
    need.min(max_blocks.max(1) as u64) as u32
}

/// How a reduction over `[outer, len, inner]` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReducePlan {
    /// `inner == 1`: `outer * chunks` blocks each reduce `chunk_len` elements
    /// into a partial result; a second kernel combines each row's chunks.
    Rows { chunks: u64, chunk_len: u64 },
    /// `inner != 1`: one thread per output walks the reduced axis.
    Cols,
}

impl ReducePlan {
    /// Partial results the workspace must hold.
    pub fn partials(&self, outer: u64) -> u64 {
        match *self {
            ReducePlan::Rows { chunks, .. } => outer * chunks,
            ReducePlan::Cols => 0,
        }
    }
}

/// Elements one block reduces at the least: below this a second block costs
/// more than it saves.
pub const MIN_CHUNK: u64 = 8 * BLOCK as u64;

/// Splits rows so the whole device has work: about `target_blocks` blocks in
/// all, each reducing at least `min_chunk` elements (`MIN_CHUNK` on a GPU;
/// the CPU tests use small chunks to exercise the combining pass).
pub fn reduce_plan(
    outer: u64,
    len: u64,
    inner: u64,
    target_blocks: u64,
    min_chunk: u64,
) -> ReducePlan {
    if inner != 1 {
        return ReducePlan::Cols;
    }
    let per_row = (target_blocks / outer.max(1)).max(1);
    let chunks = len.div_ceil(min_chunk.max(1)).clamp(1, per_row);
    let chunk_len = len.div_ceil(chunks).max(1);
    ReducePlan::Rows { chunks, chunk_len }
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

    #[test]
    fn a_full_sum_spreads_over_the_device_and_small_ones_stay_in_one_block() {
        let big = reduce_plan(1, 1 << 28, 1, 132 * 4, MIN_CHUNK);
        assert_eq!(
            big,
            ReducePlan::Rows {
                chunks: 528,
                chunk_len: (1u64 << 28).div_ceil(528)
            }
        );
        assert_eq!(
            reduce_plan(1, 1000, 1, 528, MIN_CHUNK),
            ReducePlan::Rows {
                chunks: 1,
                chunk_len: 1000
            }
        );
        // Many rows already fill the device: one chunk each.
        assert_eq!(
            reduce_plan(10_000, 5000, 1, 528, MIN_CHUNK),
            ReducePlan::Rows {
                chunks: 1,
                chunk_len: 5000
            }
        );
        assert_eq!(reduce_plan(4, 10, 3, 528, MIN_CHUNK), ReducePlan::Cols);
        // No outputs at all (an empty dimension after the reduced one): no
        // row pass, which would read rows that are not there.
        assert_eq!(reduce_plan(4, 1, 0, 528, MIN_CHUNK), ReducePlan::Cols);
        // An empty axis still has one (empty) chunk, so sums give 0 and means NaN.
        assert_eq!(
            reduce_plan(3, 0, 1, 528, MIN_CHUNK),
            ReducePlan::Rows {
                chunks: 1,
                chunk_len: 1
            }
        );
    }

    #[test]
    fn chunks_cover_each_row_exactly() {
        for len in [1u64, 7, 2048, 2049, 1 << 20, 12_345_679] {
            let ReducePlan::Rows { chunks, chunk_len } = reduce_plan(2, len, 1, 100, MIN_CHUNK)
            else {
                panic!()
            };
            assert!(chunks * chunk_len >= len, "{len}");
            assert!(
                (chunks - 1) * chunk_len < len,
                "{len}: the last chunk is not empty"
            );
        }
    }
}
