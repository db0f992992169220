//! Loops and function bodies, compiled once into closures and run many
//! times.
//!
//! A loop's body and a function's body run thousands of times; walking
//! their syntax trees each time decides again what every node is. Here that
//! is decided once: each statement and expression becomes a closure that
//! does only its own work, with what is known before it runs built in (a
//! local's slot, a constant operand, a call that passes its arguments in
//! order). A closure does its work through the same `Interp` methods the
//! tree walker uses (`arith`, `lookup`, `set_var`, `truth`, `run_call`), so
//! values, errors and their spans are the same; a form not compiled here
//! keeps its tree and is run by the walker (`tree`, `tree_stmt`).
//!
//! `fn` compiles its body when it defines the function (`Function::code`);
//! `while` and `for` compile their body when they start, wherever they run.

use super::flow::{Code, Exec, Flow};
use super::{Interp, Value};
use crate::error::Diagnostic;
use crate::lang::ast::{Arg, BinOp, Block, Expr, ExprKind, Scope, Stmt, StmtKind};
use crate::lang::Span;

/// An expression, compiled.
pub(crate) type Eval = Box<dyn Fn(&mut Interp) -> Result<Value, Diagnostic> + Send + Sync>;

/// How deep expressions are compiled; deeper ones are run as trees (the
/// walker counts their depth on from here, so its limit still holds).
const DEEPEST: usize = 32;

/// A block, compiled.
pub(crate) fn block(b: &Block) -> Code {
    Code(b.iter().map(stmt).collect())
}

/// A statement, with what `Interp::exec` does around each: Ctrl-C stops
/// the run before it, and the hazards it found are warned after it.
fn stmt(s: &Stmt) -> Exec {
    let span = s.span;
    match &s.kind {
        StmtKind::Assign(name, e) | StmtKind::Annotated(name, Some(e)) => {
            let (name, e) = (name.clone(), expr(e, 0));
            each(span, move |it| {
                let v = e(it)?;
                it.assign(&name, v);
                Ok(Flow::Next)
            })
        }
        StmtKind::Augmented(target, op, value) => match &target.kind {
            ExprKind::Var(name) => {
                let (name, op, value_span) = (name.clone(), *op, value.span);
                let (current, value) = (expr(target, 0), expr(value, 0));
                each(span, move |it| {
                    let (c, v) = (current(it)?, value(it)?);
                    it.augment_name(&name, op, c, v, span, value_span)?;
                    Ok(Flow::Next)
                })
            }
            _ => tree_stmt(s),
        },
        // `devices` alone shows the device table: the walker knows it.
        StmtKind::Expr(e) if !matches!(&e.kind, ExprKind::Var(_)) => {
            let e_span = e.span;
            let e = expr(e, 0);
            each(span, move |it| {
                let v = e(it)?;
                it.expression_statement(v, e_span)?;
                Ok(Flow::Next)
            })
        }
        StmtKind::Return(e) => {
            let e = e.as_ref().map(|e| expr(e, 0));
            each(span, move |it| {
                let v = match &e {
                    Some(e) => e(it)?,
                    None => Value::None,
                };
                Ok(it.returning(v))
            })
        }
        StmtKind::If(branches, otherwise) => {
            let branches: Vec<(Eval, Span, Code)> = branches
                .iter()
                .map(|(c, b)| (expr(c, 0), c.span, block(b)))
                .collect();
            let otherwise = otherwise.as_ref().map(block);
            each(span, move |it| {
                for (c, c_span, body) in &branches {
                    let v = c(it)?;
                    if it.truth(&v, *c_span)? {
                        return body.run(it);
                    }
                }
                match &otherwise {
                    Some(body) => body.run(it),
                    None => Ok(Flow::Next),
                }
            })
        }
        StmtKind::While(..) | StmtKind::For(..) => {
            let run = looping(s);
            each(span, move |it| run(it))
        }
        StmtKind::Break => each(span, |_| Ok(Flow::Break)),
        StmtKind::Continue => each(span, |_| Ok(Flow::Continue)),
        _ => tree_stmt(s),
    }
}

/// `while` and `for` (any other statement: its tree), without what `exec`
/// does around a statement: the walker runs loops this way too.
pub(crate) fn looping(s: &Stmt) -> Exec {
    match &s.kind {
        StmtKind::While(c, body) => {
            let (c_span, c, body) = (c.span, expr(c, 0), block(body));
            Box::new(move |it| {
                let condition = |it: &mut Interp| {
                    let v = c(it)?;
                    it.truth(&v, c_span)
                };
                it.exec_while(c_span, &condition, &|it| body.run(it))
            })
        }
        StmtKind::For(names, iter, body) => {
            let (names, iter, body) = (names.clone(), iter.clone(), block(body));
            Box::new(move |it| it.exec_for(&names, &iter, &|it| body.run(it)))
        }
        _ => tree_stmt(s),
    }
}

/// `f` with `Interp::exec`'s work around it.
fn each(
    span: Span,
    f: impl Fn(&mut Interp) -> Result<Flow, Diagnostic> + Send + Sync + 'static,
) -> Exec {
    Box::new(move |it| {
        it.enter(span)?;
        let r = f(it);
        if it.rt.hazards_pending() {
            it.flush_hazards();
        }
        it.flush_statement_notes();
        if crate::autograd::saved_hooks::has_pending() {
            it.pack_saved(span)?;
        }
        if crate::autograd::anomaly::has_untraced() {
            it.trace_new_nodes();
        }
        r
    })
}

/// A statement the walker runs.
fn tree_stmt(s: &Stmt) -> Exec {
    let s = s.clone();
    Box::new(move |it| it.exec(&s))
}

/// An expression at nesting depth `d` (as `Interp::eval` counts it).
fn expr(e: &Expr, d: usize) -> Eval {
    if d >= DEEPEST {
        return tree(e, d);
    }
    let span = e.span;
    match &e.kind {
        ExprKind::Int(i) => {
            let i = *i;
            Box::new(move |_| Ok(Value::Int(i)))
        }
        ExprKind::Float(x) => {
            let x = *x;
            Box::new(move |_| Ok(Value::float(x)))
        }
        ExprKind::Bool(b) => {
            let b = *b;
            Box::new(move |_| Ok(Value::bool(b)))
        }
        ExprKind::None => Box::new(|_| Ok(Value::None)),
        ExprKind::Var(name) => {
            let name = name.clone();
            match name.scope {
                Scope::Local(k) => Box::new(move |it| it.read_local(k as usize, &name, span)),
                _ => Box::new(move |it| it.lookup(&name, span)),
            }
        }
        ExprKind::Binary(op, a, b) if !matches!(op, BinOp::In | BinOp::NotIn) => {
            let (op, a) = (*op, expr(a, d + 1));
            // A number on the right (`i < 10`, `a + 1`) is built in.
            match b.kind {
                ExprKind::Int(k) => Box::new(move |it| {
                    let x = a(it)?;
                    it.arith(op, x, Value::Int(k), span)
                }),
                ExprKind::Float(k) => Box::new(move |it| {
                    let x = a(it)?;
                    it.arith(op, x, Value::float(k), span)
                }),
                _ => {
                    let b = expr(b, d + 1);
                    Box::new(move |it| {
                        let x = a(it)?;
                        let y = b(it)?;
                        it.arith(op, x, y, span)
                    })
                }
            }
        }
        // Python's `and`, `or`, `not`, as the walker runs them.
        ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            let is_and = matches!(e.kind, ExprKind::And(..));
            let (a_span, a, b) = (a.span, expr(a, d + 1), expr(b, d + 1));
            Box::new(move |it| {
                let va = a(it)?;
                it.short_circuit(is_and, va, a_span, |it| b(it))
            })
        }
        ExprKind::Not(a) => {
            let (a_span, a) = (a.span, expr(a, d + 1));
            Box::new(move |it| {
                let v = a(it)?;
                Ok(Value::bool(!it.truth(&v, a_span)?))
            })
        }
        ExprKind::Call(callee, args) => match &callee.kind {
            ExprKind::Var(name) if args.iter().all(Arg::positional) => {
                call(name.clone(), args, e, d)
            }
            ExprKind::Attr(obj, name) if args.iter().all(Arg::positional) => {
                method_call(obj, name.name.clone(), args, e, d)
            }
            _ => tree(e, d),
        },
        _ => tree(e, d),
    }
}

/// `f(a, b)`: a user function's call binds its arguments as they are
/// evaluated (`Interp::call_in_order`); a builtin, or a call that does not
/// fit the function, is the walker's.
fn call(name: crate::lang::ast::Name, args: &[Arg], e: &Expr, d: usize) -> Eval {
    let span = e.span;
    let args: Vec<Eval> = args.iter().map(|a| expr(&a.value, d + 1)).collect();
    let whole = e.clone();
    Box::new(move |it| match it.user_function(&name, args.len()) {
        Some(f) => it.call_in_order(f, &|it, k| args[k](it), span),
        None => it.eval(&whole, d),
    })
}

/// `obj.f(a, b)`: a method of a plain instance's class (no attribute of
/// its own by that name) binds the instance and the arguments in order,
/// as `call`; anything else (a module, a tensor's method, a keyword) is
/// the walker's, which evaluates `obj` once more only when this gave up
/// before evaluating it.
fn method_call(obj: &Expr, name: String, args: &[Arg], e: &Expr, d: usize) -> Eval {
    let span = e.span;
    let receiver = expr(obj, d + 1);
    let args: Vec<Eval> = args.iter().map(|a| expr(&a.value, d + 1)).collect();
    let whole = e.clone();
    Box::new(move |it| {
        let this = receiver(it)?;
        if let Some(f) = plain_method(&this, &name, args.len()) {
            return it.call_in_order(
                f,
                &|it, k| match k {
                    0 => Ok(this.clone()),
                    k => args[k - 1](it),
                },
                span,
            );
        }
        it.call_on(this, &whole, d)
    })
}

/// The user method `name` of a plain instance's class, when a call with
/// `n` positional arguments binds them one to one after `self`.
fn plain_method(
    this: &Value,
    name: &str,
    n: usize,
) -> Option<std::sync::Arc<super::value::Function>> {
    let Value::Object(o) = this else {
        return None;
    };
    if o.may_shadow() && o.has(name) {
        return None;
    }
    match o.class.find(name)? {
        Value::Function(f) if f.def.params.len() == n + 1 && !f.def.variadic => Some(f),
        _ => None,
    }
}

/// An expression the walker evaluates, at depth `d`.
fn tree(e: &Expr, d: usize) -> Eval {
    let e = e.clone();
    Box::new(move |it| it.eval(&e, d))
}
