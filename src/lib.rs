//! cudash: an interactive shell for exploring GPU tensors.
//!
//! The language (`lang`), the interpreter (`eval`), the tensor runtime
//! (`runtime`) and rendering (`display`, `diag`) sit behind one seam,
//! [`session::Session`], which every front end drives. `vocab` holds what
//! they all share (spans, dtypes, devices, byte counts) and uses none of them.

pub mod autograd;
pub mod cli;
pub mod data;
pub mod diag;
pub mod display;
pub mod error;
pub mod eval;
pub mod evcxr;
pub mod fuzz;
pub mod kernel;
pub mod lang;
pub mod lesson;
pub mod nn;
pub mod repl;
pub mod runtime;
pub mod session;
pub mod vocab;

pub use session::{Outcome, Session};
