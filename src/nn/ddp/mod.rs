//! `DistributedDataParallel`'s module side: its gradient buckets
//! (`buckets.rs`) and the reducer that all-reduces them while backward
//! runs (`reducer.rs`). The interpreter's side (construction, forward,
//! `no_sync`) is `eval/ddp.rs`.

pub mod buckets;
pub mod reducer;
