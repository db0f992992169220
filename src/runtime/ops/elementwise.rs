//! Elementwise unary and binary ops with broadcasting and dtype promotion.

use super::super::buffer::Stored;
use super::super::buffer::{map_slice, zip_slices, Buffer};
use super::super::element::{Bit, Num};
use super::super::shape::{
    broadcast_shapes, broadcast_strides, fmt_shape, for_each_offset2, numel,
};
use super::super::{DType, Tensor};
use super::pow_shortcut::PowShortcut;
use crate::error::Error;
use crate::{with_dtype, with_num_dtype};

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
    if top == 0 && cands.len() < 2 {
        // Only a plain number has the highest category: use the default dtype of that category.
        return match cat {
            0 => DType::Bool,
            1 => DType::I64,
            _ => DType::F32,
        };
    }
    cands
        .iter()
        .filter(|o| o.rank() == top)
        .map(|o| o.tensor.dtype())
        .reduce(DType::promote)
        .unwrap_or(DType::F32)
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

pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Result<Tensor, Error> {
    let (ta, tb) = (a.tensor, b.tensor);
    let BinaryPlan {
        device,
        shape,
        compute,
    } = plan_binary(op, a, b)?;
    if numel(&shape) == 0 {
        // No element: no operand is read (a kernel would not launch).
        let dt = if op.gives_bool() {
            DType::Bool
        } else {
            compute
        };
        return Ok(Tensor::new(Buffer::zeros(dt, 0), shape, device));
    }
    if device == crate::runtime::Device::Cpu {
        check_divisor(op, compute, b.tensor)?;
        if op == BinaryOp::Pow && compute.is_float() {
            // PyTorch's CPU kernels: SLEEF's pow in registers, shortcuts.
            let number = b.weak && !a.weak;
            return Ok(super::pow::on_cpu(ta, tb, number, compute, &shape));
        }
    }
    let shortcut = pow_number_on_cuda(op, a, b).and_then(|e| PowShortcut::on_cuda(compute, e));
    if let Some(s) = shortcut {
        let x = cast_to(ta, compute);
        return Ok(Tensor::new(s.host(x.as_ref().unwrap_or(ta)), shape, device));
    }
    if let Some(side) = opmath_scalar(op, compute, a, b) {
        // f32 math on the widened tensor and the scalar as f32, rounded once;
        // the tensor in the compute dtype first, as PyTorch's inputs are.
        let wide = |t: &Tensor, scalar: bool| match scalar {
            true => t.cast(DType::F32),
            false => t.cast(compute).cast(DType::F32),
        };
        let (a32, b32) = (wide(ta, side == 0), wide(tb, side == 1));
        let out = arith::<f32>(op, &a32, &b32, &shape);
        return Ok(Tensor::new(out.cast(compute), shape, device));
    }
    let ca = cast_to(ta, compute);
    let cb = cast_to(tb, compute);
    let (ta, tb) = (ca.as_ref().unwrap_or(ta), cb.as_ref().unwrap_or(tb));
    let buf = if op.gives_bool() {
        with_dtype!(compute, T => compare::<T>(op, ta, tb, &shape))
    } else {
        with_num_dtype!(compute, T => arith::<T>(op, ta, tb, &shape), bool => bool_arith(op, ta, tb, &shape))
    };
    Ok(Tensor::new(buf, shape, device))
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
            format!("result type {result} can't be cast to the desired output type {to}"),
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
        // Every operand could move: a device one wins over the cpu.
        None => Ok(operands
            .iter()
            .map(|o| o.tensor.device())
            .find(|d| d.is_cuda())
            .unwrap_or(crate::runtime::Device::Cpu)),
    }
}

pub(super) fn cast_to(t: &Tensor, dt: DType) -> Option<Tensor> {
    (t.dtype() != dt).then(|| t.cast(dt))
}

fn has_zero(t: &Tensor) -> bool {
    t.cast(DType::I64).to_vec::<i64>().contains(&0)
}

fn has_negative(t: &Tensor) -> bool {
    t.cast(DType::F64).to_vec::<f64>().iter().any(|&v| v < 0.0)
}

fn arith<T: Num + Stored>(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Buffer {
    match op {
        BinaryOp::Add => zip::<T, T>(a, b, shape, |x, y| x.add(y)),
        BinaryOp::Sub => zip::<T, T>(a, b, shape, |x, y| x.sub(y)),
        BinaryOp::Mul => zip::<T, T>(a, b, shape, |x, y| x.mul(y)),
        BinaryOp::Div => zip::<T, T>(a, b, shape, |x, y| x.div(y)),
        BinaryOp::FloorDiv => zip::<T, T>(a, b, shape, |x, y| x.floor_div(y)),
        BinaryOp::Rem => zip::<T, T>(a, b, shape, |x, y| x.rem(y)),
        BinaryOp::BitAnd => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::And, y)),
        BinaryOp::BitOr => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::Or, y)),
        BinaryOp::BitXor => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::Xor, y)),
        BinaryOp::Maximum => zip::<T, T>(a, b, shape, |x, y| x.maximum(y)),
        BinaryOp::Minimum => zip::<T, T>(a, b, shape, |x, y| x.minimum(y)),
        _ => zip::<T, T>(a, b, shape, |x, y| x.pow(y)),
    }
}

/// The ops that reach bool: `*`, `&`, minimum (and); `+`, `|`, maximum (or); `^`.
fn bool_arith(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Buffer {
    match op {
        BinaryOp::Mul | BinaryOp::BitAnd | BinaryOp::Minimum => {
            zip::<bool, bool>(a, b, shape, |x, y| x && y)
        }
        BinaryOp::BitXor => zip::<bool, bool>(a, b, shape, |x, y| x != y),
        _ => zip::<bool, bool>(a, b, shape, |x, y| x || y),
    }
}

fn compare<T: Stored>(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Buffer {
    match op {
        BinaryOp::LogicalAnd => zip::<T, bool>(a, b, shape, |x, y| x.to_bool() && y.to_bool()),
        BinaryOp::LogicalOr => zip::<T, bool>(a, b, shape, |x, y| x.to_bool() || y.to_bool()),
        BinaryOp::LogicalXor => zip::<T, bool>(a, b, shape, |x, y| x.to_bool() != y.to_bool()),
        BinaryOp::Eq => zip::<T, bool>(a, b, shape, |x, y| x == y),
        BinaryOp::Ne => zip::<T, bool>(a, b, shape, |x, y| x != y),
        BinaryOp::Lt => zip::<T, bool>(a, b, shape, |x, y| x < y),
        BinaryOp::Le => zip::<T, bool>(a, b, shape, |x, y| x <= y),
        BinaryOp::Gt => zip::<T, bool>(a, b, shape, |x, y| x > y),
        _ => zip::<T, bool>(a, b, shape, |x, y| x >= y),
    }
}

/// Applies `f` over two tensors of type `T` broadcast to `shape`.
fn zip<T: Stored, U: Stored>(
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Buffer {
    let n = numel(shape);
    let (ga, gb) = (a.read(), b.read());
    let (sa, sb) = (ga.as_slice::<T>(), gb.as_slice::<T>());
    let a_flat = a.is_contiguous() && a.shape() == shape;
    let b_flat = b.is_contiguous() && b.shape() == shape;
    let out = if a_flat && b_flat {
        zip_slices(
            &sa[a.offset()..a.offset() + n],
            &sb[b.offset()..b.offset() + n],
            f,
        )
    } else if a_flat && b.numel() == 1 {
        let y = sb[b.offset()];
        map_slice(&sa[a.offset()..a.offset() + n], |x| f(x, y))
    } else if b_flat && a.numel() == 1 {
        let x = sa[a.offset()];
        map_slice(&sb[b.offset()..b.offset() + n], |y| f(x, y))
    } else {
        let st_a = broadcast_strides(a.shape(), a.strides(), shape);
        let st_b = broadcast_strides(b.shape(), b.strides(), shape);
        let mut out = Vec::with_capacity(n);
        for_each_offset2(shape, (&st_a, a.offset()), (&st_b, b.offset()), |i, j| {
            out.push(f(sa[i], sb[j]))
        });
        out
    };
    U::into_buffer(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Abs,
    Relu,
    Exp,
    Log,
    Sqrt,
    Sigmoid,
    Tanh,
    Sin,
    Cos,
    Floor,
    Ceil,
    Round,
    Trunc,
    /// `~`: each bit flipped; on bool, logical not.
    BitNot,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 15] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Relu,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Sigmoid,
        UnaryOp::Tanh,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::BitNot,
    ];

    /// The op a builtin or method name means (`exp`, `relu`, …); None for
    /// any other name.
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Relu => "relu",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Trunc => "trunc",
            UnaryOp::BitNot => "bitwise_not",
        }
    }

    /// Whether an integer tensor keeps its dtype (the rest compute in floats).
    pub fn keeps_int(self) -> bool {
        matches!(
            self,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Relu
                | UnaryOp::Floor
                | UnaryOp::Ceil
                | UnaryOp::Round
                | UnaryOp::Trunc
                | UnaryOp::BitNot
        )
    }

    /// Rounding to an integral value: the identity on integers.
    pub fn rounds(self) -> bool {
        matches!(
            self,
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc
        )
    }
}

/// The dtype `op` gives on a tensor of `dt`: neg, abs and relu keep it, the
/// rest are floating point.
pub fn unary_dtype(op: UnaryOp, dt: DType) -> DType {
    if op.keeps_int() {
        dt
    } else {
        dt.to_float()
    }
}

/// Refuses what PyTorch refuses before computing `op` on `dt`.
pub fn check_unary(op: UnaryOp, dt: DType) -> Result<(), Error> {
    if dt == DType::Bool && op == UnaryOp::Neg {
        return Err(Error::dtype(
            "negation, the `-` operator, on a bool tensor is not supported",
            Some("use `x == false` for logical not".into()),
        ));
    }
    if op == UnaryOp::BitNot && dt.is_float() {
        return Err(Error::dtype(
            format!("`~` is not implemented for {dt}: it takes integers and bool"),
            Some("for a mask, compare first: `~(x > 0)`".into()),
        ));
    }
    if dt == DType::Bool && (matches!(op, UnaryOp::Abs | UnaryOp::Relu) || op.rounds()) {
        return Err(Error::dtype(
            format!("`{}` is not implemented for bool", op.name()),
            Some("convert first, e.g. `x.to(i64)`".into()),
        ));
    }
    Ok(())
}

pub fn unary(op: UnaryOp, t: &Tensor) -> Result<Tensor, Error> {
    let dt = t.dtype();
    check_unary(op, dt)?;
    if dt == DType::Bool && op == UnaryOp::BitNot {
        let buf = t.with_slice::<bool, _>(|s| Buffer::Bool(map_slice(s, |x| !x)));
        return Ok(Tensor::new(buf, t.shape().to_vec(), t.device()));
    }
    if dt == DType::Bool && op.keeps_int() {
        return Ok(t.copy());
    }
    let out_dt = unary_dtype(op, dt);
    let src = cast_to(t, out_dt);
    let src = src.as_ref().unwrap_or(t);
    if op == UnaryOp::Sigmoid && t.device() == crate::runtime::Device::Cpu {
        // PyTorch's CPU kernel: SLEEF's exp in registers.
        let buf = super::sigmoid::on_cpu(t, src);
        return Ok(Tensor::new(buf, t.shape().to_vec(), t.device()));
    }
    let buf = match out_dt {
        DType::F32 => src.with_slice::<f32, _>(|s| Buffer::F32(map_slice(s, |x| f32_op(op, x)))),
        _ => with_num_dtype!(out_dt, T => src.with_slice::<T, _>(|s| {
            T::into_buffer(map_slice(s, |x| generic_op(op, x)))
        }), bool => unreachable!("bool handled above")),
    };
    Ok(Tensor::new(buf, t.shape().to_vec(), t.device()))
}

fn f32_op(op: UnaryOp, x: f32) -> f32 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        // As PyTorch's relu: NaN and -0. pass through.
        UnaryOp::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        _ => math_f32(op, x),
    }
}

fn generic_op<T: Num + Stored>(op: UnaryOp, x: T) -> T {
    match op {
        UnaryOp::Neg => x.neg(),
        UnaryOp::BitNot => x.bit_not(),
        // Integers are integral already.
        op if op.rounds() && !T::DTYPE.is_float() => x,
        // Floats drop the sign (-0. too), as PyTorch's abs.
        UnaryOp::Abs if T::DTYPE.is_float() => T::from_f64(x.to_f64().abs()),
        UnaryOp::Abs => {
            if x < T::zero() {
                x.neg()
            } else {
                x
            }
        }
        // As PyTorch's relu: NaN and -0. pass through.
        UnaryOp::Relu => {
            if x < T::zero() {
                T::zero()
            } else {
                x
            }
        }
        _ => T::from_f64(math_f64(op, x.to_f64())),
    }
}

/// The floating point ops, in one precision: f32 runs its own math (as
/// PyTorch's float kernels), f64, f16 and bf16 go through f64 and round once.
macro_rules! float_math {
    ($name:ident, $t:ty) => {
        fn $name(op: UnaryOp, x: $t) -> $t {
            match op {
                UnaryOp::Exp => x.exp(),
                UnaryOp::Log => x.ln(),
                UnaryOp::Sqrt => x.sqrt(),
                UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
                UnaryOp::Tanh => x.tanh(),
                UnaryOp::Sin => x.sin(),
                UnaryOp::Cos => x.cos(),
                UnaryOp::Floor => x.floor(),
                UnaryOp::Ceil => x.ceil(),
                // Halves to even, as PyTorch's (nearbyint).
                UnaryOp::Round => x.round_ties_even(),
                UnaryOp::Trunc => x.trunc(),
                UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu | UnaryOp::BitNot => x,
            }
        }
    };
}
float_math!(math_f32, f32);
float_math!(math_f64, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unary_op_is_found_by_its_name_and_no_other_name_is() {
        for op in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(op.name()), Some(op));
        }
        assert_eq!(UnaryOp::from_name("tan"), None);
        assert_eq!(UnaryOp::from_name(""), None);
    }

    /// `x / 2.5` on a CUDA device is `x * (1 / 2.5)`, the reciprocal in f32
    /// (f64 for f64), as an H200 gave; on the cpu it stays a division.
    #[test]
    fn a_cuda_tensor_divides_by_a_number_through_its_reciprocal() {
        use crate::runtime::Device;
        let s = Tensor::scalar(2.5);
        let number = Operand {
            tensor: &s,
            weak: true,
        };
        let inv = |x: &Tensor| reciprocal_divisor(BinaryOp::Div, Operand::strong(x), number);
        let f32s = Tensor::from_vec(vec![1.0f32, 3.0], vec![2]).with_device(Device::Cuda(0));
        let (op, r) = inv(&f32s).unwrap();
        assert_eq!(op, BinaryOp::Mul);
        assert_eq!(r.to_vec::<f64>(), [(1.0f32 / 2.5) as f64]);
        let f64s = Tensor::from_vec(vec![1.0f64], vec![1]).with_device(Device::Cuda(0));
        assert_eq!(inv(&f64s).unwrap().1.to_vec::<f64>(), [1.0 / 2.5]);
        // An i32 tensor divides in f32, so by an f32 reciprocal.
        let i32s = Tensor::from_vec(vec![1i32], vec![1]).with_device(Device::Cuda(0));
        assert_eq!(
            inv(&i32s).unwrap().1.to_vec::<f64>(),
            [(1.0f32 / 2.5) as f64]
        );
        assert!(inv(&f64s.with_device(Device::Cpu)).is_none());
        let x = Operand::strong(&f32s);
        assert!(reciprocal_divisor(BinaryOp::Mul, x, number).is_none());
        // The number first (`2.5 / x`) is not a division by it.
        assert!(reciprocal_divisor(BinaryOp::Div, number, x).is_none());
    }

    /// f16/bf16 `+` and `-` by a number: opmath on a CUDA device, either
    /// side; on the cpu the number rounds to the dtype.
    #[test]
    fn a_cuda_tensor_adds_a_number_in_f32() {
        use crate::runtime::Device;
        let s = Tensor::scalar(0.1);
        let number = Operand {
            tensor: &s,
            weak: true,
        };
        let h = Tensor::from_vec(vec![half::bf16::from_f32(-0.125)], vec![1]);
        let gpu = h.with_device(Device::Cuda(0));
        let on = |t: &Tensor, op| {
            binary(op, Operand::strong(t), number)
                .unwrap()
                .to_vec::<f64>()
        };
        assert_eq!(
            on(&gpu, BinaryOp::Add),
            [half::bf16::from_f32(-0.125 + 0.1f32).to_f64()]
        );
        assert_ne!(on(&gpu, BinaryOp::Add), on(&h, BinaryOp::Add));
        let first = binary(BinaryOp::Sub, number, Operand::strong(&gpu)).unwrap();
        assert_eq!(
            first.to_vec::<f64>(),
            [half::bf16::from_f32(0.1f32 + 0.125).to_f64()]
        );
        assert_eq!(
            opmath_scalar(BinaryOp::Sub, DType::BF16, number, Operand::strong(&gpu)),
            Some(0)
        );
        assert_eq!(
            opmath_scalar(BinaryOp::Sub, DType::BF16, number, Operand::strong(&h)),
            None
        );
    }
}
