//! Python's `globals()`, `exec(source)`, `eval(source)` and
//! `ast.literal_eval(text)`, as
//! nanoGPT's `train.py` and `configurator.py` use them: the settings a
//! script defines at the top are listed with `globals()`, a config file
//! or `--key=value` arguments are run over them with `exec`, each value
//! read with `literal_eval` and set with `globals()[key] = value`
//! (`stmt.rs` makes that assignment the variable's).

use std::sync::Arc;

use super::args::Bound;
use super::globals::Globals;
use super::value::{Key, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error, Source};
use crate::lang::ast::{ExprKind, StmtKind};
use crate::lang::Span;

type Out = Result<Value, Diagnostic>;

/// The name Python gives code that `exec` runs.
pub const EXEC_SOURCE: &str = "<string>";

/// `globals()`: the variables of the module running now, as a dict (what
/// is assigned to the dict afterwards does not reach them, except
/// `globals()[key] = value`, which is the assignment).
pub(super) fn globals(me: &mut Interp, _: &'static str, _: &Bound) -> Out {
    let items = me
        .vars
        .iter()
        .map(|(k, v)| (Key::Str(k.clone()), v.clone()))
        .collect();
    Ok(Value::Dict(PyDict::new(items)))
}

/// `exec(source)`: Python's statements in `source` run here, in the
/// module's variables; `exec(source, g)` runs them in the dict `g`'s
/// names, and what they assign is in `g` afterwards (as Python's).
pub(super) fn exec(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (source, _) = code_arg(b, "exec")?;
    let stmts = crate::lang::parse_as(&source.text, crate::lang::Dialect::Python)
        .map_err(|mut errors| errors.swap_remove(0).in_source(&source))?;
    crate::lang::flow::check(&stmts).map_err(|d| d.in_source(&source))?;
    let scope = globals_arg(b)?;
    let outer = me.source.replace(Arc::clone(&source));
    let ran = me.in_scope(scope.as_ref(), |me| {
        for s in &stmts {
            me.exec(s).map_err(|d| d.in_source(&source))?;
        }
        Ok(())
    });
    me.source = outer;
    ran.map(|()| Value::None)
}

/// The dict `globals=` names, if any.
fn globals_arg(b: &Bound) -> Result<Option<PyDict>, Diagnostic> {
    match b.get("globals") {
        None | Some((Value::None, _)) => Ok(None),
        Some((Value::Dict(d), _)) => Ok(Some(d.clone())),
        Some((v, span)) => Err(Error::wrong_type("globals", "a dict", v.type_name()).at(*span)),
    }
}

impl Interp {
    /// `run` with the module's variables those of the dict `scope` (none:
    /// the module's own); what it assigns goes back into the dict. The
    /// module's table waits with the parked ones meanwhile, so a function
    /// defined there and called from `run` finds its globals.
    fn in_scope<R>(
        &mut self,
        scope: Option<&PyDict>,
        run: impl FnOnce(&mut Interp) -> Result<R, Diagnostic>,
    ) -> Result<R, Diagnostic> {
        let Some(dict) = scope else {
            return run(self);
        };
        let mut table = Globals::default();
        for (k, v) in dict.items().iter() {
            if let Key::Str(name) = k {
                table.insert(name.clone(), v.clone());
            }
        }
        let outer = std::mem::replace(&mut self.vars, table);
        let number = outer.number();
        self.parked.push(outer);
        let r = run(self);
        let k = self.parked.iter().position(|t| t.number() == number);
        let outer = k.map(|k| self.parked.swap_remove(k)).unwrap_or_default();
        let table = std::mem::replace(&mut self.vars, outer);
        for (name, v) in table.iter() {
            dict.set(Key::Str(name.clone()), v.clone());
        }
        r
    }
}

/// The code `exec(source)` or `eval(source)` is given, as a text named
/// `<string>`, and its argument's span; a `locals` dict is refused (the
/// code runs in the module's variables, or in `globals`').
fn code_arg(b: &Bound, f: &str) -> Result<(Arc<Source>, Span), Diagnostic> {
    let (v, span) = b
        .get("source")
        .cloned()
        .ok_or_else(|| Error::value(format!("{f}() needs the code")).at(b.span))?;
    let Value::Str(text) = v else {
        return Err(Error::wrong_type(format!("{f}()'s code"), "a string", v.type_name()).at(span));
    };
    if !matches!(b.get("locals"), None | Some((Value::None, _))) {
        return Err(Error::value(format!(
            "cudash's {f} runs in the module's variables or in `globals`: leave out locals"
        ))
        .at(b.span));
    }
    let text = if f == "eval" {
        text.trim()
    } else {
        text.as_str()
    };
    let source = Arc::new(Source {
        name: EXEC_SOURCE.into(),
        text: Arc::from(text),
    });
    Ok((source, span))
}

/// `eval(source)`: the value of the Python expression in `source`, read in
/// the module's variables.
pub(super) fn eval(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (source, span) = code_arg(b, "eval")?;
    let stmts = crate::lang::parse_as(&source.text, crate::lang::Dialect::Python)
        .map_err(|mut errors| errors.swap_remove(0).in_source(&source))?;
    let expr = match stmts.as_slice() {
        [s] => match &s.kind {
            StmtKind::Expr(e) => e,
            _ => {
                return Err(Error::Module {
                    class: "SyntaxError",
                    message: "invalid syntax: eval() takes an expression, not a statement".into(),
                    help: Some("run statements with exec(source)".into()),
                }
                .at(span))
            }
        },
        _ => {
            return Err(Error::Module {
                class: "SyntaxError",
                message: "invalid syntax: eval() takes one expression".into(),
                help: None,
            }
            .at(span))
        }
    };
    let scope = globals_arg(b)?;
    let outer = me.source.replace(Arc::clone(&source));
    let value = me.in_scope(scope.as_ref(), |me| {
        me.eval(expr, 0).map_err(|d| d.in_source(&source))
    });
    me.source = outer;
    value
}

impl Interp {
    /// `ast.literal_eval(text)`: the value of a literal (numbers, strings,
    /// `True`/`False`/`None`, and lists, tuples, dicts and sets of them);
    /// anything else is Python's `ValueError`, text that does not parse
    /// its `SyntaxError`.
    pub(super) fn literal_eval(&mut self, text: &str, span: Span) -> Out {
        let stmts =
            crate::lang::parse_as(text.trim(), crate::lang::Dialect::Python).map_err(|_| {
                Error::Module {
                    class: "SyntaxError",
                    message: format!("invalid syntax: {text:?}"),
                    help: None,
                }
                .at(span)
            })?;
        let expr = match stmts.as_slice() {
            [s] => match &s.kind {
                StmtKind::Expr(e) => e,
                _ => return Err(malformed(text).at(span)),
            },
            _ => return Err(malformed(text).at(span)),
        };
        if !literal(&expr.kind) {
            return Err(malformed(text).at(span));
        }
        self.eval(expr, 0)
    }
}

/// Whether an expression is a literal `literal_eval` takes.
fn literal(e: &ExprKind) -> bool {
    match e {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None => true,
        ExprKind::Var(n) => matches!(n.name.as_str(), "True" | "False" | "None"),
        ExprKind::Neg(x) => matches!(x.kind, ExprKind::Int(_) | ExprKind::Float(_)),
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            items.iter().all(|x| literal(&x.kind))
        }
        ExprKind::Dict(pairs) => pairs
            .iter()
            .all(|(k, v)| literal(&k.kind) && literal(&v.kind)),
        _ => false,
    }
}

fn malformed(text: &str) -> Error {
    Error::Module {
        class: "ValueError",
        message: format!("malformed node or string: {text:?}"),
        help: Some("literal_eval reads numbers, strings, True/False/None and lists, tuples, dicts and sets of them".into()),
    }
}
