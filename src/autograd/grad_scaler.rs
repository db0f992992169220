//! `torch.amp.GradScaler`, as PyTorch 2.15's `grad_scaler.py` runs it:
//! the loss is multiplied by a scale (65536 at first) so that small f16
//! gradients do not flush to zero; before the optimizer's step the
//! gradients are divided by it again (`unscale_`), each device noting
//! whether any gradient was inf or NaN (no host sync); `step` reads those
//! notes (`.item()`: the sync PyTorch's makes there) and skips the
//! optimizer's step when one was found; `update` halves the scale after a
//! skipped step and doubles it after `growth_interval` good ones.
//!
//! The scale and the per-device found-inf flags are device tensors, as
//! PyTorch's; the host keeps a copy of the scale and the growth tracker
//! (it knows every flag once `step` has read them), so `update` writes the
//! new scale with one fill where PyTorch runs one update kernel. The check
//! and the unscaling are the op layer's ops, a few kernels per gradient
//! where PyTorch's `_amp_foreach_non_finite_check_and_unscale_` fuses a
//! group of them into one.

use std::sync::{Arc, Mutex};

use super::inplace;
use super::meta::meta;
use super::optim::Optimizer;
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::{DType, Device, Tensor};

type R<T> = Result<T, Error>;

/// Where an optimizer is in the iteration (PyTorch's `OptState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Ready,
    Unscaled,
    Stepped,
}

/// A device's found-inf flag (f32, 0-d), and its value once read.
type Found = (Device, Arc<Tensor>, Option<bool>);

/// One optimizer's state for this iteration.
#[derive(Debug)]
struct PerOptimizer {
    /// The optimizer, by identity.
    id: usize,
    stage: Stage,
    /// Per device: the flag (f32, 0-d: 1 when a gradient there was inf or
    /// NaN), and its value once the host has read it.
    found_inf: Vec<Found>,
}

pub struct GradScaler {
    /// `"cuda"` or `"cpu"`.
    pub device: &'static str,
    pub enabled: bool,
    pub growth_factor: f64,
    pub backoff_factor: f64,
    pub growth_interval: i64,
    /// The scale as the host knows it (f32), before and after the tensor
    /// exists.
    scale_host: f32,
    /// Consecutive steps without inf/NaN.
    growth_tracker: i64,
    /// The scale, once `scale()` has been called: f32, 0-d.
    scale: Option<Arc<Tensor>>,
    states: Vec<PerOptimizer>,
    /// Steps taken and skipped so far (what the scaler shows).
    pub steps: u64,
    pub skipped: u64,
}

impl std::fmt::Debug for GradScaler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GradScaler(scale={}, {} steps)",
            self.scale_host, self.steps
        )
    }
}

/// The scaler's settings as `GradScaler(...)` takes them.
pub struct Settings {
    pub device: &'static str,
    pub init_scale: f64,
    pub growth_factor: f64,
    pub backoff_factor: f64,
    pub growth_interval: i64,
    pub enabled: bool,
}

/// PyTorch's `AssertionError`s of the scaler.
fn assertion(message: String) -> Error {
    Error::Module {
        class: "AssertionError",
        message,
        help: Some(
            "the AMP recipe: `scaler.scale(loss).backward()`, then `scaler.step(opt)`, then \
             `scaler.update()`, each iteration"
                .into(),
        ),
    }
}

/// PyTorch's `RuntimeError`s of the scaler.
fn runtime_error(message: &str) -> Error {
    Error::Module {
        class: "RuntimeError",
        message: message.into(),
        help: Some(
            "each iteration: `scaler.scale(loss).backward()`, at most one `scaler.unscale_(opt)`, \
             `scaler.step(opt)` once per optimizer, then `scaler.update()`"
                .into(),
        ),
    }
}

impl GradScaler {
    pub fn new(s: Settings) -> R<GradScaler> {
        if s.enabled && s.growth_factor <= 1.0 {
            return Err(assertion("The growth factor must be > 1.0.".into()));
        }
        if s.enabled && s.backoff_factor >= 1.0 {
            return Err(assertion("The backoff factor must be < 1.0.".into()));
        }
        Ok(GradScaler {
            device: s.device,
            enabled: s.enabled,
            growth_factor: s.growth_factor,
            backoff_factor: s.backoff_factor,
            growth_interval: s.growth_interval,
            scale_host: s.init_scale as f32,
            growth_tracker: 0,
            scale: None,
            states: Vec::new(),
            steps: 0,
            skipped: 0,
        })
    }

    /// The scale as the host knows it, without reading the device.
    pub fn known_scale(&self) -> f64 {
        f64::from(self.scale_host)
    }

    fn check_scale(&self, what: &str) -> R<Arc<Tensor>> {
        self.scale.clone().ok_or_else(|| {
            assertion(format!(
                "Attempted {what} but _scale is None.  This may indicate your script did not use \
                 scaler.scale(loss or outputs) earlier in the iteration."
            ))
        })
    }

    /// `scale(outputs)` of one tensor: `outputs * scale` (the scale made on
    /// its device at the first call, and copied to another device's).
    pub fn scale(&mut self, rt: &mut Runtime, mode: Mode, t: &Tensor) -> R<Arc<Tensor>> {
        if self.scale.is_none() {
            let new = NewTensor {
                shape: &[],
                dtype: DType::F32,
                device: t.device(),
                like: None,
            };
            self.scale = Some(rt.full(new, Fill::Float(f64::from(self.scale_host)))?);
        }
        let mut s = self.check_scale("scale")?;
        if s.device() != t.device() {
            s = rt.transfer(&s, t.device(), true)?;
        }
        super::record::binary(
            rt,
            mode,
            BinaryOp::Mul,
            Operand::strong(t),
            Operand::strong(&s),
        )
    }

    fn state(&mut self, opt: &Arc<Mutex<Optimizer>>) -> &mut PerOptimizer {
        let id = Arc::as_ptr(opt) as usize;
        let at = match self.states.iter().position(|s| s.id == id) {
            Some(at) => at,
            None => {
                self.states.push(PerOptimizer {
                    id,
                    stage: Stage::Ready,
                    found_inf: Vec::new(),
                });
                self.states.len() - 1
            }
        };
        &mut self.states[at]
    }

    /// `unscale_(optimizer)`: each gradient of the optimizer divided by the
    /// scale in place, and each device's flag set when one was inf or NaN.
    pub fn unscale_(&mut self, rt: &mut Runtime, opt: &Arc<Mutex<Optimizer>>) -> R<()> {
        if !self.enabled {
            return Ok(());
        }
        self.check_scale("unscale_")?;
        match self.state(opt).stage {
            Stage::Unscaled => {
                return Err(runtime_error(
                    "unscale_() has already been called on this optimizer since the last update().",
                ))
            }
            Stage::Stepped => {
                return Err(runtime_error("unscale_() is being called after step()."))
            }
            Stage::Ready => {}
        }
        // `scale.double().reciprocal().float()`, as PyTorch computes it.
        let inv = (1.0 / f64::from(self.scale_host)) as f32;
        let found = self.unscale_grads(rt, opt, f64::from(inv), false)?;
        let state = self.state(opt);
        state.found_inf = found;
        state.stage = Stage::Unscaled;
        Ok(())
    }

    /// Divides the optimizer's gradients by `1 / inv_scale` (PyTorch's
    /// `_unscale_grads_`), returning each device's found-inf flag.
    fn unscale_grads(
        &mut self,
        rt: &mut Runtime,
        opt: &Arc<Mutex<Optimizer>>,
        inv_scale: f64,
        allow_fp16: bool,
    ) -> R<Vec<Found>> {
        let grads: Vec<Arc<Tensor>> = {
            let o = crate::runtime::lock::lock(opt);
            o.params
                .iter()
                .filter_map(|p| meta(p).and_then(|m| m.grad()))
                .collect()
        };
        let off = Mode {
            enabled: false,
            ..Mode::default()
        };
        let mut found: Vec<Found> = Vec::new();
        let mut inv: Vec<(Device, Arc<Tensor>)> = Vec::new();
        for g in &grads {
            if !allow_fp16 && g.dtype() == DType::F16 {
                return Err(Error::value_help(
                    "Attempting to unscale FP16 gradients.",
                    "keep the parameters in float32 (autocast casts them for each op); a model made \
                     `.half()` has f16 gradients, which GradScaler does not unscale",
                ));
            }
            let d = g.device();
            let at = match found.iter().position(|(fd, ..)| *fd == d) {
                Some(at) => at,
                None => {
                    let new = |dtype| NewTensor {
                        shape: &[],
                        dtype,
                        device: d,
                        like: None,
                    };
                    found.push((d, rt.full(new(DType::F32), Fill::Float(0.0))?, None));
                    inv.push((d, rt.full(new(DType::F32), Fill::Float(inv_scale))?));
                    found.len() - 1
                }
            };
            // Inf or NaN anywhere: `g - g` is NaN exactly there.
            let diff = rt.binary(BinaryOp::Sub, Operand::strong(g), Operand::strong(g))?;
            let nan = rt.binary(BinaryOp::Ne, Operand::strong(&diff), Operand::strong(&diff))?;
            let any = rt.reduce(ReduceOp::Max, &nan, None, false)?;
            let flag = &found[at].1;
            found[at].1 = rt.binary(
                BinaryOp::Maximum,
                Operand::strong(flag),
                Operand::strong(&any),
            )?;
            if inv_scale != 1.0 {
                inplace::binary_(rt, off, BinaryOp::Mul, g, Operand::strong(&inv[at].1))?;
            }
        }
        Ok(found)
    }

    /// `step(optimizer)`, before the optimizer's step: unscales first if
    /// `unscale_` was not called and reads each device's flag (a host sync
    /// per device, as PyTorch's `.item()`). True: the optimizer steps (the
    /// caller runs its `step()`, hooks and all, then calls `stepped`).
    pub fn begin_step(&mut self, rt: &mut Runtime, opt: &Arc<Mutex<Optimizer>>) -> R<bool> {
        if !self.enabled {
            return Ok(true);
        }
        self.check_scale("step")?;
        if self.state(opt).stage == Stage::Stepped {
            return Err(runtime_error(
                "step() has already been called since the last update().",
            ));
        }
        if self.state(opt).stage == Stage::Ready {
            self.unscale_(rt, opt)?;
        }
        let state = self.state(opt);
        if state.found_inf.is_empty() {
            return Err(assertion(
                "No inf checks were recorded for this optimizer.".into(),
            ));
        }
        let flags: Vec<Arc<Tensor>> = state
            .found_inf
            .iter()
            .map(|(_, t, _)| Arc::clone(t))
            .collect();
        let mut values = Vec::with_capacity(flags.len());
        for f in &flags {
            values.push(read_flag(rt, f)?);
        }
        let state = self.state(opt);
        for (slot, v) in state.found_inf.iter_mut().zip(&values) {
            slot.2 = Some(*v);
        }
        Ok(!values.iter().any(|&v| v))
    }

    /// After `begin_step` (and the optimizer's step, when it said so): the
    /// step counted, skipped or not.
    pub fn stepped(&mut self, opt: &Arc<Mutex<Optimizer>>, stepped: bool) {
        if !self.enabled {
            return;
        }
        self.state(opt).stage = Stage::Stepped;
        self.steps += 1;
        self.skipped += u64::from(!stepped);
    }

    /// `update(new_scale=None)`: the scale backed off after an inf/NaN,
    /// grown after `growth_interval` clean steps, or set to `new_scale`.
    pub fn update(&mut self, rt: &mut Runtime, new_scale: Option<f64>) -> R<()> {
        if !self.enabled {
            return Ok(());
        }
        let scale = self.check_scale("update")?;
        if let Some(s) = new_scale {
            self.scale_host = s as f32;
        } else {
            let mut found = Vec::new();
            for state in &mut self.states {
                for (_, flag, known) in &mut state.found_inf {
                    let v = match *known {
                        Some(v) => v,
                        // Unscaled but not stepped: read it now.
                        None => read_flag(rt, flag)?,
                    };
                    *known = Some(v);
                    found.push(v);
                }
            }
            if found.is_empty() {
                return Err(assertion(
                    "No inf checks were recorded prior to update.".into(),
                ));
            }
            // `_amp_update_scale_`, in f32 as PyTorch's kernel.
            if found.iter().any(|&f| f) {
                self.scale_host *= self.backoff_factor as f32;
                self.growth_tracker = 0;
            } else {
                let successful = self.growth_tracker + 1;
                if successful == self.growth_interval {
                    let grown = self.scale_host * self.growth_factor as f32;
                    if grown.is_finite() {
                        self.scale_host = grown;
                    }
                    self.growth_tracker = 0;
                } else {
                    self.growth_tracker = successful;
                }
            }
        }
        rt.fill(&scale, Fill::Float(f64::from(self.scale_host)))?;
        self.states.clear();
        Ok(())
    }

    /// `get_scale()`: the scale, read from the device (a sync, as
    /// PyTorch's `.item()`), or the initial scale before the first `scale`.
    pub fn get_scale(&self, rt: &mut Runtime) -> R<f64> {
        if !self.enabled {
            return Ok(1.0);
        }
        match &self.scale {
            Some(s) => rt.read_item(s, || s.to_vec::<f64>()[0]),
            None => Ok(f64::from(self.scale_host)),
        }
    }

    /// The growth tracker (`state_dict()["_growth_tracker"]`).
    pub fn growth_tracker(&self) -> i64 {
        if self.enabled {
            self.growth_tracker
        } else {
            0
        }
    }

    /// `load_state_dict`'s values.
    pub fn load(&mut self, rt: &mut Runtime, scale: f64, tracker: i64) -> R<()> {
        self.scale_host = scale as f32;
        self.growth_tracker = tracker;
        if let Some(s) = &self.scale {
            rt.fill(s, Fill::Float(scale))?;
        }
        Ok(())
    }

    /// Where an optimizer is in this iteration.
    pub fn stage(&self, opt: &Arc<Mutex<Optimizer>>) -> Stage {
        let id = Arc::as_ptr(opt) as usize;
        self.states
            .iter()
            .find(|s| s.id == id)
            .map_or(Stage::Ready, |s| s.stage)
    }
}

/// A device's found-inf flag, read by the host (a sync, as `.item()`).
fn read_flag(rt: &mut Runtime, flag: &Tensor) -> R<bool> {
    rt.read_item(flag, || flag.to_vec::<f64>()[0] != 0.0)
}
