//! Mixed precision as `torch.amp` spells it: `autocast(...)`, the region a
//! `with` runs its block in (`autograd/autocast.rs` casts the listed ops'
//! inputs), and `GradScaler(...)` with its methods
//! (`autograd/grad_scaler.rs`).

use crate::eval::value::PyDict;
use std::sync::{Arc, Mutex};

use super::args::{ArgVal, Bound};
use super::value::Key;
use super::{Interp, Value};
use crate::autograd::autocast::{self, Autocast, Region};
use crate::autograd::grad_scaler::{GradScaler, Settings};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Block;
use crate::runtime::lock::lock;
use crate::runtime::DType;

type Out = Result<Value, Diagnostic>;

/// `autocast(device_type="cuda", dtype=none, enabled=true, cache_enabled=none)`.
pub(super) fn autocast(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let device = match b.get("device_type") {
        None => "cuda".to_string(),
        Some((v, span)) => device_type(v).ok_or_else(|| {
            Error::wrong_type(
                "autocast's `device_type`",
                "a str (\"cuda\" or \"cpu\")",
                v.type_name(),
            )
            .at(*span)
        })?,
    };
    let cuda = match device.as_str() {
        "cuda" => true,
        "cpu" => false,
        other => {
            return Err(Error::value_help(
                format!("User specified an unsupported autocast device_type '{other}'"),
                "autocast's device types here are \"cuda\" and \"cpu\"",
            )
            .at(b.span_of("device_type")))
        }
    };
    let dtype = b.dtype("dtype")?.unwrap_or(match cuda {
        true => DType::F16,
        false => DType::BF16,
    });
    let mut enabled = b.bool("enabled", true)?;
    if enabled && !dtype.is_float() {
        return Err(Error::dtype(
            format!(
                "autocast runs the listed ops in a lower-precision float, not {}",
                dtype.pytorch_name()
            ),
            Some("give dtype=torch.float16 or torch.bfloat16 (PyTorch would fail at the first op it casts)".into()),
        )
        .at(b.span_of("dtype")));
    }
    if enabled && cuda && me.rt.devices.count() == 0 {
        me.rt
            .note("CUDA is not available or torch_xla is imported. Disabling autocast.".into());
        enabled = false;
    }
    if enabled && !cuda && !matches!(dtype, DType::BF16 | DType::F16) {
        me.rt.note(
            "In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU \
             Autocast only supports dtypes of torch.bfloat16, torch.float16 currently."
                .into(),
        );
        enabled = false;
    }
    me.flush_notes();
    let cache = match b.given("cache_enabled") {
        None | Some((Value::None, _)) => None,
        Some(_) => Some(b.bool("cache_enabled", true)?),
    };
    Ok(Value::Autocast(Region {
        cuda,
        dtype,
        enabled,
        cache,
    }))
}

impl Interp {
    /// `with autocast(...) { body }`: the block's ops autocast for the
    /// region's device type; the casts kept for the outermost region are
    /// dropped when it ends.
    pub(super) fn with_autocast(
        &mut self,
        r: Region,
        body: &Block,
    ) -> Result<super::flow::Flow, Diagnostic> {
        let saved = self.grad.autocast;
        let on = r.enabled.then_some(r.dtype);
        let mut next = Autocast {
            cache: r.cache.unwrap_or(saved.cache),
            ..saved
        };
        if r.cuda {
            next.cuda = on;
        } else {
            next.cpu = on;
        }
        self.grad.autocast = next;
        autocast::enter();
        let result = self.exec_block(body);
        autocast::exit();
        self.grad.autocast = saved;
        result
    }
}

/// `GradScaler(device="cuda", init_scale=65536.0, growth_factor=2.0,
/// backoff_factor=0.5, growth_interval=2000, enabled=true)`.
pub(super) fn grad_scaler(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let device = match b.get("device") {
        None => "cuda",
        Some((v, span)) => match device_type(v).as_deref() {
            Some("cuda") => "cuda",
            Some("cpu") => "cpu",
            _ => {
                return Err(Error::wrong_type(
                    "GradScaler's device",
                    "\"cuda\" or \"cpu\"",
                    v.type_name(),
                )
                .at(*span))
            }
        },
    };
    let mut enabled = b.bool("enabled", true)?;
    if enabled && device == "cuda" && me.rt.devices.count() == 0 {
        me.rt.note(
            "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.".into(),
        );
        me.flush_notes();
        enabled = false;
    }
    let settings = Settings {
        device,
        init_scale: b.float("init_scale")?.unwrap_or(65536.0),
        growth_factor: b.float("growth_factor")?.unwrap_or(2.0),
        backoff_factor: b.float("backoff_factor")?.unwrap_or(0.5),
        growth_interval: b.int("growth_interval")?.unwrap_or(2000),
        enabled,
    };
    let s = GradScaler::new(settings).map_err(|e| e.at(b.span))?;
    Ok(Value::GradScaler(Arc::new(Mutex::new(s))))
}

/// A device type as `autocast` and `GradScaler` take it: a string, or a
/// device (`cuda`, `cuda:1`, `cpu`) for its type.
fn device_type(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        Value::CurrentCuda => Some("cuda".into()),
        Value::Device(d) if d.get().is_cuda() => Some("cuda".into()),
        Value::Device(_) => Some("cpu".into()),
        _ => None,
    }
}

type Scaler = Arc<Mutex<GradScaler>>;

/// The scaler's methods.
pub(super) fn method(me: &mut Interp, name: &'static str, s: &Scaler, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    match name {
        "scale" => {
            let (v, span) = b
                .get("outputs")
                .cloned()
                .ok_or_else(|| Error::value("scale() needs the outputs to scale").at(b.span))?;
            scale_value(me, s, &v).map_err(|e| e.at(span))
        }
        "unscale_" => {
            let opt = optimizer(b)?;
            let mut g = lock(s);
            g.unscale_(&mut me.rt, &opt).map_err(at)?;
            Ok(Value::None)
        }
        // PyTorch's `optimizer.step()` itself when the flags are clear (its
        // hooks run, and what it returns is the scaler's), None when skipped.
        "step" => {
            let opt = optimizer(b)?;
            let go = lock(s).begin_step(&mut me.rt, &opt).map_err(at)?;
            let out = match go {
                true => super::grad::optimizer_step(me, &opt, None, b.span)?,
                false => Value::None,
            };
            lock(s).stepped(&opt, go);
            Ok(out)
        }
        "update" => {
            let new_scale = match b.given("new_scale") {
                None | Some((Value::None, _)) => None,
                Some((Value::Tensor(t), span)) => {
                    if t.numel() != 1 || crate::autograd::meta::requires_grad(t) {
                        return Err(Error::value(
                            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or \
                             torch.FloatTensor with requires_grad=False.",
                        )
                        .at(*span));
                    }
                    let t = Arc::clone(t);
                    Some(
                        me.rt
                            .read_item(&t, || t.to_vec::<f64>()[0])
                            .map_err(|e| e.at(*span))?,
                    )
                }
                Some(_) => b.float("new_scale")?,
            };
            let mut g = lock(s);
            g.update(&mut me.rt, new_scale).map_err(at)?;
            Ok(Value::None)
        }
        "get_scale" => {
            let g = lock(s);
            Ok(Value::float(g.get_scale(&mut me.rt).map_err(at)?))
        }
        "is_enabled" => Ok(Value::bool(lock(s).enabled)),
        "get_growth_factor" => Ok(Value::float(lock(s).growth_factor)),
        "get_backoff_factor" => Ok(Value::float(lock(s).backoff_factor)),
        "get_growth_interval" => Ok(Value::Int(lock(s).growth_interval)),
        "set_growth_factor" => {
            lock(s).growth_factor = number(b, "new_factor")?;
            Ok(Value::None)
        }
        "set_backoff_factor" => {
            lock(s).backoff_factor = number(b, "new_factor")?;
            Ok(Value::None)
        }
        "set_growth_interval" => {
            lock(s).growth_interval = b.int("new_interval")?.ok_or_else(|| {
                Error::value("set_growth_interval() needs the interval").at(b.span)
            })?;
            Ok(Value::None)
        }
        "state_dict" => {
            let g = lock(s);
            if !g.enabled {
                return Ok(Value::Dict(PyDict::new(Vec::new())));
            }
            let scale = g.get_scale(&mut me.rt).map_err(at)?;
            let entry = |k: &str, v: Value| (Key::Str(k.into()), v);
            Ok(Value::Dict(PyDict::new(vec![
                entry("scale", Value::float(scale)),
                entry("growth_factor", Value::float(g.growth_factor)),
                entry("backoff_factor", Value::float(g.backoff_factor)),
                entry("growth_interval", Value::Int(g.growth_interval)),
                entry("_growth_tracker", Value::Int(g.growth_tracker())),
            ])))
        }
        "load_state_dict" => {
            let mut g = lock(s);
            if !g.enabled {
                return Ok(Value::None);
            }
            let d = match b.get("state_dict") {
                Some((Value::Dict(d), _)) => d.items(),
                Some((other, span)) => {
                    return Err(
                        Error::wrong_type("the state dict", "a dict", other.type_name()).at(*span),
                    )
                }
                None => {
                    return Err(Error::value("load_state_dict() needs the state dict").at(b.span))
                }
            };
            if d.is_empty() {
                return Err(Error::Autograd {
                    message:
                        "The source state dict is empty, possibly because it was saved from a \
                              disabled instance of GradScaler."
                            .into(),
                    help: "save the state of an enabled scaler".into(),
                }
                .at(b.span));
            }
            let get = |k: &str| {
                d.get(&Key::Str(k.into())).cloned().ok_or_else(|| {
                    Error::value(format!("the state dict has no \"{k}\"")).at(b.span)
                })
            };
            let num = |k: &str| -> Result<f64, Diagnostic> {
                get(k)?
                    .as_number()
                    .ok_or_else(|| Error::value(format!("\"{k}\" is not a number")).at(b.span))
            };
            g.growth_factor = num("growth_factor")?;
            g.backoff_factor = num("backoff_factor")?;
            g.growth_interval = num("growth_interval")? as i64;
            let (scale, tracker) = (num("scale")?, num("_growth_tracker")? as i64);
            g.load(&mut me.rt, scale, tracker).map_err(at)?;
            Ok(Value::None)
        }
        other => Err(Error::value(format!("GradScaler has no method `{other}`")).at(b.span)),
    }
}

fn number(b: &Bound, name: &str) -> Result<f64, Diagnostic> {
    b.float(name)?
        .ok_or_else(|| Error::value(format!("the call needs `{name}`")).at(b.span))
}

/// The optimizer argument of `unscale_` and `step`.
fn optimizer(b: &Bound) -> Result<Arc<Mutex<crate::autograd::optim::Optimizer>>, Diagnostic> {
    match b.get("optimizer") {
        Some((Value::Optimizer(o), _)) => Ok(Arc::clone(o)),
        Some((other, span)) => Err(Error::wrong_type(
            "the scaler's optimizer",
            "an optimizer (`SGD(...)`, `Adam(...)`)",
            other.type_name(),
        )
        .at(*span)),
        None => Err(Error::value("the call needs the optimizer").at(b.span)),
    }
}

/// `scaler.scale(outputs)`: a tensor times the scale, or each tensor of a
/// list or tuple (nested).
fn scale_value(me: &mut Interp, s: &Scaler, v: &Value) -> Result<Value, Error> {
    if !lock(s).enabled {
        return Ok(v.clone());
    }
    match v {
        Value::Tensor(t) => {
            let mode = me.grad;
            let out = lock(s).scale(&mut me.rt, mode, t)?;
            Ok(Value::Tensor(out))
        }
        Value::List(items) => {
            let scaled: Result<Vec<Value>, Error> =
                items.iter().map(|x| scale_value(me, s, x)).collect();
            Ok(Value::List(Arc::new(scaled?)))
        }
        Value::MutList(items) => {
            let items = Arc::clone(&lock(items));
            let scaled: Result<Vec<Value>, Error> =
                items.iter().map(|x| scale_value(me, s, x)).collect();
            Ok(Value::MutList(Arc::new(Mutex::new(Arc::new(scaled?)))))
        }
        other => Err(Error::value(format!(
            "outputs must be a Tensor or an iterable of Tensors, not {}",
            other.type_name()
        ))),
    }
}

/// `torch.is_autocast_enabled(device_type="cuda")`,
/// `torch.get_autocast_dtype(device_type)` and
/// `torch.is_autocast_cache_enabled()`: the regions in force, as PyTorch's
/// thread-local autocast state answers (a device type's dtype is its
/// default, f16 on cuda and bf16 on cpu, outside a region). None: not one
/// of these names.
pub(super) fn query(me: &Interp, name: &str, args: &[ArgVal]) -> Option<Result<Value, Error>> {
    let asked = |required: bool| -> Result<bool, Error> {
        let given = args
            .iter()
            .find(|a| a.keyword.as_ref().is_none_or(|k| k.name == "device_type"));
        match given.map(|a| &a.value) {
            None if required => Err(Error::value(format!(
                "{name}() missing required argument 'device_type' (pos 1)"
            ))),
            None => Ok(true),
            Some(v) => match device_type(v).as_deref() {
                Some("cuda") => Ok(true),
                Some("cpu") => Ok(false),
                _ => Err(Error::value_help(
                    format!(
                        "unsupported autocast device_type '{}'",
                        match v {
                            Value::Str(s) => s.to_string(),
                            other => super::show::repr(other),
                        }
                    ),
                    "autocast's device types here are \"cuda\" and \"cpu\"",
                )),
            },
        }
    };
    let state = me.grad.autocast;
    let region = |cuda: bool| if cuda { state.cuda } else { state.cpu };
    Some(match name {
        "torch.is_autocast_enabled" => asked(false).map(|cuda| Value::bool(region(cuda).is_some())),
        "torch.get_autocast_dtype" => asked(true).map(|cuda| {
            let default = if cuda { DType::F16 } else { DType::BF16 };
            Value::dtype(region(cuda).unwrap_or(default))
        }),
        "torch.is_autocast_cache_enabled" => Ok(Value::bool(state.cache)),
        _ => return None,
    })
}
