//! How a statement ends (`Flow`), and a statement and a block compiled
//! (`Exec`, `Code`, built by `compiled`): what statements, loops, calls and
//! function values share.

use super::Interp;
use crate::error::Diagnostic;

/// A loop's body, run once each time it is called (`Code::run`).
pub(crate) type Body<'a> = dyn Fn(&mut Interp) -> Result<Flow, Diagnostic> + 'a;

/// How a statement ended: on to the next one, or out of the loop or the
/// call around it (`break`, `continue`, `return`: the call's frame holds
/// the value, `Interp::returning`). One byte, so statements return it in
/// a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Next,
    Break,
    Continue,
    Return,
}

/// A statement, compiled: how it ended (`Flow`).
pub(crate) type Exec = Box<dyn Fn(&mut Interp) -> Result<Flow, Diagnostic> + Send + Sync>;

/// A block, compiled: its statements in order.
pub(crate) struct Code(pub(super) Vec<Exec>);

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Code({} statements)", self.0.len())
    }
}

impl Code {
    /// Runs the statements until one ends the block (`break`, `continue`,
    /// `return`), as `Interp::exec_block` does.
    #[inline]
    pub(crate) fn run(&self, it: &mut Interp) -> Result<Flow, Diagnostic> {
        for s in &self.0 {
            match s(it)? {
                Flow::Next => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Next)
    }
}
