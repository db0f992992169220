//! Modules as PyTorch's `torch.nn` has them: a `Module` holds its
//! parameters, buffers and child modules by name, in the order they were
//! assigned, and a training flag; the layers (`Linear`, `ReLU`, `Dropout`,
//! ...) compute their forward on the functional ops autograd records.
//!
//! - `module.rs`: the module itself (registration, walks, modes, `to`,
//!   `state_dict`);
//! - `layer.rs`: what a module's forward computes (`Layer`);
//! - `layers.rs`: the built-in layers: their construction, initialisation
//!   and forward;
//! - `repr.rs`: the printed form, as PyTorch's `repr(model)`;
//! - `parallel.rs`: DataParallel's replicas of a module tree.
//! - `attention.rs`: `MultiheadAttention` (the Transformer layers are
//!   composed of it in `eval/transformer.rs`).
//! - `recurrent.rs`: `LSTM`, `GRU`, `RNN` and their cells.
//! - `ddp/`: DistributedDataParallel's buckets and reducer.
//!
//! A class the user writes (`class Net(Module)`) is a module whose forward
//! is the user's: the interpreter keeps its class and plain attributes in
//! the module's `object` slot and runs its methods; this layer only knows
//! what PyTorch's `nn.Module` knows.

pub mod attention;
pub mod ddp;
pub mod layer;
pub mod layers;
pub mod module;
pub mod parallel;
pub mod recurrent;
pub mod recurrent_packed;
pub mod repr;

pub use module::{Module, ModuleRef};
