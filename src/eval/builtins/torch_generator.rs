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
        _ => {
            let seed = me.rt.generators.of(Device::Cpu).next_u64() & i64::MAX as u64;
            g.manual_seed(seed);
            Ok(Value::Int(seed as i64))
        }
    }
}
