//! Python's `copy` module as training scripts use it: `best_wts =
//! copy.deepcopy(model.state_dict())`, `ema = copy.deepcopy(model)`,
//! `copy.copy(xs)`. A deep copy's tensors are new memory on the same
//! device (a leaf keeps `requires_grad`, a parameter stays a parameter);
//! a tensor reached twice (tied weights, a view and its base of the same
//! elements) is copied once, as Python's memo does. As PyTorch, a tensor
//! in a graph (not a leaf) cannot be deep-copied.

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::autograd::meta;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// The copies made so far, by the elements they copy (storage, offset,
/// shape, strides).
type Memo = Vec<((usize, usize, Vec<usize>, Vec<isize>), Arc<Tensor>)>;

impl Interp {
    /// `copy.deepcopy(x)` and `copy.copy(x)`.
    pub(super) fn call_copy(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let [a] = args.as_slice() else {
            return Err(Error::value(format!("`{name}` takes one value")).at(span));
        };
        // A class of the program's that defines `__copy__` copies itself.
        if let (Value::Object(o), "copy.copy") = (&a.value, name) {
            if o.class.find("__copy__").is_some() {
                let method = crate::lang::ast::Name::new("__copy__".into(), span);
                return self.call_method(a.value.clone(), &method, Vec::new(), span);
            }
        }
        match name {
            // A shallow copy: a new list, dict, set or instance holding the
            // same items (an object's attributes the same values).
            "copy.copy" => Ok(match &a.value {
                Value::MutList(xs) => Value::list(lock(xs).to_vec()),
                Value::Dict(d) => Value::Dict(d.copy_with((*d.items()).clone())),
                Value::Set(d) => Value::Set(d.copy_with((*d.items()).clone())),
                // An Enum's member is itself (Python's `Enum.__copy__`).
                Value::Object(o) if !o.class.tuple && !o.is_enum_member() => {
                    let copy = o.sibling();
                    *lock(&copy.attrs) = lock(&o.attrs).clone();
                    Value::Object(Arc::new(copy))
                }
                other => other.clone(),
            }),
            _ => self
                .deep_copy(&a.value, &mut Vec::new())
                .map_err(|e| e.at(a.span)),
        }
    }

    /// `copy.deepcopy(v)` of one value.
    pub(crate) fn deep_copy_value(&mut self, v: &Value) -> Result<Value, Error> {
        self.deep_copy(v, &mut Vec::new())
    }

    fn deep_copy(&mut self, v: &Value, memo: &mut Memo) -> Result<Value, Error> {
        Ok(match v {
            Value::Tensor(t) => Value::Tensor(self.copy_tensor(t, false, memo)?),
            Value::MutList(xs) => {
                let items = lock(xs).to_vec();
                let mut copied = Vec::with_capacity(items.len());
                for x in &items {
                    copied.push(self.deep_copy(x, memo)?);
                }
                Value::list(copied)
            }
            Value::List(xs) => {
                let mut copied = Vec::with_capacity(xs.len());
                for x in xs.iter() {
                    copied.push(self.deep_copy(x, memo)?);
                }
                Value::List(Arc::new(copied))
            }
            Value::Dict(pairs) => {
                let mut copied = Vec::with_capacity(pairs.len());
                for (k, x) in pairs.items().iter() {
                    copied.push((k.clone(), self.deep_copy(x, memo)?));
                }
                Value::Dict(pairs.copy_with(copied.into_iter().collect()))
            }
            // The module's tree copied (each module once), then each of its
            // tensors given memory of its own.
            Value::Module(_) => {
                let copy = super::data::own_copy(v);
                if let Value::Module(m) = &copy {
                    crate::nn::module::apply_tensors(m, &mut |t, param| {
                        self.copy_tensor(t, param, memo)
                    })?;
                    if let Some(o) = super::value::object_of(m) {
                        let attrs = lock(&o.attrs).clone();
                        let mut copied = Vec::with_capacity(attrs.len());
                        for (k, x) in attrs {
                            let x = match x {
                                Value::Module(_) => x,
                                x => self.deep_copy(&x, memo)?,
                            };
                            copied.push((k, x));
                        }
                        *lock(&o.attrs) = copied;
                    }
                }
                copy
            }
            // An Enum's member is itself (Python's `Enum.__deepcopy__`).
            Value::Object(o) if o.is_enum_member() => v.clone(),
            Value::Object(_) => {
                return Err(Error::value_help(
                    "cudash's deepcopy copies tensors, lists, dicts and modules, not other objects",
                    "copy what the object holds, or make a new one",
                ))
            }
            // Python cannot copy a generator's suspended run either.
            Value::Iterator(i) if super::generator::is_generator(i) => {
                return Err(Error::Module {
                    class: "TypeError",
                    message: "cannot pickle 'generator' object".into(),
                    help: None,
                })
            }
            other => other.clone(),
        })
    }

    /// New memory holding `t`'s elements on its device, a leaf as `t` is
    /// (a parameter when it is one, or a module holds it as one).
    fn copy_tensor(
        &mut self,
        t: &Arc<Tensor>,
        param: bool,
        memo: &mut Memo,
    ) -> Result<Arc<Tensor>, Error> {
        if meta::requires_grad(t) && !meta::is_leaf(t) {
            return Err(Error::Autograd {
                message: "Only Tensors created explicitly by the user (graph leaves) support the \
                          deepcopy protocol at the moment."
                    .into(),
                help: "deep-copy a leaf, or `x.detach()` first".into(),
            });
        }
        let key = (
            t.storage_id(),
            t.offset(),
            t.shape().to_vec(),
            t.strides().to_vec(),
        );
        if let Some((_, copy)) = memo.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(copy));
        }
        let data = self.rt.copy(t)?;
        let copy = match param || meta::is_parameter(t) {
            true => Arc::new(meta::parameter(&data, meta::requires_grad(t))),
            false => {
                if meta::requires_grad(t) {
                    if let Some(m) = meta::leaf_meta(&data) {
                        meta::set_requires_grad(m, true);
                    }
                }
                data
            }
        };
        memo.push((key, Arc::clone(&copy)));
        Ok(copy)
    }
}
