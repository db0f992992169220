//! What each op is, whatever device computes it: the vocabularies (unary,
//! binary, reduce, along, ternary, the pow shortcuts, factories, indices),
//! PyTorch's dtype promotion, the checks PyTorch makes before computing,
//! and the plans the backends carry out (a binary op's device, shape and
//! compute dtype; `where`'s; `linspace`'s step; how `@` sees 1-D
//! operands). Views and basic indexing are here too: they compute no
//! element, only a new shape and strides over the same storage.
//!
//! No loops over elements and no kernels: the host computes a planned op in
//! `ops/` (the CPU and the simulator), a CUDA device in `cuda/`, and the op
//! layer (`dispatch/`) picks which.

pub mod along;
pub mod attention;
pub mod binary;
pub mod factory;
pub mod index;
pub mod matmul;
pub mod overlap;
pub mod pow_shortcut;
pub mod reduce;
pub mod ternary;
pub mod unary;
pub mod view;
pub mod window;
