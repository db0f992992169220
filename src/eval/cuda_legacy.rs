//! `torch.cuda.FloatTensor` and its kin: PyTorch's legacy constructors of
//! CUDA tensors, as older programs write them (`dtype =
//! torch.cuda.FloatTensor`, `torch.cuda.LongTensor([1, 2])`,
//! `x.type(torch.cuda.FloatTensor)`, `isinstance(x, torch.cuda.FloatTensor)`).
//! Each is the CPU constructor of its name (`FloatTensor`, `builtins::
//! factories::legacy_tensor`) on the current CUDA device, and a class:
//! `<class 'torch.cuda.FloatTensor'>`, whose instances are the CUDA
//! tensors of its dtype.

use super::args::ArgVal;
use super::value::{Native, LEGACY_CUDA_TYPES};
use super::{Interp, Value};
use crate::error::Diagnostic;
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::runtime::Tensor;

/// Whether `f` is one of them.
pub fn is_legacy(f: &Native) -> bool {
    LEGACY_CUDA_TYPES.contains(f)
}

/// The type a legacy tensor type names, as `x.type()` gives it:
/// `torch.FloatTensor` (a CPU one, a builtin) or `torch.cuda.FloatTensor`.
pub fn type_named(v: &Value) -> Option<String> {
    match v {
        Value::Builtin(doc) if doc.name.ends_with("Tensor") && doc.name != "Tensor" => {
            Some(format!("torch.{}", doc.name))
        }
        Value::Native(f) if is_legacy(f) => Some(f.name.to_string()),
        _ => None,
    }
}

/// Whether `t` is an instance of the legacy type named `name`: a tensor of
/// its dtype on its kind of device.
pub fn instance_of(name: &str, t: &Tensor) -> bool {
    t.dtype().torch_type(t.device().is_cuda()) == name
}

impl Interp {
    /// `torch.cuda.FloatTensor(...)`: `FloatTensor(..., device=<current cuda>)`.
    pub(super) fn call_cuda_legacy(
        &mut self,
        f: &'static Native,
        mut args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let cpu_name = f.name.trim_start_matches("torch.cuda.");
        let doc = super::docs::function(cpu_name).expect("a legacy constructor's builtin");
        if !args
            .iter()
            .any(|a| a.keyword.as_ref().is_some_and(|k| k.name == "device"))
        {
            args.push(ArgVal {
                keyword: Some(Name::new("device".into(), span)),
                value: Value::CurrentCuda,
                span,
            });
        }
        self.call_builtin(doc, args, span)
    }
}
