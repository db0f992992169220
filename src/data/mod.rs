//! PyTorch's data loading (`torch.utils.data`): a `TensorDataset`, and a
//! `DataLoader` that hands out its batches in its sampler's order, made by
//! real worker threads (one lane each on `profile`'s timeline) and copied
//! into pinned memory when asked, with the host's time they take. Above the
//! op layer, as autograd is; the interpreter's side is `eval/data.rs`.
//!
//! - `dataset.rs`: `TensorDataset`, its samples and a batch of them;
//! - `loader.rs`: `DataLoader`'s settings, its sampler, its length and
//!   batch order;
//! - `epoch.rs`: one pass over a loader: the workers, the prefetching, the
//!   pin step, and their time (modelled on the reference CPU, or measured);
//! - `sampler.rs`: `DistributedSampler`, shuffling with PyTorch's CPU
//!   generator and `randperm` (`runtime::cpu_random`);
//! - `random.rs`: `RandomSampler` (and `shuffle`), drawn as PyTorch's;
//! - `weighted.rs`: `WeightedRandomSampler`, one `multinomial` a pass;
//! - `generator.rs`: `torch.Generator()` on the CPU, which a program seeds
//!   and gives to a sampler, a loader or `random_split`.

mod crew;
pub mod dataset;
pub mod epoch;
pub mod generator;
pub mod loader;
pub mod random;
pub mod resample;
pub mod sampler;
pub mod weighted;
