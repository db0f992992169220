//! Python's compile-time rules for `break`, `continue` and `return`: each
//! belongs inside a loop or a function, checked before anything runs (a
//! `SyntaxError`, as Python reports it).

use super::ast::{Block, StmtKind};
use crate::error::Diagnostic;

/// Where a statement stands: inside a loop (of the innermost function), or
/// a function.
#[derive(Clone, Copy, Default)]
struct Place {
    in_loop: bool,
    in_fn: bool,
}

/// The first `break`, `continue` or `return` out of its place in `block`.
pub fn check(block: &Block) -> Result<(), Diagnostic> {
    walk(block, Place::default())
}

fn walk(block: &Block, at: Place) -> Result<(), Diagnostic> {
    let looping = Place {
        in_loop: true,
        ..at
    };
    for s in block {
        match &s.kind {
            StmtKind::Break if !at.in_loop => {
                return Err(Diagnostic::syntax(s.span, "`break` outside a loop"))
            }
            StmtKind::Continue if !at.in_loop => {
                return Err(Diagnostic::syntax(s.span, "`continue` outside a loop"))
            }
            StmtKind::Return(_) if !at.in_fn => {
                return Err(Diagnostic::syntax(s.span, "`return` outside a function"))
            }
            StmtKind::Yield { .. } if !at.in_fn => {
                return Err(Diagnostic::syntax(s.span, "`yield` outside a function"))
            }
            StmtKind::For(_, _, b) | StmtKind::While(_, b) => walk(b, looping)?,
            StmtKind::Fn(f) => walk(
                &f.body,
                Place {
                    in_loop: false,
                    in_fn: true,
                },
            )?,
            StmtKind::Class(c) => walk(&c.body, Place::default())?,
            StmtKind::With(_, _, b)
            | StmtKind::Stream(_, b)
            | StmtKind::Time(_, b)
            | StmtKind::Profile(_, b)
            | StmtKind::NoGrad(b) => walk(b, at)?,
            StmtKind::If(branches, otherwise) => {
                for (_, b) in branches {
                    walk(b, at)?;
                }
                if let Some(b) = otherwise {
                    walk(b, at)?;
                }
            }
            StmtKind::Try(t) => {
                walk(&t.body, at)?;
                for h in &t.handlers {
                    walk(&h.body, at)?;
                }
                for b in t.orelse.iter().chain(&t.finally) {
                    walk(b, at)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}
