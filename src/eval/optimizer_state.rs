//! An optimizer's `state_dict()` and `load_state_dict(d)`, in PyTorch's
//! layout: `{"state": {0: {"step": tensor(5.), "exp_avg": ...}, ...},
//! "param_groups": [{"lr": 0.001, ..., "params": [0, 1]}]}`, parameters by
//! number, so a checkpoint moves between cudash and PyTorch.

use crate::eval::value::PyDict;
use std::sync::{Arc, Mutex};

use super::args::Bound;
use super::param_group::{setting_of, setting_value};
use super::value::Key;
use super::{Interp, Value};
use crate::autograd::optim::Optimizer;
use crate::error::{Diagnostic, Error};
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// Group keys of PyTorch's that this kind of optimizer has not (another
/// kind's switches), accepted on load when they hold PyTorch's default,
/// and the keys schedulers add.
const PYTORCH_DEFAULTS: &[(&str, Option<bool>)] = &[
    ("amsgrad", Some(false)),
    ("maximize", Some(false)),
    ("foreach", None),
    ("capturable", Some(false)),
    ("differentiable", Some(false)),
    ("fused", None),
    ("decoupled_weight_decay", None),
    ("max_lr", None),
    ("min_lr", None),
    ("base_momentum", None),
    ("max_momentum", None),
];

/// `opt.state_dict()`: the state's tensors themselves (as PyTorch's, not
/// copies), `step` as an f32 tensor on the host.
pub(super) fn state_dict(
    _: &mut Interp,
    _: &'static str,
    o: &Arc<Mutex<Optimizer>>,
    _: &Bound,
) -> Out {
    let o = lock(o);
    let ids = o.param_ids();
    let mut state = Vec::new();
    for (k, &id) in ids.iter().enumerate() {
        if ids[..k].contains(&id) {
            continue;
        }
        let entries = o.state_of(k);
        if entries.is_empty() {
            continue;
        }
        let entries = entries
            .into_iter()
            .map(|(name, v)| (Key::from(name), state_value(v)))
            .collect();
        state.push((Key::Int(id as i64), Value::Dict(PyDict::new(entries))));
    }
    let groups = o
        .groups
        .iter()
        .enumerate()
        .map(|(g, kind)| {
            let mut pairs: Vec<(Key, Value)> = kind
                .settings()
                .into_iter()
                .map(|(k, v)| (Key::from(k), setting_value(v)))
                .collect();
            // What a scheduler added to the group.
            if let Some(&lr) = o.initial_lrs.get(g) {
                pairs.push((Key::from("initial_lr"), Value::float(lr)));
            }
            for (k, v) in o.extras_of(g) {
                pairs.push((Key::from(k.as_str()), super::param_group::held(v)));
            }
            let params = ids
                .iter()
                .zip(&o.group_of)
                .filter(|(_, &h)| h == g)
                .map(|(&id, _)| Value::Int(id as i64))
                .collect();
            pairs.push(("params".into(), Value::list(params)));
            Value::Dict(PyDict::new(pairs))
        })
        .collect();
    Ok(Value::Dict(PyDict::new(vec![
        ("state".into(), Value::Dict(PyDict::new(state))),
        ("param_groups".into(), Value::list(groups)),
    ])))
}

fn field(d: &PyDict, name: &str) -> Option<Value> {
    d.get(&Key::from(name))
}

/// `opt.load_state_dict(d)`: PyTorch's checks (as many groups, as many
/// parameters in each), every group's settings, then each parameter's state
/// copied onto the parameter's device and dtype (`step` kept as a count).
/// Nothing changes when a check fails.
pub(super) fn load_state_dict(
    me: &mut Interp,
    _: &'static str,
    o: &Arc<Mutex<Optimizer>>,
    b: &Bound,
) -> Out {
    let (v, span) = b
        .get("state_dict")
        .cloned()
        .ok_or_else(|| Error::value("load_state_dict() needs a state_dict").at(b.span))?;
    let at = |e: Error| e.at(span);
    let bad = |what: &str| {
        Error::value_help(
            format!("the optimizer's state_dict {what}"),
            "give what `opt.state_dict()` gave (or a checkpoint's \"optimizer_state_dict\")",
        )
        .at(span)
    };
    let Value::Dict(d) = &v else {
        return Err(bad("is a dict of \"state\" and \"param_groups\""));
    };
    let (Some(Value::Dict(state)), Some(groups)) = (field(d, "state"), field(d, "param_groups"))
    else {
        return Err(bad("has \"state\" and \"param_groups\""));
    };
    let groups = match groups.elements() {
        Some(Ok(g)) => g,
        _ => return Err(bad("has a list of \"param_groups\"")),
    };
    let mut opt = lock(o);
    if groups.len() != opt.groups.len() {
        return Err(at(Error::value(
            "loaded state dict has a different number of parameter groups",
        )));
    }
    // Each group's settings and the numbers of its parameters.
    let mut kinds = opt.groups.clone();
    let mut extras: Vec<Vec<(String, crate::autograd::hook_list::HookFn)>> = Vec::new();
    // Each group's `initial_lr` as saved (a scheduler's).
    let mut initial: Vec<Option<f64>> = vec![None; groups.len()];
    let mut numbers: Vec<i64> = Vec::with_capacity(opt.params.len());
    for (g, group) in groups.iter().enumerate() {
        let Value::Dict(pairs) = group else {
            return Err(bad("has a dict per parameter group"));
        };
        let ids = match field(pairs, "params").map(|p| p.elements()) {
            Some(Some(Ok(ids))) => ids,
            _ => return Err(bad("has each group's \"params\"")),
        };
        let ours = opt.group_of.iter().filter(|&&h| h == g).count();
        if ids.len() != ours {
            return Err(at(Error::value(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group",
            )));
        }
        for id in &ids {
            match id {
                Value::Int(i) => numbers.push(*i),
                _ => return Err(bad("numbers its parameters")),
            }
        }
        let mut own = Vec::new();
        for (k, v) in pairs.items().iter() {
            let Some(name) = k.as_str() else {
                return Err(bad("has string keys in its groups"));
            };
            if name == "params" {
                continue;
            }
            let known = kinds[g].keys().contains(&name);
            if name == "initial_lr" {
                initial[g] = v.as_number();
                continue;
            }
            let pytorchs = PYTORCH_DEFAULTS.iter().any(|(n, _)| *n == name);
            // A key of the program's (a group's "name"): the loaded group's.
            if !known && !pytorchs {
                own.push((name.to_string(), super::param_group::hold(v)));
                continue;
            }
            if let Some((_, default)) = PYTORCH_DEFAULTS
                .iter()
                .find(|(n, _)| *n == name)
                .filter(|_| !known)
            {
                let differs = match (default, v) {
                    (Some(d), Value::Bool(b)) => b.get() != *d,
                    _ => false,
                };
                if differs {
                    return Err(at(Error::value(format!(
                        "the state_dict's group {g} sets {name:?} to {}, which cudash's {} does not do",
                        super::show::repr(v),
                        opt.name()
                    ))));
                }
                continue;
            }
            let setting = setting_of(v).ok_or_else(|| bad("has numbers as settings"))?;
            kinds[g]
                .set(name, setting)
                .map_err(|m| at(Error::value(m)))?;
        }
        extras.push(own);
    }
    // Each parameter's state, moved to its parameter's device and dtype.
    let mut loaded: Vec<(usize, &'static str, Arc<Tensor>)> = Vec::new();
    for (key, entries) in state.items().iter() {
        let Key::Int(id) = key else {
            return Err(bad("numbers the parameters in its \"state\""));
        };
        let Some(k) = numbers.iter().position(|n| n == id) else {
            continue; // PyTorch ignores state of a number no group has
        };
        let Value::Dict(entries) = entries else {
            return Err(bad("has a dict of state per parameter"));
        };
        let param = Arc::clone(&opt.params[k]);
        for (name, value) in entries.items().iter() {
            let name = name.as_str().unwrap_or("");
            let Some(&(known, _)) = kinds[opt.group_of[k]]
                .state_names()
                .iter()
                .find(|(n, _)| *n == name)
            else {
                return Err(at(Error::value(format!(
                    "the state_dict's state of parameter {id} has {name:?}, which {} does not keep",
                    opt.name()
                ))));
            };
            let v = if known == "step" || known == "mu_product" {
                let v = number_entry(me, known, value)
                    .ok_or_else(|| bad(&format!("has a number as {known:?}")))?
                    .map_err(at)?;
                // A capturable optimizer counts on the parameter's device:
                // PyTorch's `value.to(dtype=torch.float32, device=param.device)`.
                let capturable = kinds[opt.group_of[k]].flags().capturable;
                match capturable && known == "step" && v.device() != param.device() {
                    true => me.rt.copy_to(&v, param.device()).map_err(at)?,
                    false => v,
                }
            } else {
                let Value::Tensor(t) = value else {
                    return Err(bad("has tensors as state"));
                };
                if t.shape() != param.shape() {
                    return Err(at(Error::value(format!(
                        "the state_dict's {name:?} of parameter {id} has shape {:?}, the parameter {:?}",
                        t.shape(),
                        param.shape()
                    ))));
                }
                // PyTorch's `_cast` is `value.to(dtype, device)`: the
                // state_dict's tensor itself where it is already on the
                // parameter's device in its dtype (the optimizer then holds
                // the checkpoint's tensors: no second copy in `mem`), a new
                // one only where it moves or casts.
                match (t.device() == param.device(), t.dtype() == param.dtype()) {
                    (true, true) => Arc::clone(t),
                    (true, false) => me.rt.cast(t, param.dtype()).map_err(at)?,
                    (false, same) => {
                        let moved = me.rt.copy_to(t, param.device()).map_err(at)?;
                        match same {
                            true => moved,
                            false => me.rt.cast(&moved, param.dtype()).map_err(at)?,
                        }
                    }
                }
            };
            loaded.push((k, known, v));
        }
    }
    opt.groups = kinds;
    opt.extras = extras;
    opt.initial_lrs = match initial.iter().any(Option::is_some) {
        true => initial
            .iter()
            .zip(&opt.groups)
            .map(|(i, kind)| i.unwrap_or_else(|| kind.lr()))
            .collect(),
        false => Vec::new(),
    };
    opt.clear_state();
    for (k, name, v) in loaded {
        opt.set_state_of(k, name, v)
            .map_err(|m| at(Error::value(m)))?;
    }
    Ok(Value::None)
}

/// A state entry as the program sees it: the tensor the optimizer holds.
pub(super) fn state_value(t: Arc<Tensor>) -> Value {
    Value::Tensor(t)
}

/// `step` or NAdam's `mu_product` from a number or a one-element tensor;
/// `None` for another value. A float32 step is kept itself, as PyTorch's
/// `load_state_dict` and `opt.state[p]["step"] = t` keep it (the optimizer
/// then counts in that tensor); anything else becomes a float32 scalar on
/// the host.
pub(super) fn number_entry(
    me: &mut Interp,
    known: &str,
    value: &Value,
) -> Option<Result<Arc<Tensor>, Error>> {
    if let Value::Tensor(t) = value {
        if known == "step" && t.numel() == 1 && t.dtype() == crate::runtime::DType::default_float()
        {
            return Some(Ok(Arc::clone(t)));
        }
    }
    let number = match value {
        Value::Tensor(t) if t.numel() == 1 => match me.rt.read_item(t, || t.to_vec::<f64>()[0]) {
            Ok(n) => n,
            Err(e) => return Some(Err(e)),
        },
        other => other.as_number()?,
    };
    Some(Ok(Arc::new(crate::autograd::step_ops::scalar_step(number))))
}
