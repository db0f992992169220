//! Saving and restoring where the generators are, as checkpointing code
//! does (`torch.get_rng_state()` beside the model's `state_dict`):
//!
//! - `torch.get_rng_state()` / `set_rng_state(t)` (and `torch.random`'s):
//!   the CPU generator as PyTorch's bytes (`runtime/cpu_random/state.rs`),
//!   so a state saved by PyTorch sets cudash's generator to the same place
//!   and the same numbers follow;
//! - `g.get_state()` / `g.set_state(t)` of a `torch.Generator`;
//! - `torch.cuda.get_rng_state(device)` / `set_rng_state(t, device)` and
//!   their `_all` forms: a device's Philox generator in PyTorch's layout
//!   (16 bytes: the seed, then the offset, each little-endian 64 bits);
//!   the offset counts cudash's draws, not PyTorch's;
//! - `random.getstate()` / `setstate(state)`: CPython's tuple
//!   `(3, (624 words..., index), None)`.

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::buffer::Buffer;
use crate::runtime::cpu_random::mt19937::Mt19937;
use crate::runtime::{DType, Device, Tensor};

/// The names this module answers.
pub const NAMES: [&str; 10] = [
    "torch.get_rng_state",
    "torch.set_rng_state",
    "torch.random.get_rng_state",
    "torch.random.set_rng_state",
    "torch.cuda.get_rng_state",
    "torch.cuda.set_rng_state",
    "torch.cuda.get_rng_state_all",
    "torch.cuda.set_rng_state_all",
    "random.getstate",
    "random.setstate",
];

/// A state as PyTorch gives one: a CPU tensor of bytes.
pub(super) fn byte_tensor(bytes: Vec<u8>) -> Value {
    let n = bytes.len();
    Value::tensor(Tensor::new(Buffer::U8(bytes), vec![n], Device::Cpu))
}

/// The bytes of a state the program hands back: a CPU uint8 tensor, as
/// PyTorch's `check_rng_state` asks.
pub(super) fn state_bytes(v: &Value, span: Span) -> Result<Vec<u8>, Diagnostic> {
    match v {
        Value::Tensor(t) if t.dtype() == DType::U8 && t.device() == Device::Cpu => {
            match t.contiguous_buffer() {
                Buffer::U8(b) => Ok(b),
                _ => unreachable!("a uint8 tensor holds bytes"),
            }
        }
        // PyTorch's words; what it was given, in the help.
        other => Err(Error::Module {
            class: "TypeError",
            message: "RNG state must be a torch.ByteTensor".into(),
            help: Some(match other {
                Value::Tensor(t) => format!(
                    "a state is a uint8 tensor on the cpu, as `torch.get_rng_state()` gives; \
                     this one is {} on {}",
                    super::format::str_of(&Value::dtype(t.dtype())),
                    t.device()
                ),
                other => format!(
                    "a state is a uint8 tensor, as `torch.get_rng_state()` gives, not {}",
                    super::format::python_type(other)
                ),
            }),
        }
        .at(span)),
    }
}

impl Interp {
    pub(super) fn call_rng_state(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let arg = |k: usize, keyword: &str| {
            args.iter()
                .find(|a| a.keyword.as_ref().is_some_and(|n| n.name == keyword))
                .or_else(|| args.iter().filter(|a| a.keyword.is_none()).nth(k))
        };
        let needed = |k: usize, keyword: &str| {
            arg(k, keyword).ok_or_else(|| {
                Error::type_error(format!("{name}() missing required argument: '{keyword}'"))
                    .at(span)
            })
        };
        Ok(match name {
            "torch.get_rng_state" | "torch.random.get_rng_state" => {
                byte_tensor(self.rt.generators.cpu().state_bytes())
            }
            "torch.set_rng_state" | "torch.random.set_rng_state" => {
                let a = needed(0, "new_state")?;
                let bytes = state_bytes(&a.value, a.span)?;
                self.rt
                    .generators
                    .cpu()
                    .set_state_bytes(&bytes)
                    .map_err(|e| Error::runtime(e).at(a.span))?;
                Value::None
            }
            "torch.cuda.get_rng_state" => {
                let d = self.rng_device(arg(0, "device"), span)?;
                byte_tensor(self.rt.generators.cuda(d).state_bytes())
            }
            "torch.cuda.set_rng_state" => {
                let a = needed(0, "new_state")?;
                let bytes = state_bytes(&a.value, a.span)?;
                let d = self.rng_device(arg(1, "device"), span)?;
                self.rt
                    .generators
                    .cuda(d)
                    .set_state_bytes(&bytes)
                    .map_err(|e| Error::runtime(e).at(a.span))?;
                Value::None
            }
            "torch.cuda.get_rng_state_all" => {
                let n = self.rt.devices.count();
                let states = (0..n)
                    .map(|d| byte_tensor(self.rt.generators.cuda(d).state_bytes()))
                    .collect();
                Value::MutList(Arc::new(std::sync::Mutex::new(Arc::new(states))))
            }
            "torch.cuda.set_rng_state_all" => {
                let a = needed(0, "new_states")?;
                let states = match a.value.elements() {
                    Some(Ok(states)) => states,
                    _ => {
                        return Err(
                            Error::type_error("set_rng_state_all() takes a list of states")
                                .at(a.span),
                        )
                    }
                };
                // As PyTorch's: state `d` for cuda:d, as far as both go.
                let n = self.rt.devices.count() as usize;
                for (d, state) in states.iter().take(n).enumerate() {
                    let bytes = state_bytes(state, a.span)?;
                    self.rt
                        .generators
                        .cuda(d as u32)
                        .set_state_bytes(&bytes)
                        .map_err(|e| Error::runtime(e).at(a.span))?;
                }
                Value::None
            }
            "random.getstate" => super::pyrandom::with(|t| python_state(t.engine())),
            _ => {
                let a = needed(0, "state")?;
                let engine = python_engine(&a.value)
                    .ok_or_else(|| Error::value("state vector is the wrong size").at(a.span))?;
                super::pyrandom::with(|t| t.set_engine(engine));
                Value::None
            }
        })
    }

    /// The CUDA device a `device=` names (an index, `"cuda:1"`, a device;
    /// the current one when none does), checked as every CUDA call checks it.
    fn rng_device(&mut self, given: Option<&ArgVal>, span: Span) -> Result<u32, Diagnostic> {
        let not_cuda = |at: Span| {
            Error::value("a CUDA device's generator: `device='cuda'`, `'cuda:1'` or an index")
                .at(at)
        };
        let index = match given.map(|a| (self.resolve(a.value.clone()), a.span)) {
            None | Some((Value::None, _)) => None,
            Some((Value::Int(i), _)) => Some(u32::try_from(i).unwrap_or(u32::MAX)),
            Some((Value::Device(d), at)) => match d.get() {
                Device::Cuda(i) => Some(i),
                Device::Cpu | Device::Meta => return Err(not_cuda(at)),
            },
            Some((_, at)) => return Err(not_cuda(at)),
        };
        match self.rt.cuda(index).map_err(|e| e.at(span))? {
            Device::Cuda(d) => Ok(d),
            Device::Cpu | Device::Meta => Err(Error::value("no CUDA device").at(span)),
        }
    }
}

/// CPython's `random.getstate()`: `(3, (624 words..., index), None)`.
fn python_state(engine: &Mt19937) -> Value {
    let place = engine.place();
    let words = place
        .state
        .iter()
        .map(|&w| Value::Int(i64::from(w)))
        .chain([Value::Int(i64::from(engine.cpython_index()))])
        .collect();
    Value::List(Arc::new(vec![
        Value::Int(3),
        Value::List(Arc::new(words)),
        Value::None,
    ]))
}

/// The engine `random.setstate(state)` puts back: version 3, 624 words
/// and an index in 0..=624.
fn python_engine(state: &Value) -> Option<Mt19937> {
    let items = state.elements()?.ok()?;
    let [Value::Int(3), words, _gauss] = &items[..] else {
        return None;
    };
    let words = words.elements()?.ok()?;
    if words.len() != 625 {
        return None;
    }
    let mut state = [0u32; 624];
    for (slot, w) in state.iter_mut().zip(&words) {
        let Value::Int(w) = w else { return None };
        *slot = u32::try_from(*w).ok()?;
    }
    let Value::Int(index) = words[624] else {
        return None;
    };
    Mt19937::at_cpython_index(state, u32::try_from(index).ok()?)
}
