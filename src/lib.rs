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

/// The stack of every thread that runs an interpreter (the session's, a
/// rank's, a process's, a DataLoader worker's, a DataParallel replica's):
/// parsing and evaluation recurse, and a program that runs in the session
/// must not overflow in a worker. Only the pages touched are memory.
pub const INTERPRETER_STACK: usize = 256 << 20;

pub use session::{Outcome, Session};
