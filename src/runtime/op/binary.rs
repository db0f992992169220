//! What `a op b` is, whatever computes it: PyTorch's dtype promotion (a
//! number written beside a tensor adapts to it), where it runs, its shape,
//! the dtype it computes in, and the checks PyTorch makes first.

use crate::error::Error;
use crate::runtime::shape::{broadcast_shapes, fmt_shape};
use crate::runtime::{DType, Tensor};

pub use crate::vocab::BinaryOp;

/// An operand and how strongly its dtype counts in promotion: PyTorch lets a
/// plain number (`x * 2`) or a 0-d tensor adapt to a dimensioned tensor's dtype.
#[derive(Clone, Copy)]
pub struct Operand<'a> {
    pub tensor: &'a Tensor,
    /// True for a number written in the program (a "weak" scalar).
    pub weak: bool,
}

impl<'a> Operand<'a> {
    /// The same kind of operand (weak or strong) over another tensor.
    pub fn with<'b>(self, tensor: &'b Tensor) -> Operand<'b> {
        Operand {
            tensor,
            weak: self.weak,
        }
    }

    pub fn strong(tensor: &'a Tensor) -> Self {
        Operand {
            tensor,
            weak: false,
        }
    }

    /// A number written in the program.
    pub fn weak(tensor: &'a Tensor) -> Self {
        Operand { tensor, weak: true }
    }

    pub(super) fn rank(&self) -> u8 {
        if self.weak {
            0
        } else if self.tensor.ndim() == 0 {
            1
        } else {
            2
        }
    }
}

/// The dtype an op over these operands computes in (`torch.result_type`).
pub fn result_dtype(a: Operand, b: Operand) -> DType {
    result_dtype_of(&[a, b])
}

/// `torch.result_type` over any number of operands: the highest category
/// (bool, integer, float) wins; within it dimensioned tensors outrank 0-d
/// ones, which outrank numbers; a number alone in its category gives that
/// category's default dtype.
pub fn result_dtype_of(operands: &[Operand]) -> DType {
    let cat = operands
        .iter()
        .map(|o| o.tensor.dtype().category())
        .max()
        .unwrap_or(0);
    let cands: Vec<&Operand> = operands
        .iter()
        .filter(|o| o.tensor.dtype().category() == cat)
        .collect();
    let top = cands.iter().map(|o| o.rank()).max().unwrap_or(0);
    if top == 0 {
        // Only plain numbers have the highest category (`where(c, 1.0,
        // -1.0)`): the default dtype of that category.
        return match cat {
            0 => DType::Bool,
            1 => DType::I64,
            _ => DType::default_float(),
        };
    }
    cands
        .iter()
        .filter(|o| o.rank() == top)
        .map(|o| o.tensor.dtype())
        .reduce(DType::promote)
        .unwrap_or_else(DType::default_float)
}

/// The dtype `op` computes in when its operands promote to `dt`: true
/// division is in floating point.
pub fn compute_dtype(op: BinaryOp, dt: DType) -> DType {
    match op {
        BinaryOp::Div => dt.to_float(),
        _ => dt,
    }
}

/// What `a op b` is, checked in one order on every backend (devices,
/// shapes, dtypes): where it runs, its shape, and the dtype it computes in.
#[derive(Clone)]
pub struct BinaryPlan {
    pub device: crate::runtime::Device,
    pub shape: Vec<usize>,
    pub compute: DType,
}

pub fn plan_binary(op: BinaryOp, a: Operand, b: Operand) -> Result<BinaryPlan, Error> {
    let (ta, tb) = (a.tensor, b.tensor);
    let device = result_device(a, b)?;
    let shape = broadcast_shapes(ta.shape(), tb.shape()).ok_or_else(|| Error::Broadcast {
        op: op.symbol().into(),
        lhs: fmt_shape(ta.shape()),
        rhs: fmt_shape(tb.shape()),
    })?;
    let compute = compute_dtype(op, result_dtype(a, b));
    check_binary(op, a, b, compute)?;
    // A number written as the exponent is checked; a tensor of them is
    // computed (PyTorch does not check tensors either).
    check_exponent(op, compute, b)?;
    Ok(BinaryPlan {
        device,
        shape,
        compute,
    })
}

/// Which operand (0 or 1) PyTorch's kernels read as an f32 "opmath"
/// scalar: `*`, `/` and `//` of an f16 or bf16 tensor by a CPU scalar (a
/// number, or a 0-d cpu tensor) take the scalar's value in f32, not rounded
/// to f16 first (`h * 0.1` multiplies by 0.1f); on the cpu the rest (`+`,
/// `-`, `%`, `**`, comparisons) round it to the tensor's dtype. For `//`
/// and `/` only the divisor; `*` either side. A CUDA device's kernels read
/// it so for `+` and `-` too, either side (`opmath_symmetric_gpu_kernel_with_scalars`).
pub fn opmath_scalar(op: BinaryOp, compute: DType, a: Operand, b: Operand) -> Option<usize> {
    if !matches!(compute, DType::F16 | DType::BF16) {
        return None;
    }
    let cuda = a.tensor.device().is_cuda() || b.tensor.device().is_cuda();
    let (a_scalar, b_scalar) = (a.tensor.is_cpu_scalar(), b.tensor.is_cpu_scalar());
    match op {
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDiv if b_scalar => Some(1),
        BinaryOp::Add | BinaryOp::Sub if cuda && b_scalar => Some(1),
        BinaryOp::Add | BinaryOp::Sub if cuda && a_scalar => Some(0),
        BinaryOp::Mul if a_scalar => Some(0),
        _ => None,
    }
}

/// The number `e` in `a ** e` where `a` is a tensor on a CUDA device and
/// `e` a number written in the program (PyTorch's `pow(Tensor, Scalar)`,
/// whose CUDA kernel takes shortcuts: `ops::pow_shortcut`).
pub fn pow_number_on_cuda(op: BinaryOp, a: Operand, b: Operand) -> Option<f64> {
    let number = b.weak && !a.weak && b.tensor.numel() == 1;
    let on_cuda = a.tensor.device().is_cuda();
    (op == BinaryOp::Pow && number && on_cuda).then(|| b.tensor.to_vec::<f64>()[0])
}

/// `x / s` of a tensor on a CUDA device by a CPU scalar, as PyTorch's CUDA
/// kernel computes it (`div_true_kernel_cuda`): `x * (1 / s)`, the
/// reciprocal taken in the opmath type (f32, or f64 for f64). Returns the
/// operator and the operand to use instead: the reciprocal, as a number
/// (which keeps the result's dtype).
pub fn reciprocal_divisor(op: BinaryOp, a: Operand, b: Operand) -> Option<(BinaryOp, Tensor)> {
    if op != BinaryOp::Div || !b.tensor.is_cpu_scalar() || !a.tensor.device().is_cuda() {
        return None;
    }
    let s = b.tensor.to_vec::<f64>()[0];
    let inv = match compute_dtype(op, result_dtype(a, b)) {
        DType::F64 => 1.0 / s,
        _ => (1.0f32 / s as f32) as f64,
    };
    Some((BinaryOp::Mul, Tensor::scalar(inv)))
}

/// A bool tensor to the power of `true` or `false` written in the program,
/// as `x | !e`: PyTorch refuses bool `**` in its kernels, but a tensor to a
/// number's power of 1 is copied and of 0 filled with ones before any kernel
/// runs (`pow(Tensor, Scalar)`), so `x ** true` is `x` and `x ** false` is
/// all true. Returns the operator and the exponent to use instead.
pub fn bool_power(op: BinaryOp, a: Operand, b: Operand) -> Option<(BinaryOp, Tensor)> {
    let bool_literal = b.weak && b.tensor.dtype() == DType::Bool && b.tensor.numel() == 1;
    if op != BinaryOp::Pow || a.tensor.dtype() != DType::Bool || !bool_literal {
        return None;
    }
    let e = b.tensor.to_vec::<bool>()[0];
    Some((BinaryOp::BitOr, Tensor::scalar(!e)))
}

/// Refuses what PyTorch refuses before computing `op` over `a` and `b` in
/// `compute`: `-` with a bool operand, `**` computed in bool.
pub fn check_binary(op: BinaryOp, a: Operand, b: Operand, compute: DType) -> Result<(), Error> {
    let (ba, bb) = (
        a.tensor.dtype() == DType::Bool,
        b.tensor.dtype() == DType::Bool,
    );
    if op == BinaryOp::Sub && ba && bb {
        return Err(Error::dtype(
            "subtracting two bool tensors with `-` is not supported",
            Some("use `!=` for exclusive or, or `.to(i64)` first".into()),
        ));
    }
    if op == BinaryOp::Sub && (ba || bb) {
        return Err(Error::dtype(
            "subtraction, the `-` operator, with a bool tensor is not supported",
            Some("to invert a mask use `x == false`; to count, `.to(i64)` first".into()),
        ));
    }
    if op == BinaryOp::Pow && compute == DType::Bool {
        return Err(Error::dtype(
            "`**` is not implemented for bool",
            Some("convert first, e.g. `x.to(i64) ** y`".into()),
        ));
    }
    if op.divides() && compute == DType::Bool {
        return Err(Error::dtype(
            format!("`{}` is not implemented for bool", op.symbol()),
            Some("convert first, e.g. `x.to(i64)`".into()),
        ));
    }
    if op.is_shift() && (compute.is_float() || compute == DType::Bool) {
        return Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "`{}` is not implemented for {compute}: shifts take integers (PyTorch's \"{}\" \
                 not implemented for '{}')",
                op.symbol(),
                if op == BinaryOp::Shl {
                    "lshift"
                } else {
                    "rshift"
                },
                compute.scalar_name()
            ),
            help: Some("convert first, e.g. `x.to(i64)`".into()),
        });
    }
    if op.is_bitwise() && compute.is_float() {
        return Err(Error::dtype(
            format!(
                "`{}` is not implemented for {compute}: bitwise ops take integers and bool",
                op.symbol()
            ),
            Some(
                if a.tensor.dtype() == DType::Bool || b.tensor.dtype() == DType::Bool {
                    "for a mask, compare first: `(x > 0) & m`".into()
                } else {
                    "convert first, e.g. `x.to(i64)`".into()
                },
            ),
        ));
    }
    Ok(())
}

/// Whether `x op= y` can run in place: PyTorch's in-place ops keep x's
/// shape (y broadcasts to it) and cast their result to x's dtype only
/// where no information class is lost (not float into integers, not
/// numbers into bool).
pub fn check_in_place(op: BinaryOp, x: &Tensor, y: Operand) -> Result<(), Error> {
    let fits = broadcast_shapes(x.shape(), y.tensor.shape()).is_some_and(|s| s == x.shape());
    if !fits {
        return Err(Error::Shape {
            message: format!(
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_shape(x.shape()),
                broadcast_shapes(x.shape(), y.tensor.shape())
                    .map_or_else(|| fmt_shape(y.tensor.shape()), |s| fmt_shape(&s))
            ),
            help: Some("an in-place op keeps the shape of the tensor it updates; write `x = x + y` for a new one".into()),
        });
    }
    let compute = compute_dtype(op, result_dtype(Operand::strong(x), y));
    let result = if op.gives_bool() {
        DType::Bool
    } else {
        compute
    };
    let to = x.dtype();
    let lossy =
        (result.is_float() && !to.is_float()) || (result != DType::Bool && to == DType::Bool);
    if lossy {
        return Err(Error::dtype(
            format!(
                "result type {} can't be cast to the desired output type {}",
                result.scalar_name(),
                to.scalar_name()
            ),
            Some(format!(
                "an in-place op keeps x's dtype; write `x = x {} y` for a new {result} tensor",
                op.symbol()
            )),
        ));
    }
    Ok(())
}

/// An integer `//` or `%` by 0 on the cpu is an error, as PyTorch's
/// ZeroDivisionError; CUDA devices compute without looking (the kernels
/// give -1 and x), as PyTorch's CUDA kernels do not check either.
pub fn check_divisor(op: BinaryOp, compute: DType, divisor: &Tensor) -> Result<(), Error> {
    if op.divides() && compute.is_int() && has_zero(divisor) {
        return Err(Error::value_help(
            format!("integer division by zero in `{}`", op.symbol()),
            "a divisor of 0 has no integer result; divide floats to get inf or nan",
        ));
    }
    Ok(())
}

/// An integer raised to a negative number written in the program is
/// refused, as PyTorch refuses a negative scalar exponent; a tensor of
/// exponents is computed (`Element::pow`: 1, ±1 or 0).
pub fn check_exponent(op: BinaryOp, compute: DType, exponent: Operand) -> Result<(), Error> {
    if op == BinaryOp::Pow && compute.is_int() && exponent.weak && has_negative(exponent.tensor) {
        return Err(Error::dtype(
            "integers to negative integer powers are not allowed",
            Some("use a float base, e.g. `x.to(f32) ** -1`".into()),
        ));
    }
    // PyTorch converts a number exponent to the tensor's dtype first
    // (`Scalar::to<Half>`), refusing finite numbers past its range.
    let max = match compute {
        DType::F16 => half::f16::MAX.to_f64(),
        DType::BF16 => half::bf16::MAX.to_f64(),
        _ => f64::INFINITY,
    };
    if op == BinaryOp::Pow && exponent.weak && exponent.tensor.numel() == 1 {
        let e = exponent.tensor.to_vec::<f64>()[0];
        if e.is_finite() && e.abs() > max {
            return Err(Error::dtype(
                format!("the exponent {e} cannot be converted to {compute} without overflow"),
                Some("compute in f32: `x.float() ** e`".into()),
            ));
        }
    }
    Ok(())
}

/// Where a binary op runs. As in PyTorch, a number or a 0-d cpu tensor may join
/// a tensor on any device; otherwise both operands must be on one device.
pub fn result_device(a: Operand, b: Operand) -> Result<crate::runtime::Device, Error> {
    result_device_of(&[a, b])
}

/// Where an op over these operands runs (`result_device` for any number).
pub fn result_device_of(operands: &[Operand]) -> Result<crate::runtime::Device, Error> {
    let movable = |o: &Operand| o.weak || o.tensor.is_cpu_scalar();
    let fixed: Vec<crate::runtime::Device> = operands
        .iter()
        .filter(|o| !movable(o))
        .map(|o| o.tensor.device())
        .collect();
    match fixed.first() {
        Some(&d) => match fixed.iter().find(|&&e| e != d) {
            Some(&e) => Err(Error::DeviceMismatch { a: d, b: e }),
            None => Ok(d),
        },
        // Every operand could move: a device one (cuda, meta) wins over the cpu.
        None => Ok(operands
            .iter()
            .map(|o| o.tensor.device())
            .find(|&d| d != crate::runtime::Device::Cpu)
            .unwrap_or(crate::runtime::Device::Cpu)),
    }
}

pub(crate) fn cast_to(t: &Tensor, dt: DType) -> Option<Tensor> {
    (t.dtype() != dt).then(|| t.cast(dt))
}

fn has_zero(t: &Tensor) -> bool {
    t.cast(DType::I64).to_vec::<i64>().contains(&0)
}

fn has_negative(t: &Tensor) -> bool {
    t.cast(DType::F64).to_vec::<f64>().iter().any(|&v| v < 0.0)
}
