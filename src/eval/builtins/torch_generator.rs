//! `torch.Generator()`: a CPU generator the program seeds
//! (`torch.Generator().manual_seed(42)`) and gives as `generator=` to
//! `random_split`, `RandomSampler`, `DataLoader` and `randperm`, which
//! then draw what PyTorch draws from the same seed (`data/generator.rs`).

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::data::generator::TorchGenerator;
use crate::error::{Diagnostic, Error};
use crate::runtime::Device;

/// `torch.Generator(device='cpu')`.
pub(super) fn generator(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    match b.device("device")? {
        None | Some(Device::Cpu) => Ok(Value::Generator(TorchGenerator::default())),
        Some(d) => {
            let _ = me;
            Err(Error::value_help(
                format!("cudash's torch.Generator draws on the CPU, not on {d}"),
                "a CUDA tensor's random numbers come from its device's generator: seed it with \
                 `torch.manual_seed(s)`",
            )
            .at(b.span_of("device")))
        }
    }
}

/// `generator=` of a builtin: a `torch.Generator`, or none.
pub(crate) fn generator_arg(b: &Bound) -> Result<Option<TorchGenerator>, Diagnostic> {
    match b.given("generator") {
        None | Some((Value::None, _)) => Ok(None),
        Some((Value::Generator(g), _)) => Ok(Some(g.clone())),
        Some((other, span)) => Err(Error::wrong_type(
            "generator=",
            "a torch.Generator (`torch.Generator().manual_seed(42)`)",
            other.type_name(),
        )
        .at(*span)),
    }
}

/// `g.manual_seed(seed)` (the generator itself, as PyTorch's returns it),
/// `g.initial_seed()`, `g.seed()` (a new seed from the session's cpu
/// generator, as PyTorch's takes one from the system).
pub(crate) fn method(
    me: &mut Interp,
    name: &'static str,
    g: &TorchGenerator,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    match name {
        "manual_seed" => {
            let seed = b.int("seed")?.unwrap_or(0);
            // PyTorch takes a negative seed as its 64-bit two's complement.
            g.manual_seed(seed as u64);
            Ok(Value::Generator(g.clone()))
        }
        "initial_seed" => Ok(Value::Int(g.initial_seed() as i64)),
        // PyTorch's bytes for where it is (`torch.get_rng_state()`'s).
        "get_state" => Ok(super::super::rng_state::byte_tensor(
            crate::runtime::lock::lock(&g.0).state_bytes(),
        )),
        "set_state" => {
            let (v, span) = b
                .get("new_state")
                .ok_or_else(|| Error::type_error("set_state() needs the state").at(b.span))?;
            let bytes = super::super::rng_state::state_bytes(v, *span)?;
            crate::runtime::lock::lock(&g.0)
                .set_state_bytes(&bytes)
                .map_err(|e| Error::runtime(e).at(*span))?;
            Ok(Value::Generator(g.clone()))
        }
        _ => {
            let seed = me.rt.generators.cpu().random64() & i64::MAX as u64;
            g.manual_seed(seed);
            Ok(Value::Int(seed as i64))
        }
    }
}

/// The builtins that draw from the CPU's generator and take `generator=`
/// for it (`randperm`'s draws included; a `DataLoader`, a sampler and
/// `random_split` keep theirs).
const DRAWING: &[&str] = &[
    "rand",
    "randn",
    "randint",
    "rand_like",
    "randn_like",
    "randint_like",
    "randperm",
    "multinomial",
    "bernoulli",
    "uniform_",
    "normal_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "trunc_normal_",
    "orthogonal_",
];

/// The tensor methods that draw and take `generator=`.
const DRAWING_METHODS: &[&str] = &[
    "uniform_",
    "normal_",
    "random_",
    "exponential_",
    "bernoulli_",
    "geometric_",
    "log_normal_",
    "cauchy_",
];

/// Whether builtin (or, with `method`, tensor method) `name` takes a
/// `generator=` to draw from.
pub(crate) fn draws(name: &str, method: bool) -> bool {
    match method {
        true => DRAWING_METHODS.contains(&name),
        false => DRAWING.contains(&name),
    }
}

impl Interp {
    /// Runs `f` drawing from `generator=` (when given) instead of the
    /// CPU's default generator: its state is swapped in for the call and
    /// back out after, so what `f` draws advances it, as PyTorch's
    /// `generator=` does. A CPU generator for CUDA tensors (`device`, or
    /// a tensor argument's device) is PyTorch's error.
    pub(crate) fn drawing_from<T>(
        &mut self,
        b: &Bound,
        device: Option<Device>,
        f: impl FnOnce(&mut Interp) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        let Some(g) = generator_arg(b)? else {
            return f(self);
        };
        let device = device.or(b.device("device")?).or_else(|| {
            b.values().find_map(|v| match v {
                Value::Tensor(t) => Some(t.device()),
                _ => None,
            })
        });
        self.drawing_with(&g, b.span_of("generator"), device, f)
    }

    /// [`Interp::drawing_from`] with the generator in hand.
    pub(crate) fn drawing_with<T>(
        &mut self,
        g: &TorchGenerator,
        span: crate::vocab::Span,
        device: Option<Device>,
        f: impl FnOnce(&mut Interp) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        if let Some(Device::Cuda(_)) = device {
            return Err(Error::runtime(
                "Expected a 'cuda' device type for generator but found 'cpu'",
            )
            .at(span));
        }
        let swap = |me: &mut Interp| {
            std::mem::swap(
                me.rt.generators.cpu(),
                &mut *crate::runtime::lock::lock(&g.0),
            );
        };
        swap(self);
        let out = f(self);
        swap(self);
        out
    }
}
