//! Where each variable of a function body lives, decided once when the
//! function is defined (Python's rule): a name the body assigns anywhere
//! is slot `k` of the call's locals, any other is the session's. The
//! interpreter then reads and writes a local by its slot, with no search.
//!
//! Names that are not variables (a keyword argument's, an attribute's,
//! `help`'s topic) are left alone, and so are the bodies of the functions
//! the body defines: those were resolved when they were defined. A nested
//! function's name and its parameters' defaults are this body's.

use super::ast::{
    Block, CellVar, CompClause, Expr, ExprKind, FnDef, ForIter, FreeVar, IndexItem, Name, Param,
    Scope, StmtKind, SyncTarget, Target,
};
use std::cell::RefCell;
use std::sync::Arc;

/// What a body's names resolve against: the function's locals, those of
/// them its nested functions read (cells), and the enclosing functions'
/// names it reads (free). When `reads` is set, the walk only gathers the
/// names nested functions read from outside themselves (and, with `own`,
/// the names this body reads from outside), changing nothing that is kept.
struct Ctx<'a> {
    locals: &'a [String],
    cells: &'a [String],
    free: &'a [String],
    reads: Option<&'a RefCell<Vec<String>>>,
    own: bool,
}

impl Ctx<'_> {
    fn note(&self, name: &str) {
        if let Some(r) = self.reads {
            let mut r = r.borrow_mut();
            if !r.iter().any(|n| n == name) {
                r.push(name.to_string());
            }
        }
    }
}

/// `fn name(a, b=1) { body }`: its locals found (the parameters, then
/// every name the body assigns) and every variable in the body resolved.
pub fn function(name: Name, mut params: Vec<Param>, body: Block) -> FnDef {
    let mut locals: Vec<String> = params.iter().map(|p| p.name.name.clone()).collect();
    assigned(&body, &mut locals);
    for s in &body {
        comprehension_names(&s.kind, &mut locals);
    }
    // `global x`: the session's `x`, though the body assigns it.
    // `nonlocal x`: an enclosing function's `x` (taken as a free name
    // when that function is resolved).
    let mut globals = Vec::new();
    declared_global(&body, &mut globals);
    let mut nonlocals = Vec::new();
    declared(&body, &mut nonlocals, &|s| match s {
        StmtKind::Nonlocal(names) => Some(names),
        _ => None,
    });
    globals.extend(nonlocals);
    locals.retain(|n| !globals.contains(n) || params.iter().any(|p| p.name.name == *n));
    for (k, p) in params.iter_mut().enumerate() {
        p.name.scope = Scope::Local(k as u32);
    }
    let variadic = params.iter().any(|p| p.spread != super::ast::Spread::No);
    let generator = yields(&body);
    let mut f = FnDef {
        name,
        params,
        body,
        locals,
        variadic,
        decorators: Vec::new(),
        generator,
        cells: Vec::new(),
        free: Vec::new(),
        positional_only: 0,
    };
    // The locals the functions it defines read become cells.
    let wanted = RefCell::new(Vec::new());
    let mut probe = f.body.clone();
    walk(&f, &mut probe, Some(&wanted), false);
    let wanted = wanted.into_inner();
    f.cells = f
        .locals
        .iter()
        .filter(|n| wanted.contains(n))
        .map(|n| CellVar {
            name: n.clone(),
            param: f
                .params
                .iter()
                .position(|p| p.name.name == *n)
                .map(|k| k as u32),
        })
        .collect();
    resolve_body(&mut f);
    f
}

/// Resolves `f`'s body against its locals, cells and free names; the
/// functions it defines take what they read of those.
fn resolve_body(f: &mut FnDef) {
    let mut body = std::mem::take(&mut f.body);
    walk(f, &mut body, None, false);
    f.body = body;
}

/// Walks `body` (`f`'s, or a copy) with `f`'s names (`Ctx`'s `reads`
/// and `own`).
fn walk(f: &FnDef, body: &mut Block, reads: Option<&RefCell<Vec<String>>>, own: bool) {
    let cells: Vec<String> = f.cells.iter().map(|c| c.name.clone()).collect();
    let free: Vec<String> = f.free.iter().map(|v| v.name.clone()).collect();
    let ctx = Ctx {
        locals: &f.locals,
        cells: &cells,
        free: &free,
        reads,
        own,
    };
    block(body, &ctx);
}

/// The names `g` reads that neither it nor a function inside it binds
/// (or declares global): what it may take from an enclosing function.
fn unbound_reads(g: &FnDef) -> Vec<String> {
    let found = RefCell::new(Vec::new());
    let mut probe = g.body.clone();
    walk(g, &mut probe, Some(&found), true);
    let mut globals = Vec::new();
    declared_global(&g.body, &mut globals);
    let mut found = found.into_inner();
    found.retain(|n| !globals.contains(n));
    found
}

/// A function defined in a body resolved with `ctx`: each name it reads
/// that the body's function has in a cell or takes from further out
/// becomes one of its free names.
fn close(g: &mut FnDef, ctx: &Ctx) {
    if let Some(reads) = ctx.reads {
        // Gathering only: what `g` reads from outside, as the body's.
        for n in unbound_reads(g) {
            if ctx.own || ctx.locals.contains(&n) || ctx.free.contains(&n) {
                let mut r = reads.borrow_mut();
                if !r.contains(&n) {
                    r.push(n);
                }
            }
        }
        return;
    }
    let mut changed = false;
    for n in unbound_reads(g) {
        let from = match (
            ctx.cells.iter().position(|c| *c == n),
            ctx.free.iter().position(|c| *c == n),
        ) {
            (Some(k), _) => Scope::Cell(k as u32),
            (None, Some(k)) => Scope::Free(k as u32),
            (None, None) => continue,
        };
        if !g.free.iter().any(|v| v.name == n) {
            g.free.push(FreeVar { name: n, from });
            changed = true;
        }
    }
    if changed {
        resolve_body(g);
    }
}

/// Does `block` yield (its nested blocks too, not the functions and
/// classes it defines)?
pub fn yields(block: &Block) -> bool {
    block.iter().any(|s| stmt_yields(&s.kind))
}

/// Does the statement `s` yield, itself or in a block it holds?
pub fn stmt_yields(s: &StmtKind) -> bool {
    match s {
        StmtKind::Yield { .. } => true,
        StmtKind::For(_, _, b)
        | StmtKind::While(_, b)
        | StmtKind::With(_, _, b)
        | StmtKind::Stream(_, b)
        | StmtKind::Time(_, b)
        | StmtKind::Profile(_, b)
        | StmtKind::NoGrad(b) => yields(b),
        StmtKind::If(branches, otherwise) => {
            branches.iter().any(|(_, b)| yields(b)) || otherwise.as_ref().is_some_and(yields)
        }
        StmtKind::Try(t) => {
            yields(&t.body)
                || t.handlers.iter().any(|h| yields(&h.body))
                || t.orelse.iter().chain(&t.finally).any(yields)
        }
        _ => false,
    }
}

/// The names `block` binds, nested blocks included but not the bodies of
/// the functions it defines (their names only), in order of first binding.
fn assigned(block: &Block, out: &mut Vec<String>) {
    let add = |name: &str, out: &mut Vec<String>| {
        if !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    };
    for s in block {
        match &s.kind {
            StmtKind::Assign(n, _) | StmtKind::Pin(n) | StmtKind::Annotated(n, _) => {
                add(&n.name, out)
            }
            StmtKind::Augmented(e, _, _) => {
                if let ExprKind::Var(name) = &e.kind {
                    add(&name.name, out);
                }
            }
            StmtKind::Unpack(targets, _) | StmtKind::Chain(targets, _) => targets
                .iter()
                .flat_map(Target::names)
                .for_each(|n| add(&n.name, out)),
            StmtKind::Del(targets) => targets.iter().for_each(|e| {
                if let ExprKind::Var(n) = &e.kind {
                    add(&n.name, out)
                }
            }),
            StmtKind::Fn(f) => add(&f.name.name, out),
            StmtKind::Import(items) => items.iter().for_each(|i| add(&i.bind.name, out)),
            StmtKind::Class(c) => add(&c.name.name, out),
            StmtKind::Stream(n, b) => {
                add(&n.name, out);
                assigned(b, out);
            }
            StmtKind::For(targets, _, b) => {
                targets
                    .iter()
                    .flat_map(Target::names)
                    .for_each(|n| add(&n.name, out));
                assigned(b, out);
            }
            StmtKind::With(_, target, b) => {
                target
                    .iter()
                    .flat_map(Target::names)
                    .for_each(|n| add(&n.name, out));
                assigned(b, out);
            }
            StmtKind::Time(_, b)
            | StmtKind::Profile(_, b)
            | StmtKind::NoGrad(b)
            | StmtKind::While(_, b) => assigned(b, out),
            StmtKind::If(branches, otherwise) => {
                branches.iter().for_each(|(_, b)| assigned(b, out));
                if let Some(b) = otherwise {
                    assigned(b, out);
                }
            }
            StmtKind::Try(t) => {
                assigned(&t.body, out);
                for h in &t.handlers {
                    if let Some(n) = &h.name {
                        add(&n.name, out);
                    }
                    assigned(&h.body, out);
                }
                t.orelse
                    .iter()
                    .chain(&t.finally)
                    .for_each(|b| assigned(b, out));
            }
            _ => {}
        }
    }
}

/// The names `global` declares anywhere in `block` (nested blocks too).
fn declared_global(block: &Block, out: &mut Vec<String>) {
    declared(block, out, &|s| match s {
        StmtKind::Global(names) => Some(names),
        _ => None,
    })
}

/// The names the statements `which` picks (`global`, `nonlocal`) declare
/// anywhere in `block` (nested blocks too).
fn declared(block: &Block, out: &mut Vec<String>, which: &dyn Fn(&StmtKind) -> Option<&Vec<Name>>) {
    for s in block {
        if let Some(names) = which(&s.kind) {
            out.extend(names.iter().map(|n| n.name.clone()));
            continue;
        }
        match &s.kind {
            StmtKind::For(_, _, b)
            | StmtKind::While(_, b)
            | StmtKind::With(_, _, b)
            | StmtKind::Stream(_, b)
            | StmtKind::NoGrad(b)
            | StmtKind::Time(_, b)
            | StmtKind::Profile(_, b) => declared(b, out, which),
            StmtKind::If(branches, otherwise) => {
                branches.iter().for_each(|(_, b)| declared(b, out, which));
                otherwise.iter().for_each(|b| declared(b, out, which));
            }
            StmtKind::Try(t) => {
                declared(&t.body, out, which);
                t.handlers
                    .iter()
                    .for_each(|h| declared(&h.body, out, which));
                t.orelse
                    .iter()
                    .chain(&t.finally)
                    .for_each(|b| declared(b, out, which));
            }
            _ => {}
        }
    }
}

/// The names the comprehensions in `s` bind (and in the blocks it holds):
/// a comprehension's `for` names are the function's locals, as a `for`
/// loop's are.
fn comprehension_names(s: &StmtKind, out: &mut Vec<String>) {
    match s {
        StmtKind::Expr(e)
        | StmtKind::Wait(e)
        | StmtKind::Assign(_, e)
        | StmtKind::Annotated(_, Some(e))
        | StmtKind::Unpack(_, e)
        | StmtKind::Chain(_, e) => expr_comprehensions(e, out),
        StmtKind::IndexAssign(a, _, b)
        | StmtKind::Augmented(a, _, b)
        | StmtKind::AttrAssign(a, _, b) => {
            expr_comprehensions(a, out);
            expr_comprehensions(b, out);
        }
        StmtKind::Return(Some(e))
        | StmtKind::Assert(e, None)
        | StmtKind::Yield { value: Some(e), .. } => expr_comprehensions(e, out),
        StmtKind::Assert(a, Some(b)) => {
            expr_comprehensions(a, out);
            expr_comprehensions(b, out);
        }
        StmtKind::With(e, _, b) | StmtKind::While(e, b) => {
            expr_comprehensions(e, out);
            b.iter().for_each(|s| comprehension_names(&s.kind, out));
        }
        StmtKind::For(_, iter, b) => {
            match iter {
                ForIter::Range(a, z) => {
                    expr_comprehensions(a, out);
                    expr_comprehensions(z, out);
                }
                ForIter::Each(e) => expr_comprehensions(e, out),
            }
            b.iter().for_each(|s| comprehension_names(&s.kind, out));
        }
        StmtKind::If(branches, otherwise) => {
            for (c, b) in branches {
                expr_comprehensions(c, out);
                b.iter().for_each(|s| comprehension_names(&s.kind, out));
            }
            for s in otherwise.iter().flatten() {
                comprehension_names(&s.kind, out);
            }
        }
        StmtKind::Stream(_, b)
        | StmtKind::NoGrad(b)
        | StmtKind::Time(_, b)
        | StmtKind::Profile(_, b) => b.iter().for_each(|s| comprehension_names(&s.kind, out)),
        StmtKind::Try(t) => {
            let handlers = t.handlers.iter().map(|h| &h.body);
            for b in std::iter::once(&t.body)
                .chain(handlers)
                .chain(&t.orelse)
                .chain(&t.finally)
            {
                b.iter().for_each(|s| comprehension_names(&s.kind, out));
            }
        }
        _ => {}
    }
}

/// The names bound by the comprehensions inside `e` (not inside a lambda:
/// its body is a function of its own).
fn expr_comprehensions(e: &Expr, out: &mut Vec<String>) {
    let mut go = |e: &Expr| expr_comprehensions(e, out);
    match &e.kind {
        ExprKind::Comprehension(c) => {
            for clause in &c.clauses {
                match clause {
                    CompClause::For(targets, it) => {
                        for n in targets.iter().flat_map(Target::names) {
                            if !out.contains(&n.name) {
                                out.push(n.name.clone());
                            }
                        }
                        expr_comprehensions(it, out);
                    }
                    CompClause::If(c) => expr_comprehensions(c, out),
                }
            }
            expr_comprehensions(&c.element, out);
            if let Some(k) = &c.key {
                expr_comprehensions(k, out);
            }
        }
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            items.iter().for_each(go)
        }
        ExprKind::Walrus(n, value) => {
            if !out.contains(&n.name) {
                out.push(n.name.clone());
            }
            expr_comprehensions(value, out);
        }
        ExprKind::Matches(subject, pattern) => {
            expr_comprehensions(subject, out);
            for n in pattern.names() {
                if !out.contains(&n.name) {
                    out.push(n.name.clone());
                }
            }
        }
        ExprKind::Dict(pairs) => pairs.iter().for_each(|(k, v)| {
            go(k);
            go(v);
        }),
        ExprKind::Neg(a)
        | ExprKind::Pos(a)
        | ExprKind::Starred(a)
        | ExprKind::Invert(a)
        | ExprKind::Not(a)
        | ExprKind::Attr(a, _) => go(a),
        ExprKind::IfElse(a, c, b) => {
            go(a);
            go(c);
            go(b);
        }
        ExprKind::Binary(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            go(a);
            go(b);
        }
        ExprKind::Compare(first, rest) => {
            go(first);
            rest.iter().for_each(|(_, e)| go(e));
        }
        ExprKind::Call(callee, args) => {
            go(callee);
            args.iter().for_each(|a| go(&a.value));
        }
        ExprKind::Index(obj, items) => {
            go(obj);
            for item in items {
                match item {
                    IndexItem::At(e) => go(e),
                    IndexItem::Slice {
                        start, stop, step, ..
                    } => [start, stop, step].into_iter().flatten().for_each(&mut go),
                    IndexItem::Ellipsis => {}
                }
            }
        }
        _ => {}
    }
}

/// Resolves every variable in `body` against `locals` (`FnDef::locals`).
fn block(body: &mut Block, locals: &Ctx) {
    for s in body {
        stmt(&mut s.kind, locals);
    }
}

fn name(n: &mut Name, ctx: &Ctx) {
    let at = |names: &[String]| names.iter().position(|l| *l == n.name).map(|k| k as u32);
    n.scope = match (at(ctx.cells), at(ctx.locals), at(ctx.free)) {
        (Some(k), _, _) => Scope::Cell(k),
        (None, Some(k), _) => Scope::Local(k),
        (None, None, Some(k)) => Scope::Free(k),
        (None, None, None) => {
            if ctx.own {
                ctx.note(&n.name);
            }
            Scope::Global
        }
    };
}

fn stmt(s: &mut StmtKind, locals: &Ctx) {
    let exprs = |es: &mut [&mut Expr]| es.iter_mut().for_each(|e| expr(e, locals));
    match s {
        StmtKind::Expr(e) | StmtKind::Wait(e) => expr(e, locals),
        StmtKind::Assign(n, e) => {
            name(n, locals);
            expr(e, locals);
        }
        StmtKind::Annotated(n, e) => {
            name(n, locals);
            if let Some(e) = e {
                expr(e, locals);
            }
        }
        StmtKind::Unpack(targets, e) | StmtKind::Chain(targets, e) => {
            targets
                .iter_mut()
                .flat_map(Target::names_mut)
                .for_each(|n| name(n, locals));
            targets
                .iter_mut()
                .flat_map(Target::reads_mut)
                .for_each(|e| expr(e, locals));
            expr(e, locals);
        }
        StmtKind::IndexAssign(obj, items, value) => {
            exprs(&mut [obj, value]);
            index(items, locals);
        }
        StmtKind::Augmented(target, _, value) | StmtKind::AttrAssign(target, _, value) => {
            exprs(&mut [target, value])
        }
        StmtKind::Del(targets) => targets.iter_mut().for_each(|e| expr(e, locals)),
        StmtKind::Pin(n) => name(n, locals),
        StmtKind::With(e, target, b) => {
            expr(e, locals);
            target
                .iter_mut()
                .flat_map(Target::names_mut)
                .for_each(|n| name(n, locals));
            block(b, locals);
        }
        StmtKind::Stream(n, b) => {
            name(n, locals);
            block(b, locals);
        }
        StmtKind::Sync(t) | StmtKind::Mem { target: t, .. } => {
            if let SyncTarget::Of(e) = t {
                expr(e, locals);
            }
        }
        StmtKind::For(targets, iter, b) => {
            targets
                .iter_mut()
                .flat_map(Target::names_mut)
                .for_each(|n| name(n, locals));
            match iter {
                ForIter::Range(from, to) => exprs(&mut [from, to]),
                ForIter::Each(e) => expr(e, locals),
            }
            block(b, locals);
        }
        StmtKind::Fn(f) => {
            let f = Arc::make_mut(f);
            close(f, locals);
            name(&mut f.name, locals);
            f.decorators.iter_mut().for_each(|d| expr(d, locals));
            for p in &mut f.params {
                if let Some(e) = &mut p.default {
                    expr(e, locals);
                }
            }
        }
        // The class's name is this body's; its body's attributes are the
        // class's, their values and the methods' defaults read this body.
        StmtKind::Class(c) => {
            let c = Arc::make_mut(c);
            name(&mut c.name, locals);
            c.decorators.iter_mut().for_each(|d| expr(d, locals));
            c.bases.iter_mut().for_each(|b| expr(b, locals));
            for s in &mut c.body {
                match &mut s.kind {
                    StmtKind::Assign(_, e)
                    | StmtKind::Annotated(_, Some(e))
                    | StmtKind::Expr(e) => expr(e, locals),
                    StmtKind::Annotated(_, None) => {}
                    other => stmt(other, locals),
                }
            }
        }
        StmtKind::Return(e) | StmtKind::Yield { value: e, .. } => {
            if let Some(e) = e {
                expr(e, locals);
            }
        }
        StmtKind::If(branches, otherwise) => {
            for (c, b) in branches {
                expr(c, locals);
                block(b, locals);
            }
            if let Some(b) = otherwise {
                block(b, locals);
            }
        }
        StmtKind::While(c, b) => {
            expr(c, locals);
            block(b, locals);
        }
        StmtKind::NoGrad(b) => block(b, locals),
        StmtKind::Time(e, b) | StmtKind::Profile(e, b) => {
            if let Some(e) = e {
                expr(e, locals);
            }
            block(b, locals);
        }
        StmtKind::Import(items) => items.iter_mut().for_each(|i| name(&mut i.bind, locals)),
        StmtKind::Assert(c, message) => {
            expr(c, locals);
            if let Some(m) = message {
                expr(m, locals);
            }
        }
        StmtKind::Global(names) | StmtKind::Nonlocal(names) => {
            names.iter_mut().for_each(|n| name(n, locals))
        }
        StmtKind::Raise(e, cause) => {
            for e in [e, cause].into_iter().flatten() {
                expr(e, locals);
            }
        }
        StmtKind::Try(t) => {
            block(&mut t.body, locals);
            for h in &mut t.handlers {
                if let Some(c) = &mut h.classes {
                    expr(c, locals);
                }
                if let Some(n) = &mut h.name {
                    name(n, locals);
                }
                block(&mut h.body, locals);
            }
            for b in t.orelse.iter_mut().chain(t.finally.iter_mut()) {
                block(b, locals);
            }
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Pass | StmtKind::Help(_) => {}
    }
}

fn fstring(parts: &mut [super::ast::FPart], locals: &Ctx) {
    for p in parts {
        if let super::ast::FPart::Field { expr: e, spec, .. } = p {
            expr(e, locals);
            fstring(spec, locals);
        }
    }
}

fn expr(e: &mut Expr, locals: &Ctx) {
    match &mut e.kind {
        ExprKind::Var(n) => name(n, locals),
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            items.iter_mut().for_each(|e| expr(e, locals))
        }
        ExprKind::FString(parts) => fstring(parts, locals),
        ExprKind::Walrus(n, value) => {
            name(n, locals);
            expr(value, locals);
        }
        ExprKind::Matches(subject, pattern) => {
            expr(subject, locals);
            pattern.parts_mut(&mut |n| name(n, locals), &mut |e| expr(e, locals));
        }
        // Its own function, resolved when it was parsed; it takes what it
        // reads of this body's locals.
        ExprKind::Lambda(f) => close(Arc::make_mut(f), locals),
        ExprKind::Comprehension(c) => {
            for clause in &mut c.clauses {
                match clause {
                    CompClause::For(targets, it) => {
                        targets
                            .iter_mut()
                            .flat_map(Target::names_mut)
                            .for_each(|n| name(n, locals));
                        expr(it, locals);
                    }
                    CompClause::If(c) => expr(c, locals),
                }
            }
            expr(&mut c.element, locals);
            if let Some(k) = &mut c.key {
                expr(k, locals);
            }
        }
        ExprKind::Dict(pairs) => pairs.iter_mut().for_each(|(k, v)| {
            expr(k, locals);
            expr(v, locals);
        }),
        ExprKind::Neg(a)
        | ExprKind::Pos(a)
        | ExprKind::Starred(a)
        | ExprKind::Invert(a)
        | ExprKind::Not(a)
        | ExprKind::Attr(a, _) => expr(a, locals),
        ExprKind::IfElse(a, c, b) => {
            expr(a, locals);
            expr(c, locals);
            expr(b, locals);
        }
        ExprKind::Binary(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            expr(a, locals);
            expr(b, locals);
        }
        ExprKind::Compare(first, rest) => {
            expr(first, locals);
            rest.iter_mut().for_each(|(_, e)| expr(e, locals));
        }
        ExprKind::Call(callee, args) => {
            expr(callee, locals);
            args.iter_mut().for_each(|a| expr(&mut a.value, locals));
        }
        ExprKind::Index(obj, items) => {
            expr(obj, locals);
            index(items, locals);
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Device(_)
        | ExprKind::DType(_) => {}
    }
}

fn index(items: &mut [IndexItem], locals: &Ctx) {
    for item in items {
        match item {
            IndexItem::At(e) => expr(e, locals),
            IndexItem::Ellipsis => {}
            IndexItem::Slice {
                start, stop, step, ..
            } => [start, stop, step]
                .into_iter()
                .flatten()
                .for_each(|e| expr(e, locals)),
        }
    }
}
