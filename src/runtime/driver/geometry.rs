//! How big a device's launches are.

/// How big launches are on this launcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Threads per block of a grid-stride kernel.
    pub block: u32,
    /// The most blocks a grid-stride kernel gets (enough to fill the device).
    pub max_blocks: u32,
    /// Threads per block of a reduction pass that synchronises (a power of
    /// two, at most `MAX_BLOCK` of common.cuh).
    pub reduce_block: u32,
    /// How a reduction spreads its work (`launch::reduce_plan`).
    pub reduce: ReduceTargets,
}

/// What a reduction aims for on a launcher: about `blocks` blocks in the row
/// pass, each reducing at least `min_chunk` elements; about `threads` threads
/// in the column pass, each reducing at least `min_col_chunk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReduceTargets {
    pub blocks: u64,
    pub min_chunk: u64,
    pub threads: u64,
    pub min_col_chunk: u64,
}

/// One launch's shape: `grid` blocks of `block` threads; `syncs` says the
/// kernel calls `__syncthreads` (the emulator then runs a block's threads
/// side by side).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub grid: u32,
    pub block: u32,
    pub syncs: bool,
}

impl Launch {
    /// Threads that never wait for each other (a grid-stride kernel).
    pub fn independent(grid: u32, block: u32) -> Launch {
        Launch {
            grid,
            block,
            syncs: false,
        }
    }

    /// A block's threads that synchronise (a reduction's pass).
    pub fn syncing(grid: u32, block: u32) -> Launch {
        Launch {
            grid,
            block,
            syncs: true,
        }
    }
}
