//! The elementwise binary operators: what `+`, `==`, `maximum` and the rest
//! mean on numbers and tensors. The language parses them, the runtime
//! computes them.

/// An elementwise binary op: arithmetic, bitwise, or one that gives bool
/// (a comparison or a logical op).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    /// `//`: division rounded towards minus infinity.
    FloorDiv,
    /// `%`: the remainder with the divisor's sign (Python's, PyTorch's `remainder`).
    Rem,
    /// `fmod`: the remainder with the dividend's sign (C's `fmod`).
    Fmod,
    BitAnd,
    BitOr,
    BitXor,
    /// `<<`: integers only; a shift count out of 0..bits gives 0.
    Shl,
    /// `>>`: arithmetic for signed integers; a count out of range shifts
    /// by all but the sign bit (PyTorch's `rshift`).
    Shr,
    Maximum,
    Minimum,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 24] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::FloorDiv,
        BinaryOp::Rem,
        BinaryOp::Fmod,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::LogicalAnd,
        BinaryOp::LogicalOr,
        BinaryOp::LogicalXor,
    ];

    /// How the op is written: its operator, or its function's name.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "**",
            BinaryOp::FloorDiv => "//",
            BinaryOp::Rem => "%",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            other => other.name(),
        }
    }

    /// PyTorch's name for it (`torch.floor_divide`), as kernels are named.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Pow => "pow",
            BinaryOp::FloorDiv => "floor_divide",
            BinaryOp::Rem => "remainder",
            BinaryOp::Fmod => "fmod",
            BinaryOp::BitAnd => "bitwise_and",
            BinaryOp::BitOr => "bitwise_or",
            BinaryOp::BitXor => "bitwise_xor",
            BinaryOp::Shl => "bitwise_left_shift",
            BinaryOp::Shr => "bitwise_right_shift",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Eq => "eq",
            BinaryOp::Ne => "ne",
            BinaryOp::Lt => "lt",
            BinaryOp::Le => "le",
            BinaryOp::Gt => "gt",
            BinaryOp::Ge => "ge",
            BinaryOp::LogicalAnd => "logical_and",
            BinaryOp::LogicalOr => "logical_or",
            BinaryOp::LogicalXor => "logical_xor",
        }
    }

    pub fn from_name(name: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }

    pub fn is_logical(self) -> bool {
        matches!(
            self,
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::LogicalXor
        )
    }

    /// Comparisons and logical ops: a bool result whatever the operands.
    pub fn gives_bool(self) -> bool {
        self.is_comparison() || self.is_logical()
    }

    /// `&`, `|`, `^`: integers and bool only.
    pub fn is_bitwise(self) -> bool {
        matches!(self, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor)
    }

    /// `<<` and `>>`: integers only (not bool, not floats).
    pub fn is_shift(self) -> bool {
        matches!(self, BinaryOp::Shl | BinaryOp::Shr)
    }

    /// `//`, `%` and `fmod`: an integer divisor of 0 is an error on the cpu.
    pub fn divides(self) -> bool {
        matches!(self, BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Fmod)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_is_found_by_its_name() {
        for op in BinaryOp::ALL {
            assert_eq!(BinaryOp::from_name(op.name()), Some(op));
        }
        assert_eq!(BinaryOp::from_name("max"), None);
    }
}
