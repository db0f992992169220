//! Binding call arguments to the parameters named in a builtin's signature,
//! with typed accessors that report errors at the argument's span.

use std::sync::Arc;

use super::docs::{params, Doc, Param};
use super::value::Value;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::runtime::event::{Event, StreamRef};
use crate::runtime::op::factory::Fill;
use crate::runtime::{DType, Device, Tensor};

/// An evaluated argument.
#[derive(Clone)]
pub struct ArgVal {
    pub keyword: Option<Name>,
    pub value: Value,
    pub span: Span,
}

impl ArgVal {
    /// A positional argument (`f(value)`), written at `span`.
    pub fn positional(value: Value, span: Span) -> ArgVal {
        ArgVal {
            keyword: None,
            value,
            span,
        }
    }
}

pub struct Bound {
    pub func: String,
    slots: Vec<(Param, Option<(Value, Span)>)>,
    /// Values for the variadic parameter (`*size`).
    pub rest: Vec<(Value, Span)>,
    /// Keywords for a `**kwargs` parameter, in order.
    pub kwargs: Vec<(String, (Value, Span))>,
    pub span: Span,
}

pub fn bind(doc: &'static Doc, args: Vec<ArgVal>, span: Span) -> Result<Bound, Diagnostic> {
    let all = params(doc.signature);
    let takes_keywords = all.iter().any(|p| p.keywords);
    let ps: Vec<_> = all.into_iter().filter(|p| !p.keywords).collect();
    let mut kwargs = Vec::new();
    let func = if doc.signature.starts_with("x.") {
        format!(".{}", doc.name)
    } else {
        doc.name.to_string()
    };
    let mut slots: Vec<(Param, Option<(Value, Span)>)> =
        ps.iter().map(|p| (p.clone(), None)).collect();
    let mut rest = Vec::new();
    let mut next = 0usize;
    let mut seen_keyword = false;
    let variadic_at = ps.iter().position(|p| p.variadic);
    for a in args {
        match a.keyword {
            None => {
                if seen_keyword {
                    return Err(Error::value(
                        "a positional argument cannot follow a keyword argument",
                    )
                    .at(a.span));
                }
                if Some(next) == variadic_at {
                    rest.push((a.value, a.span));
                    continue;
                }
                if next >= slots.len() {
                    let max = variadic_at.unwrap_or(slots.len());
                    return Err(Error::Arity {
                        func: func.clone(),
                        expected: plural(max, "positional argument"),
                        found: "more were".into(),
                        signature: doc.signature.into(),
                    }
                    .at(a.span));
                }
                slots[next].1 = Some((a.value, a.span));
                next += 1;
            }
            Some(k) => {
                seen_keyword = true;
                // `torch.empty(size=(2, 3))`: the variadic sizes by name.
                let variadic_named = variadic_at.is_some_and(|i| ps[i].name == k.name);
                if variadic_named && rest.is_empty() {
                    rest.push((a.value, a.span));
                    continue;
                }
                // NumPy's names PyTorch's argument parser takes for its
                // own (`x.sum(axis=1)`, `keepdims=True`).
                let alias = match k.name.as_str() {
                    "axis" => "dim",
                    "keepdims" => "keepdim",
                    other => other,
                };
                let name = match slots.iter().any(|(p, _)| p.name == k.name) {
                    true => k.name.as_str(),
                    false => alias,
                };
                let slot = slots
                    .iter_mut()
                    .find(|(p, _)| p.name == name && !p.variadic);
                if slot.is_none() && takes_keywords {
                    if kwargs.iter().any(|(n, _)| *n == k.name) {
                        return Err(
                            Error::value(format!("`{}` was given twice", k.name)).at(k.span)
                        );
                    }
                    kwargs.push((k.name.clone(), (a.value, a.span)));
                    continue;
                }
                let Some(slot) = slot else {
                    let names: Vec<&str> =
                        ps.iter().filter(|p| !p.variadic).map(|p| p.name).collect();
                    return Err(Error::UnknownKeyword {
                        func: func.clone(),
                        name: k.name.clone(),
                        suggestion: crate::eval::suggest::closest(&k.name, names.iter().copied()),
                        signature: doc.signature.into(),
                    }
                    .at(k.span));
                };
                if slot.1.is_some() {
                    return Err(Error::value(format!("`{}` was given twice", k.name)).at(k.span));
                }
                slot.1 = Some((a.value, a.span));
            }
        }
    }
    if let Some((p, _)) = slots.iter().find(|(p, v)| p.required && v.is_none()) {
        return Err(Error::Arity {
            func: func.clone(),
            expected: format!("an argument `{}`", p.name),
            found: "none was".into(),
            signature: doc.signature.into(),
        }
        .at(span));
    }
    Ok(Bound {
        func,
        slots,
        rest,
        kwargs,
        span,
    })
}

pub(crate) fn plural(n: usize, what: &str) -> String {
    match n {
        0 => format!("no {what}s"),
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

impl Bound {
    /// An op's new tensor as the call's value, or its error at the call's span.
    pub fn result(&self, r: Result<Arc<Tensor>, Error>) -> Result<Value, Diagnostic> {
        r.map(Value::Tensor).map_err(|e| e.at(self.span))
    }

    /// Every value passed (named slots, then the variadic ones).
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        let named = self
            .slots
            .iter()
            .filter_map(|(_, v)| v.as_ref().map(|(v, _)| v));
        named.chain(self.rest.iter().map(|(v, _)| v))
    }

    pub fn get(&self, name: &str) -> Option<&(Value, Span)> {
        self.slots
            .iter()
            .find(|(p, _)| p.name == name)
            .and_then(|(_, v)| v.as_ref())
    }

    /// Where argument `name` was written, or the call's span when it was
    /// left out: what an error about that argument points at.
    pub fn span_of(&self, name: &str) -> Span {
        self.get(name).map_or(self.span, |(_, s)| *s)
    }

    /// Every argument given, by its parameter's name, in the signature's
    /// order.
    pub fn given_all(&self) -> Vec<(&'static str, &(Value, Span))> {
        self.slots
            .iter()
            .filter_map(|(p, v)| v.as_ref().map(|v| (p.name, v)))
            .collect()
    }

    /// The value of `name` unless it was left out or passed as `none`.
    pub fn given(&self, name: &str) -> Option<&(Value, Span)> {
        self.get(name).filter(|(v, _)| !matches!(v, Value::None))
    }

    fn wrong(&self, name: &str, expected: &str, v: &Value, span: Span) -> Diagnostic {
        Error::wrong_type(
            format!("argument `{name}` of {}", self.func),
            expected,
            v.type_name(),
        )
        .at(span)
    }

    pub fn tensor(&self, name: &str) -> Result<Arc<Tensor>, Diagnostic> {
        let (v, span) = self.get(name).ok_or_else(|| self.missing(name))?;
        to_tensor(v).ok_or_else(|| self.wrong(name, "a tensor", v, *span))
    }

    /// A tensor argument that may be left out or none (`weight=None`).
    pub fn optional_tensor(&self, name: &str) -> Result<Option<Arc<Tensor>>, Diagnostic> {
        match self.given(name) {
            None | Some((Value::None, _)) => Ok(None),
            Some(_) => self.tensor(name).map(Some),
        }
    }

    /// A size argument (`in_features`): an int of at least 0.
    pub fn size(&self, name: &str) -> Result<usize, Diagnostic> {
        let n = self
            .int(name)?
            .ok_or_else(|| Error::value(format!("missing `{name}`")).at(self.span))?;
        usize::try_from(n).map_err(|_| {
            Error::value(format!("{name} must be at least 0, not {n}")).at(self.span_of(name))
        })
    }

    /// An int or a pair of ints (`3`, `(3, 5)`): PyTorch's `_pair`.
    pub fn pair(&self, name: &str, default: Option<usize>) -> Result<(usize, usize), Diagnostic> {
        let Some((v, span)) = self.given(name) else {
            return match default {
                Some(d) => Ok((d, d)),
                None => Err(Error::value(format!("missing `{name}`")).at(self.span)),
            };
        };
        let bad = || Error::wrong_type(name, "an int or a pair of ints", v.type_name()).at(*span);
        let ints: Vec<usize> = flatten(v, *span)?
            .iter()
            .map(|(x, _)| match x {
                Value::Int(i) if *i >= 0 => Ok(*i as usize),
                _ => Err(bad()),
            })
            .collect::<Result<_, _>>()?;
        match ints.as_slice() {
            [a] => Ok((*a, *a)),
            [a, c] => Ok((*a, *c)),
            _ => Err(bad()),
        }
    }

    /// A required stream argument, with the span it was written at.
    pub fn stream(&self, name: &str) -> Result<(StreamRef, Span), Diagnostic> {
        match self.get(name).ok_or_else(|| self.missing(name))? {
            (Value::Stream(s), span) => Ok(((**s).clone(), *span)),
            (v, span) => Err(self.wrong(name, "a stream", v, *span)),
        }
    }

    /// A required event argument.
    pub fn event(&self, name: &str) -> Result<Arc<Event>, Diagnostic> {
        match self.get(name).ok_or_else(|| self.missing(name))? {
            (Value::Event(e), _) => Ok(Arc::clone(e)),
            (v, span) => Err(self.wrong(name, "an event", v, *span)),
        }
    }

    /// An int, or a one-element integer tensor on the host (what Python's
    /// `__index__` takes from a PyTorch tensor: `for w in [0, 4]` gives
    /// 0-d tensors, usable as `num_workers=w`). A device tensor is refused:
    /// reading it is a host sync, which `.item()` makes visible.
    pub fn int(&self, name: &str) -> Result<Option<i64>, Diagnostic> {
        match self.given(name) {
            None => Ok(None),
            Some((Value::Int(i), _)) => Ok(Some(*i)),
            Some((Value::Bool(b), _)) => Ok(Some(b.get() as i64)),
            Some((Value::Tensor(t), span))
                if t.numel() == 1 && (t.dtype().is_int() || t.dtype() == DType::Bool) =>
            {
                match t.device() {
                    Device::Cpu => Ok(Some(t.to_vec::<i64>()[0])),
                    d => Err(Error::value_help(
                        format!("argument `{name}` of {} is a tensor on {d}", self.func),
                        "reading a device tensor's value is a host sync: write `n.item()` to make it (PyTorch makes it for you)",
                    )
                    .at(*span)),
                }
            }
            Some((v, span)) => Err(self.wrong(name, "an int", v, *span)),
        }
    }

    /// A string argument (None: not given).
    /// A str argument (a `pathlib` path gives its text, as Python's
    /// functions of paths take one).
    pub fn str(&self, name: &str) -> Result<Option<String>, Diagnostic> {
        match self.given(name) {
            None => Ok(None),
            Some((Value::Str(s), _)) => Ok(Some(s.to_string())),
            Some((v, span)) => match super::value::fspath(v) {
                Some(p) => Ok(Some(p)),
                None => Err(self.wrong(name, "a string", v, *span)),
            },
        }
    }

    pub fn float(&self, name: &str) -> Result<Option<f64>, Diagnostic> {
        match self.given(name) {
            None => Ok(None),
            Some((v, span)) => match v.as_number() {
                Some(x) => Ok(Some(x)),
                None => match v {
                    Value::Tensor(t) if t.device().is_meta() => Err(no_item(*span)),
                    Value::Tensor(t) if t.numel() == 1 => Ok(Some(t.to_vec::<f64>()[0])),
                    _ => Err(self.wrong(name, "a number", v, *span)),
                },
            },
        }
    }

    /// A number to fill with, as written (`full`, `fill_`, `new_full`): an
    /// int stays exact, and a one-element tensor gives its element.
    pub fn fill(&self, name: &str) -> Result<Option<Fill>, Diagnostic> {
        match self.given(name) {
            None => Ok(None),
            Some((Value::Int(i), _)) => Ok(Some(Fill::Int(*i))),
            Some((Value::Float(x), _)) => Ok(Some(Fill::Float(x.get()))),
            Some((Value::Bool(b), _)) => Ok(Some(Fill::Bool(b.get()))),
            Some((Value::Tensor(t), span)) if t.device().is_meta() => Err(no_item(*span)),
            Some((Value::Tensor(t), _)) if t.numel() == 1 => Ok(Some(match t.dtype() {
                DType::Bool => Fill::Bool(t.to_vec::<bool>()[0]),
                d if d.is_int() => Fill::Int(t.to_vec::<i64>()[0]),
                _ => Fill::Float(t.to_vec::<f64>()[0]),
            })),
            Some((v, span)) => Err(self.wrong(name, "a number", v, *span)),
        }
    }

    pub fn bool(&self, name: &str, default: bool) -> Result<bool, Diagnostic> {
        match self.given(name) {
            None => Ok(default),
            Some((Value::Bool(b), _)) => Ok(b.get()),
            Some((v, span)) => Err(self.wrong(name, "true or false", v, *span)),
        }
    }

    pub fn dtype(&self, name: &str) -> Result<Option<DType>, Diagnostic> {
        match self.given(name) {
            None => Ok(None),
            Some((Value::DType(d), _)) => Ok(Some(d.get())),
            Some((v, span)) => {
                Err(self.wrong(name, "a dtype (bool i32 i64 f16 bf16 f32 f64)", v, *span))
            }
        }
    }

    /// A `memory_format=` argument (`torch.channels_last`, ...).
    pub fn memory_format(
        &self,
        name: &str,
    ) -> Result<Option<crate::runtime::memory_format::MemoryFormat>, Diagnostic> {
        use crate::runtime::memory_format::MemoryFormat;
        match self.given(name) {
            None => Ok(None),
            Some((Value::Object(o), span)) if o.class.name == "memory_format" => {
                let name = match o.get("_name") {
                    Some(Value::Str(s)) => MemoryFormat::from_name(&s),
                    _ => None,
                };
                name.map(Some)
                    .ok_or_else(|| Error::value("an unknown memory format").at(*span))
            }
            Some((v, span)) => Err(self.wrong(
                name,
                "a memory format (torch.contiguous_format, torch.channels_last, \
                 torch.channels_last_3d, torch.preserve_format)",
                v,
                *span,
            )),
        }
    }

    pub fn device(&self, name: &str) -> Result<Option<Device>, Diagnostic> {
        match self.given(name) {
            None => Ok(None),
            Some((Value::Device(d), _)) => Ok(Some(d.get())),
            // PyTorch reads an index as a CUDA device (`device=rank`).
            Some((Value::Int(i), span)) => match u32::try_from(*i) {
                Ok(i) => Ok(Some(Device::Cuda(i))),
                Err(_) => Err(Error::value("Device index must not be negative").at(*span)),
            },
            Some((v, span)) => Err(self.wrong(name, "a device (cpu, cuda, cuda:N)", v, *span)),
        }
    }

    /// A CUDA device given as an index (`1`) or as `cuda:1` (None: not given).
    pub fn cuda_index(&self, name: &str) -> Result<Option<u32>, Diagnostic> {
        match self.given(name) {
            None => Ok(None),
            Some((Value::Int(i), _)) => Ok(Some(u32::try_from(*i).unwrap_or(u32::MAX))),
            Some((Value::Device(d), span)) => match d.get() {
                Device::Cuda(i) => Ok(Some(i)),
                other @ (Device::Cpu | Device::Meta) => Err(self.wrong(
                    name,
                    "a CUDA device (an index or cuda:N)",
                    &Value::device(other),
                    *span,
                )),
            },
            Some((v, span)) => {
                Err(self.wrong(name, "a CUDA device (an index or cuda:N)", v, *span))
            }
        }
    }

    pub fn list(&self, name: &str) -> Result<Vec<(Value, Span)>, Diagnostic> {
        let (v, span) = self.get(name).ok_or_else(|| self.missing(name))?;
        match v {
            Value::List(items) => Ok(items.iter().map(|v| (v.clone(), *span)).collect()),
            Value::Tensor(t) if t.ndim() > 0 => Ok((0..t.shape()[0])
                .map(|i| {
                    let row = crate::runtime::op::index::select(
                        t,
                        &[crate::runtime::op::index::Index::At(i as i64)],
                    );
                    (row.map(Value::tensor).unwrap_or(Value::None), *span)
                })
                .collect()),
            _ => Err(self.wrong(name, "a list", v, *span)),
        }
    }

    /// Sizes from `*size` (`zeros(2, 3)`) or from one list (`zeros([2, 3])`, `zeros(x.shape)`).
    pub fn sizes_from_rest(&self) -> Result<Vec<usize>, Diagnostic> {
        match self.rest.as_slice() {
            [(v @ (Value::List(_) | Value::Tensor(_)), span)] => sizes(&flatten(v, *span)?),
            rest => sizes(rest),
        }
    }

    /// Sizes from a single parameter holding an int or a list of ints.
    pub fn sizes(&self, name: &str) -> Result<Vec<usize>, Diagnostic> {
        let (v, span) = self.get(name).ok_or_else(|| self.missing(name))?;
        sizes(&flatten(v, *span)?)
    }

    fn missing(&self, name: &str) -> Diagnostic {
        Error::value(format!("{}: missing argument `{name}`", self.func)).at(self.span)
    }
}

/// The items of a list, or of a 1-D tensor literal (`[2, 3]` is a tensor), as values.
pub fn flatten(v: &Value, span: Span) -> Result<Vec<(Value, Span)>, Diagnostic> {
    match v {
        Value::List(items) => Ok(items.iter().map(|v| (v.clone(), span)).collect()),
        Value::Tensor(t) if t.device().is_meta() => Err(no_item(span)),
        Value::Tensor(t) if t.ndim() <= 1 && t.dtype().is_int() => Ok(t
            .to_vec::<i64>()
            .into_iter()
            .map(|i| (Value::Int(i), span))
            .collect()),
        Value::Tensor(t) if t.ndim() <= 1 && t.dtype().is_float() => Ok(t
            .to_vec::<f64>()
            .into_iter()
            .map(|x| (Value::float(x), span))
            .collect()),
        other => Ok(vec![(other.clone(), span)]),
    }
}

pub fn sizes(items: &[(Value, Span)]) -> Result<Vec<usize>, Diagnostic> {
    items
        .iter()
        .map(|(v, span)| match v {
            Value::Int(i) if *i >= 0 => Ok(*i as usize),
            Value::Int(i) => Err(Error::value_help(
                format!("sizes cannot be negative, but got {i}"),
                "sizes count elements along each dimension: 0 or more",
            )
            .at(*span)),
            // A 0-d integer tensor on the cpu is an int (PyTorch's
            // `__index__`): `for n in [1024, 2048]: randn(n, 256)`.
            Value::Tensor(t)
                if t.ndim() == 0 && t.dtype().is_int() && t.device() == Device::Cpu =>
            {
                sizes(&[(Value::Int(t.to_vec::<i64>()[0]), *span)]).map(|s| s[0])
            }
            Value::Float(x) => Err(Error::value_help(
                format!("sizes must be whole numbers (ints), not the float {x:?}"),
                "write sizes without a decimal point, e.g. `zeros(1000)`",
            )
            .at(*span)),
            other => Err(Error::wrong_type("a size", "an int", other.type_name()).at(*span)),
        })
        .collect()
}

/// A tensor from a tensor value or a plain number (`exp(1.)`).
/// An operand of an elementwise op and whether it is weak: a number written
/// in the program adapts to a tensor's dtype (a float keeps its f64 digits
/// until then), a tensor counts with its own dtype.
pub fn operand_value(v: &Value) -> Option<(Arc<Tensor>, bool)> {
    match v {
        Value::Float(x) => Some((Arc::new(Tensor::scalar(x.get())), true)),
        Value::Int(_) | Value::Bool(_) => to_tensor(v).map(|t| (t, true)),
        _ => to_tensor(v).map(|t| (t, false)),
    }
}

pub fn to_tensor(v: &Value) -> Option<Arc<Tensor>> {
    match v {
        Value::Tensor(t) => Some(Arc::clone(t)),
        Value::Int(i) => Some(Arc::new(Tensor::scalar(*i))),
        Value::Float(x) => Some(Arc::new(Tensor::scalar(x.get() as f32))),
        Value::Bool(b) => Some(Arc::new(Tensor::scalar(b.get()))),
        _ => None,
    }
}

/// A meta tensor given where a number is read: PyTorch's `item()` error.
pub(crate) fn no_item(span: Span) -> Diagnostic {
    Error::runtime("Tensor.item() cannot be called on meta tensors").at(span)
}
