//! The unary elementwise ops (`-x`, `exp`, `~x`, ...): their names, result
//! dtypes and which dtypes each takes.

use crate::error::Error;
use crate::runtime::DType;

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
    /// The error function.
    Erf,
    /// `x * Φ(x)`: GELU as PyTorch's default (`approximate="none"`), through erf.
    Gelu,
    /// GELU's tanh approximation (`approximate="tanh"`).
    GeluTanh,
    /// `log(1 + x)`, exact for small `x` (C's `log1p`).
    Log1p,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// -1, 0 or 1 by the sign of x (0 for NaN, as PyTorch's).
    Sign,
    Tan,
    Atan,
    Asin,
    Acos,
    Sinh,
    Cosh,
    /// `1 / x`.
    Reciprocal,
    Log2,
    Log10,
    /// `exp(x) - 1`, exact for small `x` (C's `expm1`).
    Expm1,
    /// `2 ** x`.
    Exp2,
    /// `x * sigmoid(x)` (SiLU, swish): PyTorch's `x / (1 + exp(-x))`.
    Silu,
    /// `x * tanh(softplus(x))`.
    Mish,
    /// The inverse of erf on (-1, 1): PyTorch's CPU rational approximation
    /// refined by two Newton steps; CUDA's `erfinvf` on a GPU.
    Erfinv,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 35] = [
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
        UnaryOp::Erf,
        UnaryOp::Gelu,
        UnaryOp::GeluTanh,
        UnaryOp::Log1p,
        UnaryOp::Rsqrt,
        UnaryOp::Sign,
        UnaryOp::Tan,
        UnaryOp::Atan,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Reciprocal,
        UnaryOp::Log2,
        UnaryOp::Log10,
        UnaryOp::Expm1,
        UnaryOp::Exp2,
        UnaryOp::Silu,
        UnaryOp::Mish,
        UnaryOp::Erfinv,
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
            UnaryOp::Erf => "erf",
            UnaryOp::Gelu => "gelu",
            UnaryOp::GeluTanh => "gelu_tanh",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Sign => "sign",
            UnaryOp::Tan => "tan",
            UnaryOp::Atan => "atan",
            UnaryOp::Asin => "asin",
            UnaryOp::Acos => "acos",
            UnaryOp::Sinh => "sinh",
            UnaryOp::Cosh => "cosh",
            UnaryOp::Reciprocal => "reciprocal",
            UnaryOp::Log2 => "log2",
            UnaryOp::Log10 => "log10",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Silu => "silu",
            UnaryOp::Mish => "mish",
            UnaryOp::Erfinv => "erfinv",
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
                | UnaryOp::Sign
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

/// The dtype `op` gives on a tensor of `dt`: neg, abs, relu, sign, `~` and
/// the roundings keep it, the rest are floating point.
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
    if matches!(op, UnaryOp::Silu | UnaryOp::Mish) && !dt.is_float() {
        let kernel = if op == UnaryOp::Silu { "silu" } else { "mish" };
        return Err(Error::dtype(
            format!(
                "\"{kernel}_cpu\" not implemented for '{}'",
                dt.scalar_name()
            ),
            Some("convert first: `x.to(f32)`".into()),
        ));
    }
    if matches!(op, UnaryOp::Gelu | UnaryOp::GeluTanh) && !dt.is_float() {
        return Err(Error::dtype(
            format!(
                "\"GeluKernelImpl\" not implemented for {dt}: gelu takes floating point tensors"
            ),
            Some("convert first: `x.to(f32)`".into()),
        ));
    }
    Ok(())
}

/// Refuses `x.op_()` where the result's dtype is not x's (`exp_` of an
/// integer tensor), with PyTorch's words.
pub fn check_unary_in_place(op: UnaryOp, dt: DType) -> Result<(), Error> {
    check_unary(op, dt)?;
    let result = unary_dtype(op, dt);
    if result != dt {
        return Err(Error::dtype(
            format!(
                "result type {} can't be cast to the desired output type {}",
                result.scalar_name(),
                dt.scalar_name()
            ),
            Some(format!(
                "an in-place op keeps x's dtype; write `x = x.{}()` for a new {result} tensor",
                op.name()
            )),
        ));
    }
    Ok(())
}
