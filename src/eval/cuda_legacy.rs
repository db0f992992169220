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
    LEGACY_CUDA_TYPES.contains(&f.name)
}

/// Whether `t` is an instance of the legacy class `f`: a CUDA tensor of its
/// dtype (PyTorch's `torch.cuda.FloatTensor` is `x.type()`'s name).
pub fn instance_of(f: &Native, t: &Tensor) -> bool {
    t.device().is_cuda() && t.dtype().torch_type(true) == f.name
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
