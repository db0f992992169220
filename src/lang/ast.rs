//! The abstract syntax tree. Every node carries the span of source it came from,
//! so runtime errors can point at the expression that failed.

use super::token::DeviceLit;
use super::Span;
use crate::vocab::{BinaryOp, DType};

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// A binary operator as written: an elementwise one, `@` or `is`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Elementwise(BinaryOp),
    MatMul,
    Is,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Elementwise(op) => op.symbol(),
            BinOp::MatMul => "@",
            BinOp::Is => "is",
        }
    }

    /// PyTorch's name for the op (`add`, `matmul`), as a profile labels it.
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Elementwise(op) => op.name(),
            BinOp::MatMul => "matmul",
            BinOp::Is => "is",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// `Some` for keyword arguments (`device=cuda`).
    pub keyword: Option<Name>,
    pub value: Expr,
}

#[derive(Debug, Clone, PartialEq)]
pub enum IndexItem {
    /// An int, `none` (a new dimension), or a tensor of indices or a mask.
    At(Expr),
    /// `...`
    Ellipsis,
    Slice {
        start: Option<Expr>,
        stop: Option<Expr>,
        step: Option<Expr>,
        span: Span,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    Device(DeviceLit),
    DType(DType),
    Var(String),
    /// `[a, b, ...]`: a tensor literal when every leaf is a number, else a list.
    List(Vec<Expr>),
    Neg(Box<Expr>),
    /// `~x`: bitwise not (logical not of bool).
    Invert(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Call(Box<Expr>, Vec<Arg>),
    Attr(Box<Expr>, Name),
    Index(Box<Expr>, Vec<IndexItem>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

pub type Block = Vec<Stmt>;

#[derive(Debug, Clone, PartialEq)]
pub enum ForIter {
    Range(Expr, Expr),
    Each(Expr),
}

/// What `sync` waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum SyncTarget {
    Current,
    All,
    Of(Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    Assign(Name, Expr),
    /// `v, i = x.sort()`: each name gets one item of a list (or of a dict, in order).
    Unpack(Vec<Name>, Expr),
    /// `x[i, j] = v`
    IndexAssign(Expr, Vec<IndexItem>, Expr),
    /// `x += v`, `x[i] *= v`: the target (a name or an indexed tensor)
    /// updated in place by the op.
    Augmented(Expr, BinaryOp, Expr),
    Del(Vec<Name>),
    With(Expr, Block),
    Stream(Name, Block),
    Wait(Expr),
    Pin(Name),
    Sync(SyncTarget),
    /// `mem`, `mem map`, `mem all`, `mem cuda:1`, `mem map cuda:1`
    Mem {
        map: bool,
        target: SyncTarget,
    },
    For(Name, ForIter, Block),
    Time(Option<Expr>, Block),
    /// `profile { }`, or `profile "run.json" { }` to write a Chrome trace too.
    Profile(Option<Expr>, Block),
    Help(Option<Name>),
}
