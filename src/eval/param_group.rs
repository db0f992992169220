//! `opt.param_groups[g]`: a parameter group read and set as the dict
//! PyTorch's is (`g["lr"]`, `g.keys()`, `g["weight_decay"] = 0.0`), and
//! a group's settings as values and back.

use std::sync::{Arc, Mutex};

use super::Value;
use crate::autograd::optim::{Optimizer, Setting};
use crate::error::Error;
use crate::runtime::lock::lock;

/// Group `g` as a dict, `"params"` first then its settings, as PyTorch's
/// `param_groups[g]` (what `g.keys()`, `g.items()` and `g.get(k)` read).
pub(crate) fn group_dict(o: &Arc<Mutex<Optimizer>>, g: usize) -> super::value::PyDict {
    use super::value::Key;
    let params = group_get(o, g, "params").unwrap_or(Value::None);
    let mut pairs: Vec<(Key, Value)> = vec![(Key::from("params"), params)];
    let (settings, initial_lr) = {
        let o = lock(o);
        (o.groups[g].settings(), o.initial_lrs.get(g).copied())
    };
    pairs.extend(
        settings
            .into_iter()
            .map(|(k, v)| (Key::from(k), setting_value(v))),
    );
    // What a scheduler adds to the group, as PyTorch's `setdefault`.
    if let Some(lr) = initial_lr {
        pairs.push((Key::from("initial_lr"), Value::float(lr)));
    }
    pairs.extend(
        extras(o, g)
            .into_iter()
            .map(|(k, v)| (Key::from(k.as_str()), v)),
    );
    super::value::PyDict::new(pairs)
}

/// A group's setting as a value (`g["betas"]` a list of two).
pub(crate) fn setting_value(v: Setting) -> Value {
    match v {
        Setting::Number(x) => Value::float(x),
        Setting::Whole(n) => Value::Int(n),
        Setting::Bool(b) => Value::bool(b),
        Setting::Pair((a, b)) => Value::List(Arc::new(vec![Value::float(a), Value::float(b)])),
        Setting::Maybe(None) => Value::None,
        Setting::Maybe(Some(b)) => Value::bool(b),
    }
}

/// Group `g`'s keys of the program's and their values, in order.
pub(crate) fn extras(o: &Arc<Mutex<Optimizer>>, g: usize) -> Vec<(String, Value)> {
    lock(o)
        .extras_of(g)
        .iter()
        .map(|(k, v)| (k.clone(), held(v)))
        .collect()
}

/// A value of the program's as a group keeps it.
pub(crate) fn hold(v: &Value) -> crate::autograd::hook_list::HookFn {
    Arc::new(v.clone())
}

/// A value a group keeps, back as the program's.
pub(crate) fn held(h: &crate::autograd::hook_list::HookFn) -> Value {
    h.downcast_ref::<Value>().cloned().unwrap_or(Value::None)
}

/// Whether `key` is one of the optimizer's own settings for group `g`
/// (any other key is the program's, kept as given).
pub(crate) fn is_setting(o: &Arc<Mutex<Optimizer>>, g: usize, key: &str) -> bool {
    key == "lr" || key == "initial_lr" || lock(o).groups[g].keys().contains(&key)
}

/// `group["lr"] = v`: the learning rate (the setting schedules change).
pub(crate) fn group_set(
    o: &Arc<Mutex<Optimizer>>,
    g: usize,
    key: &str,
    v: &Value,
) -> Result<(), Error> {
    match (key, v.as_number()) {
        ("lr", Some(x)) if !matches!(v, Value::Bool(_)) => {
            lock(o).groups[g].set_lr(x);
            Ok(())
        }
        ("lr", _) => Err(Error::wrong_type(
            "the learning rate",
            "a number",
            v.type_name(),
        )),
        // A scheduler of the program's (`group.setdefault("initial_lr",
        // group["lr"])`): every group gets its own as PyTorch's base
        // scheduler gives them, this one `x`.
        ("initial_lr", Some(x)) if !matches!(v, Value::Bool(_)) => {
            let mut o = lock(o);
            o.initial_lrs();
            o.initial_lrs[g] = x;
            Ok(())
        }
        // A key of the program's (`g["name"] = "enc"`): kept as given.
        _ if !is_setting(o, g, key) => {
            lock(o).set_extra(g, key, hold(v));
            Ok(())
        }
        // Any other of the group's settings (`g["weight_decay"] = 0.0`),
        // read by the next `step()`.
        _ => {
            let setting = setting_of(v).ok_or_else(|| {
                Error::wrong_type(format!("the group's {key:?}"), "a number", v.type_name())
            })?;
            let mut o = lock(o);
            let mut kind = o.groups[g].clone();
            kind.set(key, setting).map_err(Error::value)?;
            if kind.state_names() != o.groups[g].state_names() && o.steps_taken > 0 {
                return Err(Error::value_help(
                    format!("cudash does not change {key:?} of a group after its first step"),
                    "set it when making the optimizer",
                ));
            }
            o.groups[g] = kind;
            Ok(())
        }
    }
}

/// A group's setting from a value: a number, a bool, or a pair (`betas`).
pub(crate) fn setting_of(v: &Value) -> Option<crate::autograd::optim::Setting> {
    use crate::autograd::optim::Setting;
    match v {
        Value::Bool(b) => Some(Setting::Bool(b.get())),
        // `foreach`, `fused`: PyTorch's choice.
        Value::None => Some(Setting::Maybe(None)),
        Value::Int(n) => Some(Setting::Whole(*n)),
        Value::Float(_) => v.as_number().map(Setting::Number),
        v => match v.elements() {
            Some(Ok(items)) => match items.as_slice() {
                [a, b] => Some(Setting::Pair((a.as_number()?, b.as_number()?))),
                _ => None,
            },
            _ => None,
        },
    }
}

/// `group[key]` of group `g`: a setting, or `"params"`.
pub(crate) fn group_get(o: &Arc<Mutex<Optimizer>>, g: usize, key: &str) -> Result<Value, Error> {
    let o = lock(o);
    if key == "params" {
        return Ok(Value::list(
            o.params
                .iter()
                .zip(&o.group_of)
                .filter(|(_, &h)| h == g)
                .map(|(p, _)| Value::Tensor(Arc::clone(p)))
                .collect(),
        ));
    }
    if let (Some(lr), "initial_lr") = (o.initial_lrs.get(g), key) {
        return Ok(Value::float(*lr));
    }
    if let Some((_, v)) = o.extras_of(g).iter().find(|(k, _)| k == key) {
        return Ok(held(v));
    }
    match o.groups[g].settings().into_iter().find(|(k, _)| *k == key) {
        Some((_, v)) => Ok(setting_value(v)),
        None => Err(Error::Module {
            class: "KeyError",
            message: format!("'{key}'"),
            help: Some(
                "a group holds \"params\" and the optimizer's settings (`print(g)` lists them)"
                    .into(),
            ),
        }),
    }
}
