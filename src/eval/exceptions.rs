//! Python's exceptions in a program: `try`/`except`/`else`/`finally`,
//! `raise`, and the exception classes (`ValueError`, `RuntimeError`,
//! `torch.cuda.OutOfMemoryError`) as values. cudash's errors are caught by
//! the class PyTorch would raise: a shape, dtype or device mismatch and an
//! out-of-memory error are `RuntimeError`s, as PyTorch's are. Ctrl-C is
//! never caught (Python's `KeyboardInterrupt` is no `Exception`, and a
//! bare `except:` here does not take it either: the session must stop).

use std::sync::Arc;

use super::flow::Flow;
use super::value::{ExceptionClass, PyException};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Expr, Try};

const fn class(name: &'static str, parent: Option<&'static str>) -> ExceptionClass {
    ExceptionClass { name, parent }
}

/// Every class a program can name or catch, with the one above it.
pub static CLASSES: &[ExceptionClass] = &[
    class("BaseException", None),
    class("KeyboardInterrupt", Some("BaseException")),
    class("SystemExit", Some("BaseException")),
    class("GeneratorExit", Some("BaseException")),
    class("Exception", Some("BaseException")),
    class("ArithmeticError", Some("Exception")),
    class("ZeroDivisionError", Some("ArithmeticError")),
    class("OverflowError", Some("ArithmeticError")),
    class("MemoryError", Some("Exception")),
    class("AssertionError", Some("Exception")),
    class("AttributeError", Some("Exception")),
    class("ImportError", Some("Exception")),
    class("ModuleNotFoundError", Some("ImportError")),
    class("LookupError", Some("Exception")),
    class("IndexError", Some("LookupError")),
    class("KeyError", Some("LookupError")),
    class("NameError", Some("Exception")),
    class("UnboundLocalError", Some("NameError")),
    class("OSError", Some("Exception")),
    class("IOError", Some("OSError")),
    class("FileExistsError", Some("OSError")),
    class("FileNotFoundError", Some("OSError")),
    class("PermissionError", Some("OSError")),
    class("IsADirectoryError", Some("OSError")),
    class("NotADirectoryError", Some("OSError")),
    // io.UnsupportedOperation (Python's is also a ValueError).
    class("UnsupportedOperation", Some("OSError")),
    class("RuntimeError", Some("Exception")),
    class("NotImplementedError", Some("RuntimeError")),
    class("RecursionError", Some("RuntimeError")),
    // cudash's names for PyTorch's RuntimeErrors, and PyTorch's own.
    class("OutOfMemoryError", Some("RuntimeError")),
    class("ShapeError", Some("RuntimeError")),
    class("DTypeError", Some("RuntimeError")),
    class("DeviceError", Some("RuntimeError")),
    class("CudaError", Some("RuntimeError")),
    // torch.distributed's, and torch.multiprocessing's.
    class("DistError", Some("RuntimeError")),
    class("DistBackendError", Some("DistError")),
    class("ProcessRaisedException", Some("Exception")),
    class("StopIteration", Some("Exception")),
    class("SyntaxError", Some("Exception")),
    class("IndentationError", Some("SyntaxError")),
    class("TabError", Some("IndentationError")),
    class("TypeError", Some("Exception")),
    class("ValueError", Some("Exception")),
    class("UnicodeError", Some("ValueError")),
    class("UnicodeDecodeError", Some("UnicodeError")),
    class("UnicodeEncodeError", Some("UnicodeError")),
    // dataclasses.FrozenInstanceError: a frozen dataclass's field set.
    class("FrozenInstanceError", Some("AttributeError")),
    // pickle.UnpicklingError (PyTorch's safe load raises it).
    class("UnpicklingError", Some("Exception")),
    // struct.error: a format or a buffer `struct` cannot use.
    class("struct.error", Some("Exception")),
    // json.JSONDecodeError (json.decoder's).
    class("JSONDecodeError", Some("ValueError")),
    // Warnings' categories (`warnings.warn(msg, FutureWarning)`), which
    // are exceptions too (`filterwarnings("error")` raises them).
    class("Warning", Some("Exception")),
    class("UserWarning", Some("Warning")),
    class("DeprecationWarning", Some("Warning")),
    class("PendingDeprecationWarning", Some("Warning")),
    class("SyntaxWarning", Some("Warning")),
    class("RuntimeWarning", Some("Warning")),
    class("FutureWarning", Some("Warning")),
    class("ImportWarning", Some("Warning")),
    class("UnicodeWarning", Some("Warning")),
    class("BytesWarning", Some("Warning")),
    class("ResourceWarning", Some("Warning")),
];

/// The class named `name` (`ValueError`), if Python or cudash has it.
pub fn named(name: &str) -> Option<&'static ExceptionClass> {
    CLASSES.iter().find(|c| c.name == name)
}

/// Is `class` (by name) `of` or below it?
pub fn is_a(class: &str, of: &ExceptionClass) -> bool {
    let mut at = Some(class);
    while let Some(name) = at {
        if name == of.name {
            return true;
        }
        // A class cudash raises that the table does not name is an `Exception`.
        at = match named(name) {
            Some(c) => c.parent,
            None => Some("Exception"),
        };
    }
    false
}

impl Interp {
    /// `try: ... except ...: ... else: ... finally: ...`, as Python runs it.
    pub(super) fn exec_try(&mut self, t: &Try) -> Result<Flow, Diagnostic> {
        let r = match self.exec_block(&t.body) {
            Ok(Flow::Next) => match &t.orelse {
                Some(b) => self.exec_block(b),
                None => Ok(Flow::Next),
            },
            Ok(flow) => Ok(flow),
            Err(d) if matches!(d.error, Error::Interrupted) => Err(d),
            Err(d) => self.handle(t, d),
        };
        match &t.finally {
            None => r,
            // `finally` runs in any case; its own `return` or `break` wins.
            Some(f) => match self.exec_block(f)? {
                Flow::Next => r,
                flow => Ok(flow),
            },
        }
    }

    /// The first handler whose classes take `d`'s runs, `d` bound to its
    /// name; no handler: `d` goes on up.
    fn handle(&mut self, t: &Try, mut d: Diagnostic) -> Result<Flow, Diagnostic> {
        // Raised in a `try` inside a running handler: while handling that
        // handler's exception.
        if let Some(outer) = self.handling.last() {
            chain_context(&mut d, outer);
        }
        for h in &t.handlers {
            let takes = match &h.classes {
                None => true,
                Some(e) => {
                    let classes = self.eval(e, 0)?;
                    self.catches(&classes, &d.error, e)?
                }
            };
            if !takes {
                continue;
            }
            if let Some(name) = &h.name {
                self.set_var(name, exception_value(&d));
            }
            self.handling.push(d);
            let r = self.exec_block(&h.body);
            let d = self.handling.pop().expect("pushed above");
            // An exception raised while handling `d` has it as its
            // `__context__` (a bare `raise`, or `raise e`, raises `d`
            // itself again).
            return r.map_err(|mut raised| {
                chain_context(&mut raised, &d);
                raised
            });
        }
        Err(d)
    }

    /// The first handler of `t` that takes `d` (a generator's `try`, whose
    /// handler then runs as its body's blocks do).
    pub(super) fn handler_for(
        &mut self,
        t: &Try,
        d: &Diagnostic,
    ) -> Result<Option<usize>, Diagnostic> {
        for (k, h) in t.handlers.iter().enumerate() {
            let takes = match &h.classes {
                None => true,
                Some(e) => {
                    let classes = self.eval(e, 0)?;
                    self.catches(&classes, &d.error, e)?
                }
            };
            if takes {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }

    /// Does `except <classes>` take `raised`?
    fn catches(&mut self, classes: &Value, raised: &Error, e: &Expr) -> Result<bool, Diagnostic> {
        match classes {
            Value::ExcClass(c) => Ok(is_a(raised.class(), c)),
            // A class of the program's: an instance of it (or of one below).
            Value::Class(c) if c.exception().is_some() => Ok(match instance_of(raised) {
                Some(v) => super::value::class_of(&v).is_some_and(|k| k.derives(c)),
                None => false,
            }),
            Value::List(items) => {
                for c in items.iter() {
                    if self.catches(c, raised, e)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            other => Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "catching classes that do not inherit from BaseException is not allowed (this is {})",
                    other.type_name()
                ),
                help: Some("name an exception class: `except ValueError:`, `except (KeyError, IndexError):`".into()),
            }
            .at(e.span)),
        }
    }

    /// An instance of a program's exception class, raised at `span`.
    fn raised(&mut self, v: Value, span: crate::lang::Span) -> Result<Diagnostic, Diagnostic> {
        let class = super::value::class_of(&v).expect("an instance of a class");
        let builtin = class.exception().map_or("Exception", |c| c.name);
        let message = self.formatted(&v, None, "").map_err(|e| e.at(span))?;
        Ok(Error::Raised {
            class: builtin,
            name: class.name.clone(),
            message,
            instance: crate::error::Instance(Arc::new(v)),
        }
        .at(span))
    }

    /// `raise E("message")`, `raise E`, or a bare `raise` in a handler.
    pub(super) fn exec_raise(
        &mut self,
        e: Option<&Expr>,
        cause: Option<&Expr>,
        span: crate::lang::Span,
    ) -> Result<Flow, Diagnostic> {
        let Some(e) = e else {
            return Err(match self.handling.last() {
                Some(d) => d.clone(),
                None => Error::Module {
                    class: "RuntimeError",
                    message: "No active exception to reraise".into(),
                    help: None,
                }
                .at(span),
            });
        };
        let v = self.eval(e, 0)?;
        let mut d = self.raise_value(v, span, e.span)?;
        if let Some(cause) = cause {
            // `raise X from Y`: Y is `__cause__` (the handled exception
            // itself where `e` names it: its traceback then), `from None`
            // none; either way the context is not shown.
            let cause = match self.eval(cause, 0)? {
                Value::None => None,
                v => Some(match self.handled_as(&v) {
                    Some(handled) => handled,
                    None => self.raise_value(v, cause.span, cause.span)?,
                }),
            };
            let chain = d.chain.get_or_insert_with(Default::default);
            chain.cause = cause;
            chain.suppress_context = true;
        }
        Err(d)
    }

    /// The exception a running handler handles that `v` is (the `e` of
    /// its `except ... as e`), as it was raised.
    fn handled_as(&self, v: &Value) -> Option<Diagnostic> {
        self.handling
            .iter()
            .rev()
            .find(|d| same_exception(&exception_value(d), v))
            .cloned()
    }

    /// The error `raise v` raises at `span` (`at`: where `v` was written,
    /// for the TypeError of a value that is no exception).
    pub(super) fn raise_value(
        &mut self,
        v: Value,
        span: crate::lang::Span,
        at: crate::lang::Span,
    ) -> Result<Diagnostic, Diagnostic> {
        let (class, message) = match v {
            Value::ExcClass(c) => (c.name, String::new()),
            // `raise ValueError("bad", 3)`: the exception itself goes with
            // the error, so `except ... as e` has its `args`.
            Value::Exception(ref x) if !matches!(x.args.as_slice(), [Value::Str(s)] if **s == x.message) =>
            {
                return Ok(Error::Raised {
                    class: x.class.name,
                    name: x.class.name.to_string(),
                    message: x.message.clone(),
                    instance: crate::error::Instance(Arc::new(v.clone())),
                }
                .at(span));
            }
            Value::Exception(x) => (x.class.name, x.message.clone()),
            // `raise TrainingError` (the class: an instance made with no
            // arguments) or `raise TrainingError("...")`.
            Value::Class(c) if c.exception().is_some() => {
                let v = self.instantiate(&c, Vec::new(), at)?;
                return self.raised(v, span);
            }
            v @ Value::Object(_)
                if super::value::class_of(&v).is_some_and(|c| c.exception().is_some()) =>
            {
                return self.raised(v, span);
            }
            other => {
                return Err(Error::Module {
                    class: "TypeError",
                    message: format!(
                        "exceptions must derive from BaseException, not {}",
                        other.type_name()
                    ),
                    help: None,
                }
                .at(at))
            }
        };
        Ok(Error::Module {
            class,
            message,
            help: None,
        }
        .at(span))
    }

    /// `ValueError("message")`: an exception to raise.
    pub(super) fn make_exception(
        &mut self,
        class: &'static ExceptionClass,
        args: Vec<super::args::ArgVal>,
    ) -> Result<Value, Diagnostic> {
        let message = match args.as_slice() {
            // Python's `str(KeyError('k'))` is the key's repr: `'k'`.
            [a] if class.name == "KeyError" => super::format::repr_of(&a.value),
            [a] => self
                .formatted(&a.value, None, "")
                .map_err(|e| e.at(a.span))?,
            [] => String::new(),
            // `ValueError('bad', 3)`: the tuple, `('bad', 3)`.
            many => {
                let tuple = Value::List(Arc::new(many.iter().map(|a| a.value.clone()).collect()));
                self.formatted(&tuple, None, "")
                    .map_err(|e| e.at(many[0].span))?
            }
        };
        let args = args.into_iter().map(|a| a.value).collect();
        Ok(Value::Exception(Arc::new(PyException {
            class,
            message,
            args,
            chain: None,
        })))
    }
}

/// The instance a program's exception class made, if `e` is one raised.
fn instance_of(e: &Error) -> Option<Value> {
    match e {
        Error::Raised { instance, .. } => instance.0.downcast_ref::<Value>().cloned(),
        Error::Located(d) => instance_of(&d.error),
        _ => None,
    }
}

/// `raised`'s `__context__` is `handled` (the exception being handled when
/// it was raised), unless it has one or is `handled` itself.
fn chain_context(raised: &mut Diagnostic, handled: &Diagnostic) {
    if raised.chain.as_ref().is_some_and(|c| c.context.is_some())
        || raised == handled
        || same_exception(&exception_value(raised), &exception_value(handled))
    {
        return;
    }
    raised.chain.get_or_insert_with(Default::default).context = Some(handled.clone());
}

/// The key a KeyError's message shows (`'lr'`, `3`): a string or an int
/// as written, anything else its text.
fn key_of(message: &str) -> Value {
    let quoted = |q: char| {
        message.len() >= 2
            && message.starts_with(q)
            && message.ends_with(q)
            && !message[1..message.len() - 1].contains(['\\', q])
    };
    if quoted('\'') || quoted('"') {
        return Value::Str(Arc::new(message[1..message.len() - 1].to_string()));
    }
    match message.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => Value::Str(Arc::new(message.to_string())),
    }
}

/// Whether two exception values are one exception: the same instance of
/// a program's class, or a builtin one's class and message.
fn same_exception(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => Arc::ptr_eq(x, y),
        (Value::Exception(x), Value::Exception(y)) => {
            std::ptr::eq(x.class, y.class) && x.message == y.message
        }
        _ => false,
    }
}

/// `e.__cause__`, `e.__context__`, `e.__suppress_context__` of the
/// exception `d` raised (None, None, False where it has no chain).
pub(super) fn chain_attr(chain: Option<&crate::error::Chain>, name: &str) -> Option<Value> {
    let linked = |d: Option<&Diagnostic>| d.map_or(Value::None, exception_value);
    Some(match name {
        "__cause__" => linked(chain.and_then(|c| c.cause.as_ref())),
        "__context__" => linked(chain.and_then(|c| c.context.as_ref())),
        "__suppress_context__" => Value::bool(chain.is_some_and(|c| c.suppress_context)),
        _ => return None,
    })
}

/// The value `except E as e` binds: the error's class and message (the
/// instance itself, for a program's exception class), with its chain.
pub(super) fn exception_value(d: &Diagnostic) -> Value {
    if let Some(v) = instance_of(&d.error) {
        if let (Value::Object(o), Some(_)) = (&v, &d.chain) {
            for name in ["__cause__", "__context__", "__suppress_context__"] {
                if let Some(a) = chain_attr(d.chain.as_deref(), name) {
                    o.set(name, a);
                }
            }
        }
        return v;
    }
    let name = d.error.class();
    let class = named(name).unwrap_or_else(|| named("Exception").expect("the table has Exception"));
    let message = d.error.to_string();
    let args = match (message.is_empty(), name) {
        (true, _) => Vec::new(),
        // A missing key's KeyError: its message is the key's repr, its
        // argument the key (`e.args == ('lr',)`, `repr(e)` `KeyError('lr')`).
        (false, "KeyError") => vec![key_of(&message)],
        (false, _) => vec![Value::Str(Arc::new(message.clone()))],
    };
    Value::Exception(Arc::new(PyException {
        class,
        message,
        args,
        chain: d.chain.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_sit_where_python_and_pytorch_put_them() {
        let c = |n| named(n).unwrap();
        assert!(is_a("OutOfMemoryError", c("RuntimeError")));
        assert!(is_a("ShapeError", c("Exception")));
        assert!(is_a("KeyError", c("LookupError")));
        assert!(is_a("TabError", c("SyntaxError")));
        assert!(!is_a("ValueError", c("RuntimeError")));
        assert!(!is_a("KeyboardInterrupt", c("Exception")));
        assert!(is_a("SomethingNew", c("Exception")));
        for k in CLASSES {
            if let Some(p) = k.parent {
                assert!(named(p).is_some(), "{} has no parent {p}", k.name);
            }
        }
    }
}
