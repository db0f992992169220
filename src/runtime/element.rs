//! The element types a buffer can hold, and the arithmetic on them.

use half::{bf16, f16};

use super::DType;

/// A type that can live in a tensor.
pub trait Element: Copy + Send + Sync + PartialOrd + Default + std::fmt::Debug + 'static {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn to_i64(self) -> i64 {
        self.to_f64() as i64
    }
    fn from_i64(v: i64) -> Self {
        Self::from_f64(v as f64)
    }
    fn to_bool(self) -> bool {
        self.to_f64() != 0.0
    }
    fn from_bool(v: bool) -> Self {
        Self::from_f64(if v { 1.0 } else { 0.0 })
    }
    /// NaN check for floats (max/min/argmax propagate NaN like PyTorch).
    fn is_nan(self) -> bool {
        false
    }
}

/// Arithmetic on numeric elements. Integers wrap on overflow, as in PyTorch.
pub trait Num: Element {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn pow(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn zero() -> Self;
    /// `//`: rounded towards minus infinity (PyTorch's `div_floor`).
    fn floor_div(self, o: Self) -> Self;
    /// `%`: the remainder with the divisor's sign.
    fn rem(self, o: Self) -> Self;
    /// `fmod`: the remainder with the dividend's sign (truncated division).
    fn fmod(self, o: Self) -> Self;
    /// The larger; NaN if either is (PyTorch's `maximum`). Of two equal
    /// values (0. and -0.) the first.
    fn maximum(self, o: Self) -> Self {
        if self.is_nan() {
            self
        } else if o.is_nan() || self < o {
            o
        } else {
            self
        }
    }
    /// The smaller; NaN if either is. Of two equal values the first.
    fn minimum(self, o: Self) -> Self {
        if self.is_nan() {
            self
        } else if o.is_nan() || o < self {
            o
        } else {
            self
        }
    }
    /// `&`, `|`, `^` and `~` on integers; floats are refused before any
    /// element is computed (`check_binary`, `check_unary`) and keep `self`.
    fn bit(self, _op: Bit, _o: Self) -> Self {
        self
    }
    fn bit_not(self) -> Self {
        self
    }
}

/// A bitwise binary op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bit {
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// An integer type's conversions: integers and bools exactly (wrapping
/// into a narrower type), floats by `$from_f64`.
macro_rules! int_conversions {
    ($t:ty, $dt:ident, $from_f64:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                let from: fn(f64) -> $t = $from_f64;
                from(v)
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn to_bool(self) -> bool {
                self != 0
            }
        }
    };
}

/// The arithmetic every integer type shares: wrapping `+ - *`, division
/// (by zero is rejected before any kernel runs), negation and bits.
macro_rules! wrapping_int_ops {
    () => {
        fn add(self, o: Self) -> Self {
            self.wrapping_add(o)
        }
        fn sub(self, o: Self) -> Self {
            self.wrapping_sub(o)
        }
        fn mul(self, o: Self) -> Self {
            self.wrapping_mul(o)
        }
        fn div(self, o: Self) -> Self {
            self.checked_div(o).unwrap_or(0)
        }
        fn neg(self) -> Self {
            self.wrapping_neg()
        }
        fn zero() -> Self {
            0
        }
        fn bit(self, op: Bit, o: Self) -> Self {
            // Shifts as PyTorch's `lshift` and `rshift` kernels: a count
            // below 0 or past the bits gives 0 to the left and the sign
            // (all but the sign bit shifted out) to the right.
            let bits = (std::mem::size_of::<Self>() * 8) as i64;
            let signed = Self::MIN != 0;
            let count = o as i64;
            match op {
                Bit::And => self & o,
                Bit::Or => self | o,
                Bit::Xor => self ^ o,
                Bit::Shl if count < 0 || count >= bits => 0,
                Bit::Shl => ((self as u64) << count) as Self,
                Bit::Shr => {
                    let most = bits - signed as i64;
                    match count < 0 || count >= most {
                        true if signed => self >> (most as u32),
                        true => 0,
                        false => self >> (count as u32),
                    }
                }
            }
        }
        fn bit_not(self) -> Self {
            !self
        }
    };
}

/// `base ** e` for `e >= 0` by squaring, wrapping on overflow.
macro_rules! pow_by_squaring {
    ($t:ty, $base:expr, $e:expr) => {{
        let (mut base, mut e, mut acc) = ($base, $e, 1 as $t);
        while e != 0 {
            if e & 1 == 1 {
                acc = acc.wrapping_mul(base);
            }
            e >>= 1;
            base = base.wrapping_mul(base);
        }
        acc
    }};
}

macro_rules! signed_int_element {
    ($t:ty, $dt:ident, $from_f64:expr) => {
        int_conversions!($t, $dt, $from_f64);
        impl Num for $t {
            wrapping_int_ops!();
            fn pow(self, o: Self) -> Self {
                // As PyTorch's `powi`: a negative exponent gives 1 for a
                // base of 1, ±1 for -1 and 0 otherwise; the rest is
                // exponentiation by squaring, wrapping on overflow.
                if o < 0 {
                    return match self {
                        1 => 1,
                        -1 => {
                            if o % 2 == 0 {
                                1
                            } else {
                                -1
                            }
                        }
                        _ => 0,
                    };
                }
                pow_by_squaring!($t, self, o)
            }
            fn floor_div(self, o: Self) -> Self {
                // A divisor of 0 is refused on the cpu, as PyTorch's
                // ZeroDivisionError; on a device it gives -1 (CUDA leaves
                // it unspecified).
                if o == 0 {
                    return -1;
                }
                let (q, r) = (self.wrapping_div(o), self.wrapping_rem(o));
                if r != 0 && ((r < 0) != (o < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            fn fmod(self, o: Self) -> Self {
                // As `rem`, a divisor of 0 gives x on a device.
                if o == 0 {
                    return self;
                }
                self.wrapping_rem(o)
            }
            fn rem(self, o: Self) -> Self {
                // On a device, `x % 0` gives x (see floor_div).
                if o == 0 {
                    return self;
                }
                let r = self.wrapping_rem(o);
                if r != 0 && ((r < 0) != (o < 0)) {
                    r.wrapping_add(o)
                } else {
                    r
                }
            }
        }
    };
}
// `int8` and `int16` take a float as C's cast does on x86 (through a
// 32-bit integer, then its low bits: `300.` becomes 44 as int8).
signed_int_element!(i8, I8, |v| (v as i64) as i8);
signed_int_element!(i16, I16, |v| (v as i64) as i16);
signed_int_element!(i32, I32, |v| v as i32);
signed_int_element!(i64, I64, |v| v as i64);

// `uint8`: arithmetic wraps modulo 256 (`-x` is `256 - x`); floats arrive
// through i64 as c10's `static_cast_with_inter_type` converts them (`-1.`
// becomes 255, `300.5` 44).
int_conversions!(u8, U8, |v| (v as i64) as u8);

impl Num for u8 {
    wrapping_int_ops!();
    fn pow(self, o: Self) -> Self {
        pow_by_squaring!(u8, self, o)
    }
    fn floor_div(self, o: Self) -> Self {
        // No negative values: floor division is truncation. A divisor of 0
        // gives all bits set on a device (CUDA leaves it unspecified).
        self.checked_div(o).unwrap_or(u8::MAX)
    }
    fn rem(self, o: Self) -> Self {
        self.checked_rem(o).unwrap_or(self)
    }
    fn fmod(self, o: Self) -> Self {
        self.checked_rem(o).unwrap_or(self)
    }
}

macro_rules! float_element {
    ($t:ty, $dt:ident, $to:expr, $from:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            fn to_f64(self) -> f64 {
                $to(self)
            }
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
            fn is_nan(self) -> bool {
                self != self
            }
        }
    };
}
float_element!(f32, F32, |x: f32| x as f64, |v: f64| v as f32);
float_element!(f64, F64, |x: f64| x, |v: f64| v);
// f64 to f16 and bf16 through f32, as PyTorch's c10::Half(double) and
// c10::BFloat16(double) convert (the half crate's bf16::from_f64 rounds
// from the top 32 bits alone, so 1 + 2^-8 + 2^-21 would fall to 1).
float_element!(f16, F16, |x: f16| x.to_f64(), |v: f64| f16::from_f32(
    v as f32
));
float_element!(bf16, BF16, |x: bf16| x.to_f64(), |v: f64| bf16::from_f32(
    v as f32
));

/// PyTorch's `div_floor_floating`: the quotient of the exact remainder,
/// stepped down when the remainder's sign differs from the divisor's, and
/// rounded to the nearest integer (not just floored) so that `(a - r) / b`
/// rounding up by an ulp does not lose a whole unit.
macro_rules! floor_div_float {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        if b == 0.0 {
            a / b
        } else {
            let m = a % b;
            let mut div = (a - m) / b;
            if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                div -= 1.0;
            }
            if div != 0.0 {
                let mut f = div.floor();
                if div - f > 0.5 {
                    f += 1.0;
                }
                f
            } else {
                (0.0 as Self).copysign(a / b)
            }
        }
    }};
}

macro_rules! native_float_num {
    ($t:ty) => {
        impl Num for $t {
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn pow(self, o: Self) -> Self {
                self.powf(o)
            }
            fn neg(self) -> Self {
                -self
            }
            fn zero() -> Self {
                0.0
            }
            fn floor_div(self, o: Self) -> Self {
                floor_div_float!(self, o)
            }
            fn fmod(self, o: Self) -> Self {
                self % o
            }
            fn rem(self, o: Self) -> Self {
                let m = self % o;
                if m != 0.0 && ((o < 0.0) != (m < 0.0)) {
                    m + o
                } else {
                    m
                }
            }
        }
    };
}
native_float_num!(f32);
native_float_num!(f64);

// Half types compute in f32 and round once, as PyTorch's CPU kernels do.
macro_rules! half_num {
    ($t:ty) => {
        impl Num for $t {
            fn add(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() + o.to_f32())
            }
            fn sub(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() - o.to_f32())
            }
            fn mul(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() * o.to_f32())
            }
            fn div(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() / o.to_f32())
            }
            fn pow(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32().powf(o.to_f32()))
            }
            fn neg(self) -> Self {
                -self
            }
            fn zero() -> Self {
                <$t>::ZERO
            }
            fn floor_div(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32().floor_div(o.to_f32()))
            }
            fn rem(self, o: Self) -> Self {
                <$t>::from_f32(Num::rem(self.to_f32(), o.to_f32()))
            }
            fn fmod(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() % o.to_f32())
            }
        }
    };
}
half_num!(f16);
half_num!(bf16);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_f64(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn to_bool(self) -> bool {
        self
    }
    fn from_bool(v: bool) -> Self {
        v
    }
}
