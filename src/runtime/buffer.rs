//! A typed, contiguous block of elements: the storage behind tensors.

use half::{bf16, f16};

use super::element::Element;
use super::parallel;
use super::{DType, Device};

/// Runs `$body` with `$T` bound to the Rust type of dtype `$dt`.
#[macro_export]
macro_rules! with_dtype {
    ($dt:expr, $T:ident => $body:expr) => {
        $crate::with_num_dtype!($dt, $T => $body, bool => {
            type $T = bool;
            $body
        })
    };
}

/// Like `with_dtype!` for numeric dtypes; `bool` takes the `$bool` branch.
#[macro_export]
macro_rules! with_num_dtype {
    ($dt:expr, $T:ident => $body:expr, bool => $bool:expr) => {
        match $dt {
            $crate::runtime::DType::Bool => $bool,
            $crate::runtime::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::runtime::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::runtime::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::runtime::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::runtime::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::runtime::DType::F16 => {
                type $T = half::f16;
                $body
            }
            $crate::runtime::DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            $crate::runtime::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::runtime::DType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

#[derive(Debug, Clone, PartialEq)]
pub enum Buffer {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// An element type as a `Buffer` holds it: its variant, borrowed and built.
pub trait Stored: Element {
    fn slice(b: &Buffer) -> Option<&[Self]>;
    fn slice_mut(b: &mut Buffer) -> Option<&mut [Self]>;
    fn into_buffer(v: Vec<Self>) -> Buffer;
}

macro_rules! stored {
    ($($t:ty => $variant:ident),* $(,)?) => {
        $(
            impl Stored for $t {
                fn slice(b: &Buffer) -> Option<&[Self]> {
                    match b {
                        Buffer::$variant(v) => Some(v),
                        _ => None,
                    }
                }
                fn slice_mut(b: &mut Buffer) -> Option<&mut [Self]> {
                    match b {
                        Buffer::$variant(v) => Some(v),
                        _ => None,
                    }
                }
                fn into_buffer(v: Vec<Self>) -> Buffer {
                    Buffer::$variant(v)
                }
            }
        )*
    };
}

stored!(bool => Bool, u8 => U8, i8 => I8, i16 => I16, i32 => I32, i64 => I64, f16 => F16, bf16 => BF16, f32 => F32, f64 => F64);

/// Element count above which element loops split across threads.
pub const PAR_MIN: usize = 1 << 16;

impl Buffer {
    pub fn dtype(&self) -> DType {
        match self {
            Buffer::Bool(_) => DType::Bool,
            Buffer::U8(_) => DType::U8,
            Buffer::I8(_) => DType::I8,
            Buffer::I16(_) => DType::I16,
            Buffer::I32(_) => DType::I32,
            Buffer::I64(_) => DType::I64,
            Buffer::F16(_) => DType::F16,
            Buffer::BF16(_) => DType::BF16,
            Buffer::F32(_) => DType::F32,
            Buffer::F64(_) => DType::F64,
        }
    }

    pub fn len(&self) -> usize {
        with_dtype!(self.dtype(), T => self.as_slice::<T>().len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn nbytes(&self) -> usize {
        self.len() * self.dtype().size()
    }

    /// The elements as `T`. `T` must be this buffer's type: a mismatch is a bug in cudash.
    pub fn as_slice<T: Stored>(&self) -> &[T] {
        T::slice(self).unwrap_or_else(|| {
            panic!(
                "internal error: buffer holds {} but {} was requested",
                self.dtype(),
                T::DTYPE
            )
        })
    }

    pub fn as_mut_slice<T: Stored>(&mut self) -> &mut [T] {
        let have = self.dtype();
        T::slice_mut(self).unwrap_or_else(|| {
            panic!(
                "internal error: buffer holds {have} but {} was requested",
                T::DTYPE
            )
        })
    }

    pub fn filled<T: Stored>(n: usize, v: T) -> Buffer {
        T::into_buffer(vec![v; n])
    }

    pub fn zeros(dtype: DType, n: usize) -> Buffer {
        with_dtype!(dtype, T => Buffer::filled::<T>(n, T::default()))
    }

    /// The elements' little-endian bytes (what `.npy`, `.safetensors` and a
    /// GPU on a little-endian host hold).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Buffer::Bool(v) => v.iter().map(|&b| b as u8).collect(),
            Buffer::U8(v) => v.clone(),
            Buffer::I8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::F16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::BF16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// Elements of `dtype` from little-endian bytes (a trailing partial element is ignored).
    pub fn from_le_bytes(dtype: DType, b: &[u8]) -> Buffer {
        fn chunks<const N: usize, T>(b: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
            b.chunks_exact(N)
                .map(|c| f(c.try_into().expect("chunks_exact gives N bytes")))
                .collect()
        }
        match dtype {
            DType::Bool => Buffer::Bool(b.iter().map(|&x| x != 0).collect()),
            DType::U8 => Buffer::U8(b.to_vec()),
            DType::I8 => Buffer::I8(chunks(b, i8::from_le_bytes)),
            DType::I16 => Buffer::I16(chunks(b, i16::from_le_bytes)),
            DType::I32 => Buffer::I32(chunks(b, i32::from_le_bytes)),
            DType::I64 => Buffer::I64(chunks(b, i64::from_le_bytes)),
            DType::F16 => Buffer::F16(chunks(b, f16::from_le_bytes)),
            DType::BF16 => Buffer::BF16(chunks(b, bf16::from_le_bytes)),
            DType::F32 => Buffer::F32(chunks(b, f32::from_le_bytes)),
            DType::F64 => Buffer::F64(chunks(b, f64::from_le_bytes)),
        }
    }

    /// Converts every element to `dtype` as CUDA does (see `FloatToInt`).
    pub fn cast(&self, dtype: DType) -> Buffer {
        self.cast_by(dtype, FloatToInt::Cuda)
    }

    /// Converts every element to `dtype`, floats that no integer of `dtype`
    /// holds as `rule` says.
    pub fn cast_by(&self, dtype: DType, rule: FloatToInt) -> Buffer {
        if dtype == self.dtype() {
            return self.clone();
        }
        if let Some(b) = self.half_cast(dtype) {
            return b;
        }
        with_dtype!(self.dtype(), S => {
            let src = self.as_slice::<S>();
            with_dtype!(dtype, D => D::into_buffer(match rule {
                FloatToInt::Cuda => map_slice(src, cast_one::<S, D>),
                FloatToInt::Host => map_slice(src, cast_one_host::<S, D>),
            }))
        })
    }
}

impl Buffer {
    /// 16-bit floats to and from f32 (what autocast casts), through the
    /// `half` crate's slice conversions (F16C where the CPU has it): the
    /// same values as `cast_one`'s (exact one way, rounded to nearest even
    /// the other), several times faster.
    fn half_cast(&self, dtype: DType) -> Option<Buffer> {
        use half::slice::HalfFloatSliceExt;
        fn convert<S: Copy + Sync, D: Copy + Send>(
            src: &[S],
            zero: D,
            f: impl Fn(&[S], &mut [D]) + Sync,
        ) -> Vec<D> {
            let mut out = vec![zero; src.len()];
            parallel::for_each_pair(&mut out, src, PAR_MIN, |d, s| f(s, d));
            out
        }
        Some(match (self, dtype) {
            (Buffer::F16(v), DType::F32) => {
                Buffer::F32(convert(v, 0.0, |s, d| s.convert_to_f32_slice(d)))
            }
            (Buffer::BF16(v), DType::F32) => {
                Buffer::F32(convert(v, 0.0, |s, d| s.convert_to_f32_slice(d)))
            }
            (Buffer::F32(v), DType::F16) => {
                Buffer::F16(convert(v, f16::ZERO, |s, d| d.convert_from_f32_slice(s)))
            }
            (Buffer::F32(v), DType::BF16) => {
                Buffer::BF16(convert(v, bf16::ZERO, |s, d| d.convert_from_f32_slice(s)))
            }
            _ => return None,
        })
    }
}

/// What a float becomes as an integer when its integer part does not fit
/// (NaN, infinities, 3e9 as i32). C++ leaves it undefined, so PyTorch gives
/// what the processor's conversion instruction gives, and that differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatToInt {
    /// A GPU's `cvt.rzi`: saturates at the target's range; NaN is the
    /// minimum as i64, and as i32 0 from f32 (f16, bf16) but the minimum
    /// from f64 (what PyTorch gave on an H100 and an H200). Every device
    /// tensor, simulated or real, converts this way.
    Cuda,
    /// The host CPU's conversion, as PyTorch's CPU tensors give it. On x86
    /// (`cvttss2si` and kin) every such value becomes the target's minimum,
    /// "the integer indefinite": `tensor([nan, 3e9]).to(i32)` is
    /// `[-2147483648, -2147483648]`. On ARM (`fcvtzs`) it saturates and NaN
    /// is 0, which is Rust's `as`.
    Host,
}

impl FloatToInt {
    /// How tensors on `device` convert: CPU tensors on the host, the rest as CUDA.
    pub fn on(device: Device) -> FloatToInt {
        if device == Device::Cpu {
            FloatToInt::Host
        } else {
            FloatToInt::Cuda
        }
    }
}

/// Converts one element between types, through i64 for integers so large
/// values stay exact; floats that do not fit an integer as `FloatToInt::Cuda`.
pub fn cast_one<S: Stored, D: Stored>(x: S) -> D {
    if S::DTYPE == DType::Bool || D::DTYPE == DType::Bool {
        D::from_bool(x.to_bool())
    } else if S::DTYPE.is_int() && D::DTYPE.is_int() {
        D::from_i64(x.to_i64())
    } else if D::DTYPE.is_int() {
        let v = x.to_f64();
        D::from_i64(match D::DTYPE {
            // NaN: 0 from f32, f16 and bf16, the minimum from f64 (an H200).
            DType::I32 if v.is_nan() && S::DTYPE == DType::F64 => i64::from(i32::MIN),
            DType::I32 => i64::from(v as i32),
            _ if v.is_nan() => i64::MIN,
            _ => v as i64,
        })
    } else {
        D::from_f64(x.to_f64())
    }
}

/// `cast_one` with `FloatToInt::Host`'s rule for floats that do not fit.
pub fn cast_one_host<S: Stored, D: Stored>(x: S) -> D {
    if !(S::DTYPE.is_float() && D::DTYPE.is_int()) {
        return cast_one(x);
    }
    let v = x.to_f64();
    if !cfg!(target_arch = "x86_64") {
        // ARM and the rest: Rust's `as`, which saturates and makes NaN 0.
        return D::from_i64(match D::DTYPE {
            DType::I32 => i64::from(v as i32),
            _ => v as i64,
        });
    }
    // The integer part must lie in [MIN, MAX]; NaN fails both comparisons.
    // 2^63, the first f64 past i64::MAX, bounds i64 from above.
    let t = v.trunc();
    let (fits, min) = match D::DTYPE {
        DType::I32 => (
            (-2_147_483_648.0..=2_147_483_647.0).contains(&t),
            i64::from(i32::MIN),
        ),
        _ => (
            (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t),
            i64::MIN,
        ),
    };
    D::from_i64(if fits { t as i64 } else { min })
}

/// `src.iter().map(f).collect()`, split across threads for large inputs.
pub fn map_slice<S: Stored, D: Stored>(src: &[S], f: impl Fn(S) -> D + Sync) -> Vec<D> {
    let mut out: Vec<D> = Vec::with_capacity(src.len());
    {
        let dst = &mut out.spare_capacity_mut()[..src.len()];
        if src.len() >= PAR_MIN {
            parallel::for_each_pair(dst, src, PAR_MIN, |d, s| {
                for (d, &s) in d.iter_mut().zip(s) {
                    d.write(f(s));
                }
            });
        } else {
            for (d, &s) in dst.iter_mut().zip(src) {
                d.write(f(s));
            }
        }
    }
    // SAFETY: every one of the first `src.len()` slots was written above.
    unsafe { out.set_len(src.len()) };
    out
}

/// `src.map(|x| f(x, c)).collect()`, as [`map_slice`], with `c` (a
/// scalar operand, an op) copied into each part's own loop: read through
/// the closure it would be reloaded at every element (the loop's stores
/// might reach it), which keeps the loop from vectorizing.
pub fn map_slice_with<S: Stored, C: Copy + Sync, D: Stored>(
    src: &[S],
    c: C,
    f: impl Fn(S, C) -> D + Sync,
) -> Vec<D> {
    let mut out: Vec<D> = Vec::with_capacity(src.len());
    {
        let dst = &mut out.spare_capacity_mut()[..src.len()];
        let run = |d: &mut [std::mem::MaybeUninit<D>], s: &[S]| {
            let local = c;
            for (d, &s) in d.iter_mut().zip(s) {
                d.write(f(s, local));
            }
        };
        if src.len() >= PAR_MIN {
            parallel::for_each_pair(dst, src, PAR_MIN, run);
        } else {
            run(dst, src);
        }
    }
    // SAFETY: every one of the first `src.len()` slots was written above.
    unsafe { out.set_len(src.len()) };
    out
}

/// `a.zip(b).map(f).collect()` for equal-length slices, split across threads for large inputs.
pub fn zip_slices<A: Stored, B: Stored, D: Stored>(
    a: &[A],
    b: &[B],
    f: impl Fn(A, B) -> D + Sync,
) -> Vec<D> {
    let n = a.len().min(b.len());
    let mut out: Vec<D> = Vec::with_capacity(n);
    {
        let dst = &mut out.spare_capacity_mut()[..n];
        if n >= PAR_MIN {
            parallel::for_each_part(dst, PAR_MIN, |piece, d| {
                let (a, b) = (&a[piece * PAR_MIN..], &b[piece * PAR_MIN..]);
                for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
                    d.write(f(a, b));
                }
            });
        } else {
            for ((d, &a), &b) in dst.iter_mut().zip(a).zip(b) {
                d.write(f(a, b));
            }
        }
    }
    // SAFETY: every one of the first `n` slots was written above.
    unsafe { out.set_len(n) };
    out
}

#[cfg(test)]
mod tests {
    use super::{cast_one, cast_one_host};

    /// What `f.to(torch.int32)` and `f.to(torch.int64)` gave for these on an
    /// H100 (PyTorch 2.11, 2026-11-24): CUDA's conversion, which the kernels'
    /// `Cast` does too.
    #[test]
    fn floats_to_integers_convert_as_cuda_does() {
        let f = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e20,
            -1e20,
            3.7,
            -3.7,
        ];
        // NaN: 0 from f32 (an H100), the minimum from f64 (an H200).
        let i32s: Vec<i32> = f.iter().map(|&x| cast_one::<f32, i32>(x as f32)).collect();
        assert_eq!(i32s, [0, i32::MAX, i32::MIN, i32::MAX, i32::MIN, 3, -3]);
        let i32s: Vec<i32> = f.iter().map(|&x| cast_one::<f64, i32>(x)).collect();
        assert_eq!(
            i32s,
            [i32::MIN, i32::MAX, i32::MIN, i32::MAX, i32::MIN, 3, -3]
        );
        let i64s: Vec<i64> = f.iter().map(|&x| cast_one::<f32, i64>(x as f32)).collect();
        assert_eq!(
            i64s,
            [i64::MIN, i64::MAX, i64::MIN, i64::MAX, i64::MIN, 3, -3]
        );
    }

    /// What `f.to(torch.int32)` and `f.to(torch.int64)` gave for these on
    /// PyTorch 2.15's x86 CPU build (AVX2, long and short tensors alike):
    /// whatever does not fit becomes the minimum, NaN and infinities too.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn floats_to_integers_convert_as_pytorchs_x86_cpu_does() {
        let f = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            3e9,
            -3e9,
            2147483647.5,
            2147483648.0,
            -2147483648.7,
            -2147483649.0,
            9.3e18,
            -9.223_372_036_854_776e18,
            -3.7,
        ];
        let m32 = i32::MIN;
        let i32s: Vec<i32> = f.iter().map(|&x| cast_one_host::<f64, i32>(x)).collect();
        assert_eq!(
            i32s,
            [
                m32,
                m32,
                m32,
                m32,
                m32,
                i32::MAX,
                m32,
                m32,
                m32,
                m32,
                m32,
                -3
            ]
        );
        let m64 = i64::MIN;
        let i64s: Vec<i64> = f.iter().map(|&x| cast_one_host::<f64, i64>(x)).collect();
        assert_eq!(
            i64s,
            [
                m64,
                m64,
                m64,
                3_000_000_000,
                -3_000_000_000,
                2147483647,
                2147483648,
                -2147483648,
                -2147483649,
                m64,
                m64,
                -3
            ]
        );
        // Through f32 and the halves alike: 1e19 is past i64 in every one.
        assert_eq!(cast_one_host::<f32, i64>(1e19), m64);
        assert_eq!(
            cast_one_host::<half::bf16, i32>(half::bf16::from_f32(3e9)),
            m32
        );
        assert_eq!(cast_one_host::<half::f16, i64>(half::f16::INFINITY), m64);
        assert!(cast_one_host::<f32, bool>(f32::NAN));
    }

    /// f64 to bf16 rounds through f32, as PyTorch's c10::BFloat16(double):
    /// 1 + 2^-8 + 2^-21 is past the midpoint of 1 and 1 + 2^-7, so up.
    #[test]
    fn f64_to_bf16_rounds_through_f32() {
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-21);
        assert_eq!(cast_one::<f64, half::bf16>(x).to_f32(), 1.0078125);
    }
}
