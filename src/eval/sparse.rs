//! Sparse COO tensors as a program meets them (the tensors and their ops are
//! `autograd::sparse`): `torch.sparse_coo_tensor`, `x.to_sparse()`, a sparse
//! tensor's methods and properties (`to_dense`, `coalesce`, `indices`,
//! `_nnz`, `layout`, `to(device)`), and the operators PyTorch gives them:
//! `sparse @ dense`, `dense @ sparse`, `dense + sparse`, `sparse + sparse`,
//! `sparse * number`, `sparse * dense`, `-sparse`. What cudash has no
//! sparse kernel for is an error that says so and names `.to_dense()`.

use std::sync::Arc;

use super::args::{ArgVal, Bound};
use super::{Interp, Value};
use crate::autograd::sparse::{self as sp, Product, SparseOrDense, SparseTensor};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{BinOp, Name};
use crate::lang::Span;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// PyTorch's warning when a program makes a sparse tensor without saying
/// whether its invariants are checked (once a session, as `TORCH_WARN_ONCE`).
const INVARIANTS: &str =
    "UserWarning: Sparse invariant checks are implicitly disabled. Memory errors \
(e.g. SEGFAULT) will occur when operating on a sparse tensor which violates the invariants, but \
checks incur performance overhead. To silence this warning, explicitly opt in or out. See \
`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.";

fn sparse(s: SparseTensor) -> Value {
    Value::Sparse(Arc::new(s))
}

/// What an op cudash has no sparse kernel for says (some PyTorch has,
/// some it has not either).
pub(crate) fn no_kernel(what: &str) -> Error {
    // PyTorch's class for an op a backend lacks.
    Error::Module {
        class: "NotImplementedError",
        message: format!(
            "{what} of a sparse tensor (layout=torch.sparse_coo) is not there in cudash"
        ),
        help: Some("make it dense first: `x.to_dense()`".into()),
    }
}

impl Interp {
    /// `torch.sparse_coo_tensor(indices, values, size=None, dtype=None,
    /// device=None, requires_grad=False)`.
    pub(super) fn sparse_coo_tensor(&mut self, b: &Bound) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(b.span);
        let indices = self.data_tensor(b, "indices")?;
        let values = self.data_tensor(b, "values")?;
        let indices = match indices.dtype() {
            crate::runtime::DType::I64 => indices,
            dt if dt.is_float() || dt == crate::runtime::DType::Bool => {
                return Err(Error::runtime(format!(
                    "indices must be an int64 tensor, not {}",
                    dt.scalar_name()
                ))
                .at(b.span_of("indices")))
            }
            _ => self
                .rt
                .cast(&indices, crate::runtime::DType::I64)
                .map_err(at)?,
        };
        let size = match b.given("size") {
            None | Some((Value::None, _)) => None,
            Some(_) => Some(b.sizes("size")?),
        };
        if b.bool("requires_grad", false)? {
            return Err(no_grad().at(b.span_of("requires_grad")));
        }
        let values = match b.dtype("dtype")? {
            Some(d) if d != values.dtype() => self.rt.cast(&values, d).map_err(at)?,
            _ => values,
        };
        let (indices, values) = match b.device("device")? {
            Some(d) => (
                self.rt.move_to(&indices, d).map_err(at)?,
                self.rt.move_to(&values, d).map_err(at)?,
            ),
            None => (indices, values),
        };
        let s = sp::new(&mut self.rt, indices, values, size).map_err(at)?;
        if matches!(b.given("check_invariants"), None | Some((Value::None, _))) {
            self.warn_once_in_session(INVARIANTS);
        }
        Ok(sparse(s))
    }

    /// A tensor from data (a tensor, a NumPy array, a list of numbers).
    fn data_tensor(&mut self, b: &Bound, name: &str) -> Result<Arc<Tensor>, Diagnostic> {
        let (v, span) = b
            .get(name)
            .ok_or_else(|| Error::value(format!("missing `{name}`")).at(b.span))?;
        match v {
            Value::Tensor(t) => Ok(Arc::clone(t)),
            other => {
                let data = super::literal::literal_tensor_from_value(
                    other,
                    *span,
                    crate::runtime::DType::F64,
                )?;
                let dtype = match data.dtype() {
                    crate::runtime::DType::F64 => crate::runtime::DType::F32,
                    dt => dt,
                };
                self.rt
                    .tensor(&data, dtype, crate::runtime::Device::Cpu)
                    .map_err(|e| e.at(*span))
            }
        }
    }

    /// `torch.mm(a, b)`, `torch.spmm`, `torch.sparse.mm`, `torch.matmul`
    /// with a sparse operand.
    pub(crate) fn sparse_product(&mut self, product: Product, a: &Value, b: &Value) -> R<Value> {
        match (a, b) {
            (Value::Sparse(s), Value::Tensor(d)) => {
                sp::mm(&mut self.rt, self.grad, product, s, d).map(Value::Tensor)
            }
            (Value::Tensor(d), Value::Sparse(s)) => {
                sp::dense_mm(&mut self.rt, self.grad, d, s).map(Value::Tensor)
            }
            (Value::Sparse(x), Value::Sparse(_)) => Err(Error::value_help(
                format!(
                    "a product of two sparse tensors is not there in cudash (a {}-D sparse tensor here)",
                    x.ndim()
                ),
                "make one of them dense: `a @ b.to_dense()`",
            )),
            _ => {
                let other = match a {
                    Value::Sparse(_) | Value::Tensor(_) => b,
                    _ => a,
                };
                Err(Error::wrong_type(
                    "an operand of a sparse product",
                    "a tensor",
                    other.type_name(),
                ))
            }
        }
    }

    /// `torch.sum(s)`, `torch.sparse.sum(s, dim)`, `s.sum(dim)`.
    fn sparse_sum(&mut self, s: &SparseTensor, dims: Option<Vec<i64>>) -> R<Value> {
        let dims = match dims {
            None => (0..s.ndim()).collect(),
            Some(d) => crate::runtime::shape::norm_dims(&d, s.ndim())?,
        };
        Ok(match sp::sum_dims(&mut self.rt, s, &dims)? {
            SparseOrDense::Sparse(s) => sparse(s),
            SparseOrDense::Dense(t) => Value::Tensor(t),
        })
    }

    /// A builtin called with a sparse tensor among its arguments: those
    /// PyTorch gives a sparse kernel, else the error that names
    /// `.to_dense()`. None: not a sparse call.
    pub(crate) fn sparse_builtin(
        &mut self,
        name: &str,
        args: &[ArgVal],
        span: Span,
    ) -> Option<Result<Value, Diagnostic>> {
        if !args.iter().any(|a| matches!(a.value, Value::Sparse(_))) {
            return None;
        }
        // Python's builtins of any object, and the sparse functions bound
        // by their signatures.
        if matches!(
            name,
            "print"
                | "str"
                | "repr"
                | "type"
                | "isinstance"
                | "id"
                | "callable"
                | "hash"
                | "len"
                | "format"
                | "list"
                | "tuple"
                | "dict"
                | "set"
                | "sparse_coo_tensor"
                | "is_tensor"
        ) {
            return None;
        }
        let at = |e: Error| e.at(span);
        let positional: Vec<&Value> = args
            .iter()
            .filter(|a| a.keyword.is_none())
            .map(|a| &a.value)
            .collect();
        let r = match (name, positional.as_slice()) {
            ("mm" | "matmul" | "spmm", [a, b]) => self.sparse_product(Product::Mm, a, b),
            ("sparse_mm", [a, b]) => self.sparse_product(Product::SparseMm, a, b),
            ("sum" | "sparse_sum", [Value::Sparse(s)]) => {
                let dims = args
                    .iter()
                    .find(|a| a.keyword.as_ref().is_some_and(|k| k.name == "dim"))
                    .map(|a| dims_of(&a.value))
                    .transpose();
                match dims {
                    Ok(d) => self.sparse_sum(s, d),
                    Err(e) => Err(e),
                }
            }
            ("sum" | "sparse_sum", [Value::Sparse(s), dim]) => match dims_of(dim) {
                Ok(d) => self.sparse_sum(s, Some(d)),
                Err(e) => Err(e),
            },
            ("add", [a, b]) => self.sparse_binary(BinOp::Elementwise(BinaryOp::Add), a, b),
            ("sub", [a, b]) => self.sparse_binary(BinOp::Elementwise(BinaryOp::Sub), a, b),
            ("mul", [a, b]) => self.sparse_binary(BinOp::Elementwise(BinaryOp::Mul), a, b),
            ("div", [a, b]) => self.sparse_binary(BinOp::Elementwise(BinaryOp::Div), a, b),
            ("neg", [Value::Sparse(s)]) => self.sparse_values(s, UnaryOp::Neg),
            ("t", [Value::Sparse(s)]) => self.sparse_t(s),
            _ => Err(no_kernel(&format!("`torch.{name}`"))),
        };
        Some(r.map_err(at))
    }

    fn sparse_values(&mut self, s: &SparseTensor, op: UnaryOp) -> R<Value> {
        let v = self.rt.unary(op, &s.values)?;
        Ok(sparse(sp::map_values(s, v)))
    }

    fn sparse_t(&mut self, s: &SparseTensor) -> R<Value> {
        match s.ndim() {
            0 | 1 => Ok(sparse(sp::map_values(s, Arc::clone(&s.values)))),
            2 => sp::transpose(&mut self.rt, s, 0, 1).map(sparse),
            n => Err(Error::shape(format!(
                "t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got {n} sparse and 0 dense dimensions"
            ))),
        }
    }

    /// `a op b` where one side is sparse, as PyTorch defines it.
    pub(crate) fn sparse_binary(&mut self, op: BinOp, a: &Value, b: &Value) -> R<Value> {
        use BinaryOp::{Add, Div, Mul, Sub};
        let number = |v: &Value| v.as_number();
        match (op, a, b) {
            (BinOp::MatMul, _, _) => self.sparse_product(Product::Mm, a, b),
            (BinOp::Elementwise(op @ (Add | Sub)), Value::Tensor(d), Value::Sparse(s)) => {
                let dense = sp::to_dense(&mut self.rt, s)?;
                crate::autograd::record::binary(
                    &mut self.rt,
                    self.grad,
                    op,
                    crate::runtime::op::binary::Operand::strong(d),
                    crate::runtime::op::binary::Operand::strong(&dense),
                )
                .map(Value::Tensor)
            }
            (BinOp::Elementwise(op @ (Add | Sub)), Value::Sparse(_), Value::Tensor(_)) => {
                Err(Error::runtime(format!(
                    "{}(sparse, dense) is not supported. Use {}(dense, sparse) instead.",
                    op_name(op),
                    op_name(op)
                )))
            }
            (BinOp::Elementwise(op @ (Add | Sub)), Value::Sparse(x), Value::Sparse(y)) => {
                let alpha = if op == Sub { -1.0 } else { 1.0 };
                sp::add_sparse(&mut self.rt, x, y, alpha).map(sparse)
            }
            (BinOp::Elementwise(op @ (Mul | Div)), Value::Sparse(s), n) if number(n).is_some() => {
                let (n, _) =
                    super::args::operand_value(n).ok_or_else(|| Error::value("a number"))?;
                let v = crate::autograd::record::binary(
                    &mut self.rt,
                    crate::autograd::Mode::off(),
                    op,
                    crate::runtime::op::binary::Operand::strong(&s.values),
                    crate::runtime::op::binary::Operand::weak(&n),
                )?;
                Ok(sparse(sp::map_values(s, v)))
            }
            (BinOp::Elementwise(Mul), n, Value::Sparse(_)) if number(n).is_some() => {
                self.sparse_binary(op, b, a)
            }
            (BinOp::Elementwise(Mul), Value::Sparse(s), Value::Tensor(d))
            | (BinOp::Elementwise(Mul), Value::Tensor(d), Value::Sparse(s)) => {
                sp::mul_dense(&mut self.rt, s, d).map(sparse)
            }
            (op, _, _) => Err(no_kernel(&format!("`{}`", op.symbol()))),
        }
    }

    /// `s.name(args)` of a sparse tensor.
    pub(crate) fn sparse_method(
        &mut self,
        s: &Arc<SparseTensor>,
        name: &Name,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let none = |args: &[ArgVal]| -> Result<(), Diagnostic> {
            match args.first() {
                Some(a) => {
                    Err(Error::value(format!("`.{}()` takes no arguments", name.name)).at(a.span))
                }
                None => Ok(()),
            }
        };
        let positional: Vec<Value> = args
            .iter()
            .filter(|a| a.keyword.is_none())
            .map(|a| a.value.clone())
            .collect();
        let recv = Value::Sparse(Arc::clone(s));
        match name.name.as_str() {
            "to_dense" => {
                none(&args)?;
                sp::to_dense(&mut self.rt, s).map(Value::Tensor).map_err(at)
            }
            "to_sparse" => Ok(recv),
            "coalesce" => {
                none(&args)?;
                sp::coalesce(&mut self.rt, s).map(sparse).map_err(at)
            }
            "is_coalesced" => Ok(Value::bool(s.coalesced)),
            "_nnz" => Ok(Value::Int(s.nnz() as i64)),
            "indices" | "values" if !s.coalesced => Err(Error::runtime(format!(
                "Cannot get {} on an uncoalesced tensor, please call .coalesce() first",
                name.name
            ))
            .at(span)),
            "indices" | "_indices" => Ok(Value::Tensor(Arc::clone(&s.indices))),
            "values" | "_values" => Ok(Value::Tensor(Arc::clone(&s.values))),
            "sparse_dim" | "dim" | "ndimension" => Ok(Value::Int(s.ndim() as i64)),
            "dense_dim" => Ok(Value::Int(0)),
            "numel" | "nelement" => Ok(Value::Int(s.numel() as i64)),
            "element_size" => Ok(Value::Int(s.dtype().size() as i64)),
            "is_contiguous" => Ok(Value::bool(false)),
            "size" => match positional.first() {
                None => Ok(self.sparse_property(s, "shape", span)?),
                Some(Value::Int(d)) => {
                    let d = crate::runtime::shape::norm_dim(*d, s.ndim()).map_err(at)?;
                    Ok(Value::Int(s.shape[d] as i64))
                }
                Some(other) => {
                    Err(
                        Error::wrong_type("the dim of .size()", "an int", other.type_name())
                            .at(span),
                    )
                }
            },
            "t" => self.sparse_t(s).map_err(at),
            "transpose" => match positional.as_slice() {
                [Value::Int(a), Value::Int(b)] => {
                    let a = crate::runtime::shape::norm_dim(*a, s.ndim()).map_err(at)?;
                    let b = crate::runtime::shape::norm_dim(*b, s.ndim()).map_err(at)?;
                    sp::transpose(&mut self.rt, s, a, b).map(sparse).map_err(at)
                }
                _ => Err(Error::value("`.transpose(dim0, dim1)` takes two ints").at(span)),
            },
            "sum" => {
                let dims = match (
                    positional.first(),
                    args.iter().find(|a| a.keyword.is_some()),
                ) {
                    (Some(d), _) => Some(dims_of(d).map_err(at)?),
                    (None, Some(a)) => Some(dims_of(&a.value).map_err(at)?),
                    (None, None) => None,
                };
                self.sparse_sum(s, dims).map_err(at)
            }
            "mm" | "matmul" | "spmm" => match positional.as_slice() {
                [other] => self.sparse_product(Product::Mm, &recv, other).map_err(at),
                _ => {
                    Err(Error::value(format!("`.{}(other)` takes one tensor", name.name)).at(span))
                }
            },
            "add" | "sub" | "mul" | "div" => {
                let op = match name.name.as_str() {
                    "add" => BinaryOp::Add,
                    "sub" => BinaryOp::Sub,
                    "mul" => BinaryOp::Mul,
                    _ => BinaryOp::Div,
                };
                match positional.as_slice() {
                    [other] => self
                        .sparse_binary(BinOp::Elementwise(op), &recv, other)
                        .map_err(at),
                    _ => Err(
                        Error::value(format!("`.{}(other)` takes one operand", name.name)).at(span),
                    ),
                }
            }
            "neg" => self.sparse_values(s, UnaryOp::Neg).map_err(at),
            "abs" => self.sparse_values(s, UnaryOp::Abs).map_err(at),
            "clone" => {
                let indices = self.rt.copy(&s.indices).map_err(at)?;
                let values = self.rt.copy(&s.values).map_err(at)?;
                Ok(sparse(SparseTensor {
                    indices,
                    values,
                    shape: s.shape.clone(),
                    coalesced: s.coalesced,
                }))
            }
            "detach" => Ok(recv),
            "requires_grad_" => match positional.first() {
                Some(Value::Bool(b)) if !b.get() => Ok(recv),
                _ => Err(no_grad().at(span)),
            },
            // What moves or converts: the values as a dense tensor's
            // method does it, the indices moved with them.
            "to" | "cuda" | "cpu" | "float" | "double" | "half" | "bfloat16" | "long" | "int"
            | "bool" | "type" => {
                if name.name == "type" && args.is_empty() {
                    return Ok(Value::Str(Arc::new(format!(
                        "torch.{}sparse.{}",
                        if s.device().is_cuda() { "cuda." } else { "" },
                        s.dtype().torch_type(false).trim_start_matches("torch.")
                    ))));
                }
                let moved =
                    self.call_method(Value::Tensor(Arc::clone(&s.values)), name, args, span)?;
                let Value::Tensor(values) = moved else {
                    return Err(Error::value(
                        "internal error: a sparse tensor's values became no tensor",
                    )
                    .at(span));
                };
                if Arc::ptr_eq(&values, &s.values) {
                    return Ok(recv);
                }
                let indices = match values.device() == s.indices.device() {
                    true => Arc::clone(&s.indices),
                    false => self.rt.move_to(&s.indices, values.device()).map_err(at)?,
                };
                Ok(sparse(SparseTensor {
                    indices,
                    values,
                    shape: s.shape.clone(),
                    coalesced: s.coalesced,
                }))
            }
            other => Err(no_kernel(&format!("`.{other}()`")).at(name.span)),
        }
    }

    /// `s.name` of a sparse tensor.
    pub(crate) fn sparse_property(
        &mut self,
        s: &Arc<SparseTensor>,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        Ok(match name {
            "shape" => Value::Size(Arc::new(s.shape.iter().map(|&n| Value::Int(n as i64)).collect())),
            "dtype" => Value::dtype(s.dtype()),
            "device" => Value::Device(super::value::Word::new(s.device())),
            "is_cuda" => Value::bool(s.device().is_cuda()),
            "is_sparse" => Value::bool(true),
            "is_leaf" => Value::bool(true),
            "requires_grad" => Value::bool(false),
            "grad" | "grad_fn" => Value::None,
            "ndim" => Value::Int(s.ndim() as i64),
            "layout" => return self.layout("sparse_coo", span),
            "data" => Value::Sparse(Arc::clone(s)),
            "nbytes" => {
                return Err(Error::runtime(
                    "nbytes is not defined for sparse tensors.  If you want the size of the constituent tensors, add the nbytes of the indices and values.  If you want the size of the  equivalent dense tensor, multiply numel() by element_size()",
                )
                .at(span))
            }
            other => {
                return Err(Error::Attribute {
                    message: format!("'Tensor' object has no attribute '{other}'"),
                    help: None,
                }
                .at(span))
            }
        })
    }

    /// `torch.strided` / `torch.sparse_coo` (`stdlib/torch_layout.py`).
    pub(crate) fn layout(&mut self, name: &str, span: Span) -> Result<Value, Diagnostic> {
        let path =
            super::stdlib::path_of("torch._layout").expect("torch._layout is one of stdlib/");
        let module = self.import_own("torch._layout", path, span)?;
        self.own_module_attr(&module, name, span)
    }
}

fn no_grad() -> Error {
    Error::value_help(
        "gradients of a sparse tensor's values are not there in cudash",
        "the dense operand of a sparse product takes gradients: `torch.mm(adj, x)` with `x.requires_grad`",
    )
}

fn op_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Sub => "sub",
        _ => "add",
    }
}

/// `dim` given as an int or a tuple of ints.
fn dims_of(v: &Value) -> R<Vec<i64>> {
    match v {
        Value::Int(i) => Ok(vec![*i]),
        Value::List(items) | Value::Size(items) => items
            .iter()
            .map(|v| match v {
                Value::Int(i) => Ok(*i),
                other => Err(Error::wrong_type("a dim", "an int", other.type_name())),
            })
            .collect(),
        other => Err(Error::wrong_type(
            "dim",
            "an int or a tuple of ints",
            other.type_name(),
        )),
    }
}
