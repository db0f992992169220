//! Element types and PyTorch's promotion rules.

use std::fmt;

/// `DType::default_float`'s code: 0 float32, 1 float64, 2 float16, 3 bfloat16.
static DEFAULT_FLOAT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

impl DType {
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "u8",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// The legacy tensor type PyTorch names in messages and `x.type()`:
    /// `torch.FloatTensor`, `torch.cuda.HalfTensor`.
    pub fn torch_type(self, cuda: bool) -> String {
        let cuda = if cuda { "cuda." } else { "" };
        format!("torch.{cuda}{}Tensor", self.scalar_name())
    }

    /// PyTorch's C++ name of the element type, as its "not implemented
    /// for 'Long'" messages give it.
    pub fn scalar_name(self) -> &'static str {
        match self {
            DType::F32 => "Float",
            DType::F64 => "Double",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::U8 => "Byte",
            DType::I8 => "Char",
            DType::I16 => "Short",
            DType::I32 => "Int",
            DType::I64 => "Long",
            DType::Bool => "Bool",
        }
    }

    /// The C++ type PyTorch's errors name (`long int`, `float`).
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "unsigned char",
            DType::I8 => "signed char",
            DType::I16 => "short int",
            DType::I32 => "int",
            DType::I64 => "long int",
            DType::F16 => "c10::Half",
            DType::BF16 => "c10::BFloat16",
            DType::F32 => "float",
            DType::F64 => "double",
        }
    }

    /// The type PyTorch's overflow errors name (`value cannot be converted
    /// to type int8_t without overflow`).
    pub fn checked_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8_t",
            DType::I8 => "int8_t",
            DType::I16 => "int16_t",
            DType::I32 => "int",
            DType::I64 => "int64_t",
            DType::F16 => "c10::Half",
            DType::BF16 => "c10::BFloat16",
            DType::F32 => "float",
            DType::F64 => "double",
        }
    }

    /// PyTorch's name, as `str(torch.float32)` gives it.
    pub fn pytorch_name(self) -> &'static str {
        match self {
            DType::F32 => "torch.float32",
            DType::F64 => "torch.float64",
            DType::F16 => "torch.float16",
            DType::BF16 => "torch.bfloat16",
            DType::U8 => "torch.uint8",
            DType::I8 => "torch.int8",
            DType::I16 => "torch.int16",
            DType::I32 => "torch.int32",
            DType::I64 => "torch.int64",
            DType::Bool => "torch.bool",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The largest finite value of a float dtype (`torch.finfo(dt).max`);
    /// an integer dtype's largest.
    pub fn max_finite(self) -> f64 {
        match self {
            DType::F32 => f32::MAX.into(),
            DType::F64 => f64::MAX,
            DType::F16 => half::f16::MAX.into(),
            DType::BF16 => half::bf16::MAX.into(),
            DType::U8 => u8::MAX.into(),
            DType::I8 => i8::MAX.into(),
            DType::I16 => i16::MAX.into(),
            DType::I32 => i32::MAX.into(),
            DType::I64 => i64::MAX as f64,
            DType::Bool => 1.0,
        }
    }

    /// The smallest and largest value of an integer dtype (`torch.iinfo`).
    pub fn int_bounds(self) -> Option<(i64, i64)> {
        match self {
            DType::U8 => Some((0, u8::MAX.into())),
            DType::I8 => Some((i8::MIN.into(), i8::MAX.into())),
            DType::I16 => Some((i16::MIN.into(), i16::MAX.into())),
            DType::I32 => Some((i32::MIN.into(), i32::MAX.into())),
            DType::I64 => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64
        )
    }

    /// Whether negative values exist (`torch.uint8.is_signed` is False).
    pub fn is_signed(self) -> bool {
        !matches!(self, DType::Bool | DType::U8)
    }

    /// 0 bool, 1 integer, 2 floating point.
    pub fn category(self) -> u8 {
        match self {
            DType::Bool => 0,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => 1,
            _ => 2,
        }
    }

    /// The dtype two tensors are computed in (`torch.promote_types`).
    pub fn promote(a: DType, b: DType) -> DType {
        if a == b {
            return a;
        }
        match a.category().cmp(&b.category()) {
            std::cmp::Ordering::Greater => a,
            std::cmp::Ordering::Less => b,
            std::cmp::Ordering::Equal => match (a, b) {
                (DType::F16, DType::BF16) | (DType::BF16, DType::F16) => DType::F32,
                // uint8 and int8 meet in the smallest type holding both.
                (DType::U8, DType::I8) | (DType::I8, DType::U8) => DType::I16,
                _ => {
                    if a.size() >= b.size() {
                        a
                    } else {
                        b
                    }
                }
            },
        }
    }

    /// The dtype of a float result computed from this dtype (`exp`, `/`, `mean`).
    pub fn to_float(self) -> DType {
        if self.is_float() {
            self
        } else {
            DType::default_float()
        }
    }

    /// `torch.get_default_dtype()`: the dtype of float literals, factories
    /// and parameters when none is named (float32 unless the program set
    /// another; one for the process, as PyTorch's).
    pub fn default_float() -> DType {
        match DEFAULT_FLOAT.load(std::sync::atomic::Ordering::Relaxed) {
            1 => DType::F64,
            2 => DType::F16,
            3 => DType::BF16,
            _ => DType::F32,
        }
    }

    /// `torch.set_default_dtype(d)`: false (nothing set) for a dtype that
    /// is not floating point.
    pub fn set_default_float(d: DType) -> bool {
        let code = match d {
            DType::F32 => 0,
            DType::F64 => 1,
            DType::F16 => 2,
            DType::BF16 => 3,
            _ => return false,
        };
        DEFAULT_FLOAT.store(code, std::sync::atomic::Ordering::Relaxed);
        true
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
