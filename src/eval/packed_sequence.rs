//! What `torch.nn.utils.rnn`'s packed sequences (`stdlib/
//! torch_nn_utils_rnn.py`) ask of the runtime: `_cudash.pack_padded(input,
//! lengths, batch_first)`, PyTorch's `_pack_padded_sequence` (the packed
//! data and its batch sizes), and `_cudash.rnn_packed(rnn, data,
//! batch_sizes, hx)`, PyTorch's `_VF.lstm` / `_VF.gru` / `_VF.rnn_*` over
//! packed data. A recurrent layer called with a `PackedSequence` runs the
//! module's `_packed_forward`, which orders the state as the packing
//! sorted the sequences and gives a `PackedSequence` back, as PyTorch's
//! `RNNBase.forward` does.

use std::sync::Arc;

use super::args::{to_tensor, ArgVal};
use super::{Interp, Value};
use crate::autograd::packed;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::ModuleRef;
use crate::runtime::lock::lock;
use crate::runtime::{DType, Device, Tensor};

/// The names this module answers.
pub const NAMES: [&str; 2] = ["_cudash.pack_padded", "_cudash.rnn_packed"];

/// The stdlib module that defines `PackedSequence`.
const MODULE: &str = "torch.nn.utils._rnn";

/// Whether `v` is a `PackedSequence` (of `torch.nn.utils.rnn`).
pub fn is_packed(v: &Value) -> bool {
    matches!(v, Value::Object(o) if o.class.tuple && o.class.name == "PackedSequence")
}

/// Whether a recurrent layer's input (the first positional argument, or
/// `input=`) is a `PackedSequence`.
pub fn packed_input(args: &[ArgVal]) -> bool {
    args.iter()
        .find(|a| a.keyword.as_ref().is_none_or(|k| k.name == "input"))
        .is_some_and(|a| is_packed(&a.value))
}

impl Interp {
    pub(super) fn call_packed_sequence(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let tensor = |k: usize, what: &str| {
            args.get(k)
                .and_then(|a| to_tensor(&a.value))
                .ok_or_else(|| at(Error::value(format!("{name}: {what} is a tensor"))))
        };
        match name {
            "_cudash.pack_padded" => {
                let input = tensor(0, "the input")?;
                let lengths = cpu_int64s(&*tensor(1, "lengths")?).map_err(at)?;
                let batch_first =
                    matches!(args.get(2).map(|a| &a.value), Some(Value::Bool(b)) if b.get());
                let (data, sizes) =
                    packed::pack_padded(&mut self.rt, self.grad, &input, &lengths, batch_first)
                        .map_err(at)?;
                Ok(pair(Value::Tensor(data), sizes_tensor(&sizes)))
            }
            _ => {
                let Some(Value::Module(m)) = args.first().map(|a| a.value.clone()) else {
                    return Err(at(Error::value(format!(
                        "{name}: the first argument is a module"
                    ))));
                };
                let data = tensor(1, "the data")?;
                let sizes: Vec<usize> = cpu_int64s(&*tensor(2, "batch_sizes")?)
                    .map_err(at)?
                    .into_iter()
                    .map(|n| n.max(0) as usize)
                    .collect();
                let hx = match args.get(3) {
                    Some(a) => super::recurrent::state(&a.value).map_err(|e| e.at(a.span))?,
                    None => None,
                };
                self.rnn_packed(&m, &data, &sizes, hx, span)
            }
        }
    }

    fn rnn_packed(
        &mut self,
        m: &ModuleRef,
        data: &Arc<Tensor>,
        sizes: &[usize],
        hx: Option<crate::nn::recurrent::Hidden>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        self.begin_op("forward");
        let module = lock(m);
        let r =
            crate::nn::recurrent_packed::forward(&mut self.rt, self.grad, &module, data, sizes, hx);
        drop(module);
        self.flush_notes();
        let (out, h) = r.map_err(|e| e.at(span))?;
        Ok(pair(Value::Tensor(out), super::recurrent::state_value(h)))
    }

    /// `rnn(packed, hx)`: the module's `_packed_forward(rnn, packed, hx)`.
    pub(super) fn recurrent_packed_forward(
        &mut self,
        m: &ModuleRef,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let path = super::stdlib::path_of(MODULE).expect("a module of stdlib/");
        let own = self.import_own(MODULE, path, span)?;
        let f = self.own_module_attr(&own, "_packed_forward", span)?;
        let mut all = vec![ArgVal::positional(Value::Module(Arc::clone(m)), span)];
        all.extend(args);
        self.call_value(f, all, span)
    }
}

/// A 1-D int64 tensor on the cpu, read (`lengths`, `batch_sizes`).
fn cpu_int64s(t: &Tensor) -> Result<Vec<i64>, Error> {
    if t.ndim() != 1 || t.device() != Device::Cpu || t.dtype() != DType::I64 {
        return Err(Error::Module {
            class: "RuntimeError",
            message: format!(
                "'lengths' argument should be a 1D CPU int64 tensor, but got {}D {} {} tensor",
                t.ndim(),
                match t.device() {
                    Device::Cpu => "cpu",
                    Device::Cuda(_) => "cuda",
                    Device::Meta => "meta",
                },
                t.dtype().scalar_name()
            ),
            help: Some("lengths are counted on the host: a list, or `lengths.cpu()`".into()),
        });
    }
    Ok(t.to_vec::<i64>())
}

fn sizes_tensor(sizes: &[usize]) -> Value {
    let v: Vec<i64> = sizes.iter().map(|&n| n as i64).collect();
    let n = v.len();
    Value::Tensor(Arc::new(Tensor::from_vec(v, vec![n])))
}

fn pair(a: Value, b: Value) -> Value {
    Value::List(Arc::new(vec![a, b]))
}
