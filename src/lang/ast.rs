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

/// A binary operator as written: an elementwise one, `@`, or one of
/// Python's comparisons of objects (`is`, `is not`, `in`, `not in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Elementwise(BinaryOp),
    MatMul,
    Is,
    IsNot,
    In,
    NotIn,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Elementwise(op) => op.symbol(),
            BinOp::MatMul => "@",
            BinOp::Is => "is",
            BinOp::IsNot => "is not",
            BinOp::In => "in",
            BinOp::NotIn => "not in",
        }
    }

    /// PyTorch's name for the op (`add`, `matmul`), as a profile labels it.
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Elementwise(op) => op.name(),
            BinOp::MatMul => "matmul",
            other => other.symbol(),
        }
    }
}

/// A name as written. Where it names a variable (read, assigned, a loop's
/// or a parameter's), `scope` says where the variable lives, found once
/// when the function around it is defined (`resolve::function`).
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    pub name: String,
    pub span: Span,
    pub scope: Scope,
    /// Where the session's table last found this global (`Found`).
    pub found: Found,
}

impl Name {
    /// A name found outside any function: the session's.
    pub fn new(name: String, span: Span) -> Name {
        Name {
            name,
            span,
            scope: Scope::Global,
            found: Found::default(),
        }
    }
}

/// An inline cache: which table of session variables (`eval::Globals`)
/// last looked this name up, and the slot it found, so a loop reads and
/// writes a global by its slot, without hashing its name each time. A
/// table checks the number is its own before it trusts the slot; 0 is
/// "not looked up". Not part of what the name is: names compare equal
/// whatever they cached.
///
/// One word: a table number of 40 bits (a process would need a trillion
/// sessions or resets to reuse one) and a slot of 24 bits (a table with
/// more variables than that finds the rest by name).
#[derive(Default)]
pub struct Found(std::sync::atomic::AtomicU64);

impl Found {
    /// The largest table number `set` keeps.
    pub const TABLES: u64 = (1 << 40) - 1;
    const SLOT_BITS: u32 = 24;

    /// `(table, slot)` as last stored, or None.
    pub fn get(&self) -> Option<(u64, u32)> {
        match self.0.load(std::sync::atomic::Ordering::Relaxed) {
            0 => None,
            v => Some((
                v >> Self::SLOT_BITS,
                (v & ((1 << Self::SLOT_BITS) - 1)) as u32,
            )),
        }
    }

    /// Remembers that `table` (1 to `TABLES`) holds this name in `slot`;
    /// a slot too large to keep is not remembered.
    pub fn set(&self, table: u64, slot: usize) {
        if slot < 1 << Self::SLOT_BITS && (1..=Self::TABLES).contains(&table) {
            let v = (table << Self::SLOT_BITS) | slot as u64;
            self.0.store(v, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Clone for Found {
    fn clone(&self) -> Found {
        Found(std::sync::atomic::AtomicU64::new(
            self.0.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

impl PartialEq for Found {
    fn eq(&self, _: &Found) -> bool {
        true
    }
}

impl std::fmt::Debug for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Found")
    }
}

/// Where a variable lives: Python's rule, decided by the code around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The session's variables (top level, or a name a function reads
    /// and never assigns).
    Global,
    /// Slot `k` of the running call's locals (`FnDef::locals[k]`).
    Local(u32),
    /// A local that functions the body defines read (`FnDef::cells[k]`):
    /// kept in a cell the call and those functions share, as Python's.
    Cell(u32),
    /// An enclosing function's local (`FnDef::free[k]`): the cell the
    /// function took when it was made (Python's closure).
    Free(u32),
}

/// A local that functions defined in the body read: its name, and the
/// parameter slot its first value comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct CellVar {
    pub name: String,
    pub param: Option<u32>,
}

/// A name an enclosing function binds: where, in the function around this
/// one, its cell is (`Scope::Cell` or `Scope::Free` there).
#[derive(Debug, Clone, PartialEq)]
pub struct FreeVar {
    pub name: String,
    pub from: Scope,
}

/// A comprehension: what each item makes, and the `for` and `if`
/// clauses in order. Its names are bound in the scope around it (the
/// function's locals, or the session's), as a `for` loop's are.
#[derive(Debug, Clone, PartialEq)]
pub struct Comprehension {
    pub kind: CompKind,
    /// The item made (a dict's value for `Dict`).
    pub element: Expr,
    /// A dict comprehension's key.
    pub key: Option<Expr>,
    pub clauses: Vec<CompClause>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompKind {
    /// `[...]`: a Python list.
    List,
    /// `(... for ...)`: a generator, made as a tuple at once.
    Generator,
    /// `{k: v for ...}`
    Dict,
    /// `{x for ...}`: a set.
    Set,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CompClause {
    For(Vec<Target>, Expr),
    If(Expr),
}

/// A piece of an f-string.
#[derive(Debug, Clone, PartialEq)]
pub enum FPart {
    Text(String),
    /// `{expr!conv:spec}`; `spec` may hold fields itself (`{x:{width}}`).
    /// `debug` is `{x=}`'s text before the value (`x=`).
    Field {
        expr: Expr,
        conv: Option<char>,
        spec: Vec<FPart>,
        debug: Option<String>,
    },
}

/// What a `for` or an unpacking assigns: a name, or a parenthesised
/// group that takes one item apart in turn (`for i, (x, y) in ...`).
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Name(Name),
    Tuple(Vec<Target>, Span),
    /// `self.sum, self.count = ...`: an attribute set (names no variable).
    Attr(Box<Expr>, Name),
    /// `xs[i], xs[j] = xs[j], xs[i]`: an item set.
    Index(Box<Expr>, Vec<IndexItem>),
    /// `first, *rest = xs`: the items the others leave, as a list.
    Starred(Box<Target>),
}

impl Target {
    /// Every name bound, in order.
    pub fn names(&self) -> Vec<&Name> {
        match self {
            Target::Name(n) => vec![n],
            Target::Tuple(ts, _) => ts.iter().flat_map(Target::names).collect(),
            Target::Starred(t) => t.names(),
            Target::Attr(..) | Target::Index(..) => Vec::new(),
        }
    }

    /// Every name bound, to be resolved.
    pub fn names_mut(&mut self) -> Vec<&mut Name> {
        match self {
            Target::Name(n) => vec![n],
            Target::Tuple(ts, _) => ts.iter_mut().flat_map(Target::names_mut).collect(),
            Target::Starred(t) => t.names_mut(),
            Target::Attr(..) | Target::Index(..) => Vec::new(),
        }
    }

    /// Every expression a target reads (an attribute's object), to be
    /// resolved.
    pub fn reads_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Target::Name(_) => Vec::new(),
            Target::Tuple(ts, _) => ts.iter_mut().flat_map(Target::reads_mut).collect(),
            Target::Starred(t) => t.reads_mut(),
            Target::Attr(obj, _) => vec![obj],
            Target::Index(obj, items) => std::iter::once(&mut **obj)
                .chain(items.iter_mut().flat_map(IndexItem::exprs_mut))
                .collect(),
        }
    }

    /// The target an expression on the left of `=` writes: a name, an
    /// attribute, or a tuple or list of targets; Err for anything else.
    pub fn of(e: Expr) -> Result<Target, Span> {
        match e.kind {
            ExprKind::Var(n) => Ok(Target::Name(n)),
            ExprKind::Attr(obj, attr) => Ok(Target::Attr(obj, attr)),
            ExprKind::Index(obj, items) => Ok(Target::Index(obj, items)),
            ExprKind::Starred(inner) => Ok(Target::Starred(Box::new(Target::of(*inner)?))),
            ExprKind::Tuple(items) | ExprKind::List(items) => Ok(Target::Tuple(
                items
                    .into_iter()
                    .map(Target::of)
                    .collect::<Result<_, _>>()?,
                e.span,
            )),
            _ => Err(e.span),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// `Some` for keyword arguments (`device=cuda`).
    pub keyword: Option<Name>,
    pub value: Expr,
    /// `*xs` (its items as positional arguments) or `**d` (its entries as
    /// keyword arguments).
    pub spread: Spread,
}

/// How an argument is passed: as itself, or spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    No,
    /// `*xs`
    Items,
    /// `**d`
    Entries,
}

impl Arg {
    /// A plain positional argument: the fast calls take only these.
    pub fn positional(&self) -> bool {
        self.keyword.is_none() && self.spread == Spread::No
    }
}

impl IndexItem {
    /// The expressions an index item holds (an index, a slice's bounds).
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            IndexItem::At(e) => vec![e],
            IndexItem::Ellipsis => Vec::new(),
            IndexItem::Slice {
                start, stop, step, ..
            } => [start, stop, step]
                .into_iter()
                .filter_map(|e| e.as_mut())
                .collect(),
        }
    }
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
    /// `b"..."`: bytes.
    Bytes(Vec<u8>),
    /// `f"loss: {loss:>7f}"`: text and fields, joined when evaluated.
    FString(Vec<FPart>),
    Bool(bool),
    None,
    Device(DeviceLit),
    DType(DType),
    Var(Name),
    /// `[a, b, ...]`: a tensor literal when every leaf is a number, else a list.
    List(Vec<Expr>),
    /// `(a, b)`, `(a,)`, `()` and `a, b` where Python takes a tuple (the
    /// right of `=`, `return`): a tuple of the values, numbers kept as
    /// numbers (`zeros((2, 3))`, `betas=(0.9, 0.999)`).
    Tuple(Vec<Expr>),
    /// `{"lr": 0.1, "params": ps}`: a dict; a `Starred` key (`**m`, its
    /// value `None`) spreads the dict `m`'s items in.
    Dict(Vec<(Expr, Expr)>),
    /// `{"a", "b"}`: Python's set.
    Set(Vec<Expr>),
    /// `*xs` among a list's, a tuple's or a set's items (`[*a, 3]`,
    /// `(*shape, n)`): its items spread in; on the left of `=`, the name
    /// that takes the rest (`first, *rest = xs`).
    Starred(Box<Expr>),
    Neg(Box<Expr>),
    /// `+x`: the number itself, the tensor itself (`torch.positive`), or
    /// an instance's `__pos__`.
    Pos(Box<Expr>),
    /// `~x`: bitwise not (logical not of bool).
    Invert(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `0 <= p < 1`: Python's chained comparison, each operand evaluated
    /// once, `and` between the comparisons (two or more of them).
    Compare(Box<Expr>, Vec<(BinOp, Expr)>),
    /// `a and b`, `a or b`: Python's, short-circuit, giving an operand.
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// `not x`: a bool.
    Not(Box<Expr>),
    /// `a if c else b`: Python's conditional expression; `c` first, then
    /// only the operand it picks.
    IfElse(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(n := len(xs))`: the value, also assigned to the name (Python's
    /// assignment expression; in a comprehension, the function's name).
    Walrus(Name, Box<Expr>),
    /// Whether the subject matches a `case`'s pattern, binding its names
    /// when it does: Python's `match` statement is parsed as an `if` chain
    /// of these (`parser::match_statement`).
    Matches(Box<Expr>, Box<Pattern>),
    /// `lambda x, y=1: x + y`: a function of one expression.
    Lambda(std::sync::Arc<FnDef>),
    /// `[f(x) for x in xs if c]`, `{k: v for ...}`, `(f(x) for x in xs)`.
    Comprehension(Box<Comprehension>),
    Call(Box<Expr>, Vec<Arg>),
    Attr(Box<Expr>, Name),
    Index(Box<Expr>, Vec<IndexItem>),
}

/// A `case`'s pattern (Python's structural pattern matching, PEP 634).
#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    /// `_`: anything, bound to no name.
    Wildcard,
    /// `x`: anything, bound to `x`.
    Capture(Name),
    /// `1`, `"a"`, `-2.5`, `Color.RED`: a subject equal to it (`None`,
    /// `True`, `False`: the subject is it).
    Value(Expr),
    /// `[a, *rest]`, `(a, b)`, `case a, b:`: a sequence (not a string)
    /// of as many items, each matching (a star's: at least as many).
    Sequence(Vec<Pattern>),
    /// `*rest` (`*_`: None) among a sequence pattern's items: the items
    /// the others leave, as a list.
    Star(Option<Name>),
    /// `{"k": p, **rest}`: a dict holding each key, its value matching;
    /// `rest` takes the other items.
    Mapping(Vec<(Expr, Pattern)>, Option<Name>),
    /// `Point(x, y=0)`: an instance of the class whose attributes match
    /// (positional ones by the class's `__match_args__`, a dataclass's
    /// fields; `int(n)`, `str(s)` match the subject itself).
    Class(Expr, Vec<Pattern>, Vec<(Name, Pattern)>),
    /// `a | b`: the first that matches.
    Or(Vec<Pattern>),
    /// `p as name`
    As(Box<Pattern>, Name),
}

impl Pattern {
    /// The names it binds, in order.
    pub fn names(&self) -> Vec<&Name> {
        let mut out = Vec::new();
        self.each_name(&mut |n| out.push(n));
        out
    }

    fn each_name<'a>(&'a self, f: &mut dyn FnMut(&'a Name)) {
        match self {
            Pattern::Wildcard | Pattern::Value(_) | Pattern::Star(None) => {}
            Pattern::Capture(n) | Pattern::Star(Some(n)) => f(n),
            Pattern::Sequence(items) | Pattern::Or(items) => {
                items.iter().for_each(|p| p.each_name(f))
            }
            Pattern::Mapping(items, rest) => {
                items.iter().for_each(|(_, p)| p.each_name(f));
                if let Some(n) = rest {
                    f(n);
                }
            }
            Pattern::Class(_, args, keywords) => {
                args.iter().for_each(|p| p.each_name(f));
                keywords.iter().for_each(|(_, p)| p.each_name(f));
            }
            Pattern::As(p, n) => {
                p.each_name(f);
                f(n);
            }
        }
    }

    /// Its names and expressions, to resolve (`resolve`).
    pub fn parts_mut(&mut self, name: &mut dyn FnMut(&mut Name), expr: &mut dyn FnMut(&mut Expr)) {
        match self {
            Pattern::Wildcard | Pattern::Star(None) => {}
            Pattern::Value(e) => expr(e),
            Pattern::Capture(n) | Pattern::Star(Some(n)) => name(n),
            Pattern::Sequence(items) | Pattern::Or(items) => {
                items.iter_mut().for_each(|p| p.parts_mut(name, expr))
            }
            Pattern::Mapping(items, rest) => {
                for (k, p) in items {
                    expr(k);
                    p.parts_mut(name, expr);
                }
                if let Some(n) = rest {
                    name(n);
                }
            }
            Pattern::Class(class, args, keywords) => {
                expr(class);
                args.iter_mut().for_each(|p| p.parts_mut(name, expr));
                keywords
                    .iter_mut()
                    .for_each(|(_, p)| p.parts_mut(name, expr));
            }
            Pattern::As(p, n) => {
                p.parts_mut(name, expr);
                name(n);
            }
        }
    }
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

/// What `mem` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemView {
    /// The allocator's figures now.
    Summary,
    /// Each segment and its blocks (`mem map`).
    Map,
    /// Allocated and reserved over the recorded events (`mem history`).
    History,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    Assign(Name, Expr),
    /// `x: int = 3` (assigns, as `x = 3`) and `x: int` (assigns nothing):
    /// in a class body, a dataclass's field. The annotation is not kept.
    Annotated(Name, Option<Expr>),
    /// `v, i = x.sort()`, `(a, b), c = v`: each target gets one item of a
    /// tuple or list (or of a dict, in order).
    Unpack(Vec<Target>, Expr),
    /// `h0 = c0 = zeros(2)`, `a = b, c = pair`: the value evaluated once,
    /// then given to each target from the left (a tuple target unpacks).
    Chain(Vec<Target>, Expr),
    /// `x[i, j] = v`
    IndexAssign(Expr, Vec<IndexItem>, Expr),
    /// `x.grad = g`, `x.requires_grad = true`: a property that can be set.
    AttrAssign(Expr, Name, Expr),
    /// `x += v`, `x[i] *= v`: the target (a name or an indexed tensor)
    /// updated in place by the op.
    Augmented(Expr, BinaryOp, Expr),
    /// `del x`, `del xs[0]`, `del obj.attr`: names, indexed items and attributes.
    Del(Vec<Expr>),
    /// `with e:` or `with e as target:` (`with a, b:` is nested withs).
    With(Expr, Option<Target>, Block),
    Stream(Name, Block),
    Wait(Expr),
    Pin(Name),
    Sync(SyncTarget),
    /// `mem`, `mem map`, `mem history`, each with a target: `mem all`,
    /// `mem cuda:1`, `mem map cuda:1`, `mem history all`.
    Mem {
        view: MemView,
        target: SyncTarget,
    },
    /// `for i in 0..n { }`, `for x in xs { }`, `for i, (x, y) in pairs { }`.
    For(Vec<Target>, ForIter, Block),
    /// `fn name(a, b=1) { ... }`: defines a function.
    Fn(std::sync::Arc<FnDef>),
    /// `class Net(Module) { ... }`: defines a class.
    Class(std::sync::Arc<ClassDef>),
    /// `return`, `return v`.
    Return(Option<Expr>),
    /// `yield v` (`yield` alone gives none), `yield from xs` (each item):
    /// the function around it is a generator.
    Yield {
        value: Option<Expr>,
        from: bool,
    },
    /// `if c { } elif c { } else { }`: the branches in order, then `else`.
    If(Vec<(Expr, Block)>, Option<Block>),
    While(Expr, Block),
    Break,
    Continue,
    /// `pass`: does nothing (also a bare annotation of an attribute).
    Pass,
    /// `assert c, "message"`: Python's `AssertionError` when `c` is false.
    Assert(Expr, Option<Expr>),
    /// `try: ... except E as e: ... else: ... finally: ...`
    Try(Box<Try>),
    /// `raise E("message")`, `raise E`, `raise` (again, in a handler);
    /// `raise E from cause` (the second: `cause`, `None` included).
    Raise(Option<Expr>, Option<Expr>),
    /// `global a, b`: in a function, these names are the session's.
    Global(Vec<Name>),
    /// `nonlocal a, b`: in a nested function, these names are the
    /// enclosing function's (assigning one changes it there).
    Nonlocal(Vec<Name>),
    /// `import torch.nn as nn`, `from torch import nn, optim`: one entry
    /// per name bound.
    Import(Vec<Import>),
    Time(Option<Expr>, Block),
    /// `profile { }`, or `profile "run.json" { }` to write a Chrome trace too.
    Profile(Option<Expr>, Block),
    /// `no_grad { }`: autograd records nothing in the block.
    NoGrad(Block),
    Help(Option<Name>),
}

/// A `try` statement: the body, its handlers in order, what runs when
/// nothing was raised, and what runs in any case.
#[derive(Debug, Clone, PartialEq)]
pub struct Try {
    pub body: Block,
    pub handlers: Vec<Handler>,
    pub orelse: Option<Block>,
    pub finally: Option<Block>,
}

/// `except E as e:`: which errors (a class, a tuple of them, or every
/// one), the name the error is bound to, and the block.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    pub classes: Option<Expr>,
    pub name: Option<Name>,
    pub body: Block,
    pub span: Span,
}

/// One name an import binds.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The module's dotted path as written (`torch.nn`), and its span.
    pub module: String,
    pub module_span: Span,
    /// `from module import member`: the member; none for `import module`.
    pub member: Option<Name>,
    /// The name bound: the alias after `as`, else the member, else (for
    /// `import torch.nn`) the path's first part, bound to that top module.
    pub bind: Name,
}

/// A function as written: `fn name(params) { body }`.
#[derive(Debug, Clone, PartialEq)]
pub struct FnDef {
    pub name: Name,
    pub params: Vec<Param>,
    pub body: Block,
    /// Every name the body assigns (Python's rule: those are its locals),
    /// the parameters first.
    pub locals: Vec<String>,
    /// Whether a parameter is `*args` or `**kwargs` (then no call binds
    /// its arguments one to one, in order).
    pub variadic: bool,
    /// `@torch.no_grad()`, `@staticmethod` above `def`: applied from the
    /// innermost (last written) out when `def` runs.
    pub decorators: Vec<Expr>,
    /// Whether the body yields (not counting the functions it defines): a
    /// call then makes a generator, which runs the body as `next` asks.
    pub generator: bool,
    /// Its locals that functions defined in its body read (each call keeps
    /// them in cells).
    pub cells: Vec<CellVar>,
    /// The enclosing functions' locals it reads (or passes on to functions
    /// it defines).
    pub free: Vec<FreeVar>,
    /// How many parameters come before a `/` (Python's positional-only
    /// ones: a keyword of that name goes to `**kwargs`, or is an error).
    pub positional_only: usize,
}

/// A parameter: its name and, after `=`, its default; `*args` takes the
/// positional arguments left over (a tuple), `**kwargs` the keywords no
/// parameter names (a dict).
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: Name,
    pub default: Option<Expr>,
    pub spread: Spread,
}

/// A class as written: `class Name(Base) { body }`. The body holds methods
/// (`fn`), class attributes (`name = value`) and a docstring.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassDef {
    pub name: Name,
    /// What is in the parentheses (`Module`; `Bottle, nn.Linear`), in
    /// order; none without.
    pub bases: Vec<Expr>,
    pub body: Block,
    /// `@dataclass` and the like above `class`, as a function's.
    pub decorators: Vec<Expr>,
}
