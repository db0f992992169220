// Elementwise binary ops, comparisons and unary ops over strided, broadcast
// inputs into a new contiguous output. Semantics follow src/runtime/element.rs:
// integers wrap, f16/bf16 compute in f32 and round once.

enum BinOp { ADD, SUB, MUL, DIV, POW, FLOORDIV, REM, BAND, BOR, BXOR, MAXIMUM, MINIMUM, RSUB, FMOD, LSHIFT, RSHIFT };
enum CmpOp { EQ, NE, LT, LE, GT, GE, LAND, LOR, LXOR };
enum UnOp { NEG, ABS, RELU, EXP, LOG, SQRT, SIGMOID, TANH, SIN, COS, FLOOR, CEIL, ROUND, TRUNC, BNOT, ERF, GELU, GELU_TANH, LOG1P,
            RSQRT, SIGN, TAN, ATAN, ASIN, ACOS, SINH, COSH, RECIPROCAL, LOG2, LOG10, EXPM1, EXP2,
            SILU, MISH, ERFINV };

// ---- arithmetic per element type ------------------------------------------

template <class T, int OP> struct Arith;

template <int OP> struct Arith<bool, OP> {
    // `*`, `&` and minimum are and; `+`, `|` and maximum or; `^` differs.
    __device__ static __forceinline__ bool run(bool a, bool b) {
        if (OP == MUL || OP == BAND || OP == MINIMUM) return a && b;
        if (OP == BXOR) return a != b;
        return a || b;
    }
};

// maximum and minimum: NaN if either is; of two equal values the first
// (0. and -0.), as PyTorch's.
template <class T> __device__ __forceinline__ T max_of(T a, T b) { return a != a ? a : b != b ? b : a < b ? b : a; }
template <class T> __device__ __forceinline__ T min_of(T a, T b) { return a != a ? a : b != b ? b : b < a ? b : a; }

// `//` and `%` on floats, as PyTorch's div_floor_floating and remainder:
// the exact remainder (fmod) decides the step down; the quotient is rounded
// to the nearest integer so that (a - r) / b rounding up loses no unit.
__device__ __forceinline__ float fmod_of(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double fmod_of(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float floor_of(float x) { return floorf(x); }
__device__ __forceinline__ double floor_of(double x) { return floor(x); }
__device__ __forceinline__ float copysign_of(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double copysign_of(double a, double b) { return copysign(a, b); }
template <class T> __device__ __forceinline__ T floor_div_float(T a, T b) {
    if (b == (T)0) return a / b;
    T m = fmod_of(a, b);
    T div = (a - m) / b;
    if (m != (T)0 && ((b < (T)0) != (m < (T)0))) div -= (T)1;
    if (div != (T)0) {
        T f = floor_of(div);
        if (div - f > (T)0.5) f += (T)1;
        return f;
    }
    return copysign_of((T)0, a / b);
}
template <class T> __device__ __forceinline__ T rem_float(T a, T b) {
    T m = fmod_of(a, b);
    return (m != (T)0 && ((b < (T)0) != (m < (T)0))) ? m + b : m;
}

template <class T, class U> __device__ __forceinline__ T int_pow(T base, T e) {
    // As PyTorch's powi: a negative exponent gives 1 for a base of 1, +-1 for
    // -1 and 0 otherwise; the rest is exponentiation by squaring, wrapping.
    if (e < 0) return base == 1 ? (T)1 : base == -1 ? ((e & 1) ? (T)-1 : (T)1) : (T)0;
    U result = 1, b = (U)base, n = (U)e;
    while (n) {
        if (n & 1) result *= b;
        b *= b;
        n >>= 1;
    }
    return (T)result;
}

// `//` and `%` on integers: truncating division stepped to the floor, and
// wrapping (MIN // -1 is MIN, MIN % -1 is 0). A divisor of 0 gives -1 and
// x (CUDA leaves it unspecified; PyTorch's CUDA kernels do not check).
#define INT_ARITH(T, U, LOWEST)                                                          \
    template <int OP> struct Arith<T, OP> {                                              \
        __device__ static __forceinline__ T run(T a, T b) {                              \
            if (OP == ADD) return (T)((U)a + (U)b);                                      \
            if (OP == SUB) return (T)((U)a - (U)b);                                      \
            if (OP == MUL) return (T)((U)a * (U)b);                                      \
            if (OP == BAND) return a & b;                                                \
            if (OP == BOR) return a | b;                                                 \
            if (OP == BXOR) return a ^ b;                                                \
            if (OP == LSHIFT) return (b < 0 || b >= (T)(8 * sizeof(T))) ? (T)0 : (T)((U)a << b); \
            if (OP == RSHIFT) return a >> ((b < 0 || b >= (T)(8 * sizeof(T) - 1)) ? (T)(8 * sizeof(T) - 1) : b); \
            if (OP == MAXIMUM) return a < b ? b : a;                                         \
            if (OP == MINIMUM) return b < a ? b : a;                                         \
            if (OP == DIV || OP == FLOORDIV || OP == REM || OP == FMOD) {                \
                if (b == 0) return OP == REM || OP == FMOD ? a : (OP == FLOORDIV ? (T)-1 : (T)0); \
                bool wraps = a == (LOWEST) && b == -1;                                   \
                T q = wraps ? a : a / b, r = wraps ? (T)0 : a % b;                       \
                bool step = r != 0 && ((r < 0) != (b < 0));                             \
                if (OP == DIV) return wraps ? (T)0 : q;                                  \
                if (OP == FMOD) return r;                                                \
                if (OP == FLOORDIV) return step ? (T)((U)q - 1) : q;                     \
                return step ? (T)((U)r + (U)b) : r;                                      \
            }                                                                            \
            return int_pow<T, U>(a, b);                                                  \
        }                                                                                \
    };
INT_ARITH(i8, u32, (-128))
INT_ARITH(i16, u32, (-32768))
INT_ARITH(int, u32, (-2147483647 - 1))
INT_ARITH(i64, u64, (-0x7FFFFFFFFFFFFFFFLL - 1))

// uint8: wrapping modulo 256, no negative values (floor division is
// truncation); a divisor of 0 gives all bits set for `//` and x for `%`.
template <int OP> struct Arith<u8, OP> {
    __device__ static __forceinline__ u8 run(u8 a, u8 b) {
        if (OP == ADD) return (u8)(a + b);
        if (OP == SUB) return (u8)(a - b);
        if (OP == MUL) return (u8)(a * b);
        if (OP == BAND) return a & b;
        if (OP == BOR) return a | b;
        if (OP == BXOR) return a ^ b;
        // A count of 8 or more (or past 127, negative as int8) shifts everything out.
        if (OP == LSHIFT) return b >= 8 ? (u8)0 : (u8)(a << b);
        if (OP == RSHIFT) return b >= 8 ? (u8)0 : (u8)(a >> b);
        if (OP == MAXIMUM) return a < b ? b : a;
        if (OP == MINIMUM) return b < a ? b : a;
        if (OP == DIV || OP == FLOORDIV || OP == REM || OP == FMOD) {
            if (b == 0) return OP == REM || OP == FMOD ? a : (OP == FLOORDIV ? (u8)0xFF : (u8)0);
            return OP == REM || OP == FMOD ? (u8)(a % b) : (u8)(a / b);
        }
        u32 result = 1, base = a, n = b;
        while (n) {
            if (n & 1) result = (result * base) & 0xFFu;
            base = (base * base) & 0xFFu;
            n >>= 1;
        }
        return (u8)result;
    }
};

template <int OP> struct Arith<float, OP> {
    __device__ static __forceinline__ float run(float a, float b) {
        if (OP == ADD) return a + b;
        if (OP == SUB) return a - b;
        if (OP == RSUB) return b - a;
        if (OP == MUL) return a * b;
        if (OP == DIV) return a / b;
        if (OP == FLOORDIV) return floor_div_float<float>(a, b);
        if (OP == REM) return rem_float<float>(a, b);
        if (OP == FMOD) return fmodf(a, b);
        if (OP == MAXIMUM) return max_of<float>(a, b);
        if (OP == MINIMUM) return min_of<float>(a, b);
        return powf(a, b);
    }
};

template <int OP> struct Arith<double, OP> {
    __device__ static __forceinline__ double run(double a, double b) {
        if (OP == ADD) return a + b;
        if (OP == SUB) return a - b;
        if (OP == MUL) return a * b;
        if (OP == DIV) return a / b;
        if (OP == FLOORDIV) return floor_div_float<double>(a, b);
        if (OP == REM) return rem_float<double>(a, b);
        if (OP == FMOD) return fmod(a, b);
        if (OP == MAXIMUM) return max_of<double>(a, b);
        if (OP == MINIMUM) return min_of<double>(a, b);
        return pow(a, b);
    }
};

template <int OP> struct Arith<f16, OP> {
    __device__ static __forceinline__ f16 run(f16 a, f16 b) {
        return f32_to_f16(Arith<float, OP>::run(f16_to_f32(a), f16_to_f32(b)));
    }
};

template <int OP> struct Arith<bf16, OP> {
    __device__ static __forceinline__ bf16 run(bf16 a, bf16 b) {
        return f32_to_bf16(Arith<float, OP>::run(bf16_to_f32(a), bf16_to_f32(b)));
    }
};

// ---- comparisons: as values (half types through f32, NaN compares false) ---

template <class T> struct Cmp { typedef T type; __device__ static __forceinline__ T key(T x) { return x; } };
template <> struct Cmp<f16> { typedef float type; __device__ static __forceinline__ float key(f16 x) { return f16_to_f32(x); } };
template <> struct Cmp<bf16> { typedef float type; __device__ static __forceinline__ float key(bf16 x) { return bf16_to_f32(x); } };

template <class T, int OP> __device__ __forceinline__ bool compare(T x, T y) {
    typename Cmp<T>::type a = Cmp<T>::key(x), b = Cmp<T>::key(y);
    if (OP == LAND) return a != 0 && b != 0;
    if (OP == LOR) return a != 0 || b != 0;
    if (OP == LXOR) return (a != 0) != (b != 0);
    if (OP == EQ) return a == b;
    if (OP == NE) return a != b;
    if (OP == LT) return a < b;
    if (OP == LE) return a <= b;
    if (OP == GT) return a > b;
    return a >= b;
}

// ---- the kernels' bodies ---------------------------------------------------

template <class T, int OP> __device__ __forceinline__ void binary_kernel(const BinaryArgs& p) {
    const T* a = (const T*)p.a;
    const T* b = (const T*)p.b;
    T* out = (T*)p.out;
    if (p.shape.flat) {
        flat_map2<T, T, T, Arith<T, OP> >(a + p.sa.offset, b + p.sb.offset, out, p.shape.numel);
        return;
    }
    GRID_LOOP(i, p.shape.numel) {
        out[i] = Arith<T, OP>::run(a[offset_of(p.shape, p.sa, i)], b[offset_of(p.shape, p.sb, i)]);
    }
}

// `a op s` with `s` an f32 scalar (`b`, one element): PyTorch's opmath for
// `*`, `/` and `//` of f16/bf16 by a CPU scalar, and on a GPU for `+` and
// `-` too (`rsub`: `s - a`). `a` is widened to f32, the op runs in f32, and
// the result rounds once.
__device__ __forceinline__ float half_to_f32(f16 x) { return f16_to_f32(x); }
__device__ __forceinline__ float half_to_f32(bf16 x) { return bf16_to_f32(x); }
template <class T> __device__ __forceinline__ T f32_to_half(float x);
template <> __device__ __forceinline__ f16 f32_to_half<f16>(float x) { return f32_to_f16(x); }
template <> __device__ __forceinline__ bf16 f32_to_half<bf16>(float x) { return f32_to_bf16(x); }

template <class T, int OP> __device__ __forceinline__ void scalar_kernel(const BinaryArgs& p) {
    const T* a = (const T*)p.a;
    const float s = ((const float*)p.b)[p.sb.offset];
    T* out = (T*)p.out;
    GRID_LOOP(i, p.shape.numel) {
        out[i] = f32_to_half<T>(Arith<float, OP>::run(half_to_f32(a[offset_of(p.shape, p.sa, i)]), s));
    }
}

template <class T, int OP> struct Compare {
    __device__ static __forceinline__ bool run(T a, T b) { return compare<T, OP>(a, b); }
};

template <class T, int OP> __device__ __forceinline__ void compare_kernel(const BinaryArgs& p) {
    const T* a = (const T*)p.a;
    const T* b = (const T*)p.b;
    bool* out = (bool*)p.out;
    if (p.shape.flat) {
        flat_map2<T, T, bool, Compare<T, OP> >(a + p.sa.offset, b + p.sb.offset, out, p.shape.numel);
        return;
    }
    GRID_LOOP(i, p.shape.numel) {
        out[i] = compare<T, OP>(a[offset_of(p.shape, p.sa, i)], b[offset_of(p.shape, p.sb, i)]);
    }
}

// f32 runs its own math (f32_op in elementwise.rs); other floats go through
// double and round once (generic_op); integers only reach neg, abs and relu.
template <int OP> __device__ __forceinline__ float unary_f32(float x) {
    if (OP == NEG) return -x;
    if (OP == ABS) return fabsf(x);
    if (OP == RELU) return x < 0.0f ? 0.0f : x; // as PyTorch: NaN and -0 pass
    if (OP == EXP) return expf(x);
    if (OP == LOG) return logf(x);
    if (OP == LOG1P) return log1pf(x);
    if (OP == RSQRT) return rsqrtf(x); // the host's 1 / sqrt (host_shim.h)
    if (OP == SIGN) return (float)(0.0f < x) - (float)(x < 0.0f); // 0 for NaN, as PyTorch
    if (OP == TAN) return tanf(x);
    if (OP == ATAN) return atanf(x);
    if (OP == ASIN) return asinf(x);
    if (OP == ACOS) return acosf(x);
    if (OP == SINH) return sinhf(x);
    if (OP == COSH) return coshf(x);
    if (OP == RECIPROCAL) return 1.0f / x;
    if (OP == LOG2) return log2f(x);
    if (OP == LOG10) return log10f(x);
    if (OP == EXPM1) return expm1f(x);
    if (OP == EXP2) return exp2f(x);
    if (OP == SILU) return x / (1.0f + expf(-x));
    if (OP == MISH) return x * tanhf(log1pf(expf(x)));
    if (OP == ERFINV) return erfinvf(x);
    if (OP == SQRT) return sqrtf(x);
    if (OP == SIGMOID) return 1.0f / (1.0f + expf(-x));
    if (OP == SIN) return sinf(x);
    if (OP == COS) return cosf(x);
    if (OP == FLOOR) return floorf(x);
    if (OP == CEIL) return ceilf(x);
    if (OP == ROUND) return rintf(x); // halves to even, as PyTorch's nearbyint
    if (OP == TRUNC) return truncf(x);
    if (OP == ERF) return erff(x);
    if (OP == GELU) return x * 0.5f * (1.0f + erff(x * 0.70710678118654752440f));
    if (OP == GELU_TANH) {
        const float inner = 0.79788456080286535588f * (x + 0.044715f * x * x * x);
        return 0.5f * x * (1.0f + tanhf(inner));
    }
    return tanhf(x);
}

template <int OP> __device__ __forceinline__ double unary_f64(double x) {
    if (OP == NEG) return -x;
    if (OP == ABS) return fabs(x);
    if (OP == RELU) return x < 0.0 ? 0.0 : x;
    if (OP == EXP) return exp(x);
    if (OP == LOG) return log(x);
    if (OP == LOG1P) return log1p(x);
    if (OP == RSQRT) return rsqrt(x);
    if (OP == SIGN) return (double)(0.0 < x) - (double)(x < 0.0);
    if (OP == TAN) return tan(x);
    if (OP == ATAN) return atan(x);
    if (OP == ASIN) return asin(x);
    if (OP == ACOS) return acos(x);
    if (OP == SINH) return sinh(x);
    if (OP == COSH) return cosh(x);
    if (OP == RECIPROCAL) return 1.0 / x;
    if (OP == LOG2) return log2(x);
    if (OP == LOG10) return log10(x);
    if (OP == EXPM1) return expm1(x);
    if (OP == EXP2) return exp2(x);
    if (OP == SILU) return x / (1.0 + exp(-x));
    if (OP == MISH) return x * tanh(log1p(exp(x)));
    if (OP == ERFINV) return erfinv(x);
    if (OP == SQRT) return sqrt(x);
    if (OP == SIGMOID) return 1.0 / (1.0 + exp(-x));
    if (OP == SIN) return sin(x);
    if (OP == COS) return cos(x);
    if (OP == FLOOR) return floor(x);
    if (OP == CEIL) return ceil(x);
    if (OP == ROUND) return rint(x);
    if (OP == TRUNC) return trunc(x);
    if (OP == ERF) return erf(x);
    if (OP == GELU) return x * 0.5 * (1.0 + erf(x * 0.70710678118654752440));
    if (OP == GELU_TANH) {
        const double inner = 0.79788456080286535588 * (x + 0.044715 * x * x * x);
        return 0.5 * x * (1.0 + tanh(inner));
    }
    return tanh(x);
}

template <class T, int OP> struct Unary {
    __device__ static __forceinline__ T run(T x) {
        // f16 and bf16: neg, abs and relu are exact in double too.
        return from_f64<T>(unary_f64<OP>(to_f64(x)));
    }
};
template <int OP> struct Unary<float, OP> {
    __device__ static __forceinline__ float run(float x) { return unary_f32<OP>(x); }
};
template <int OP> struct Unary<double, OP> {
    __device__ static __forceinline__ double run(double x) { return unary_f64<OP>(x); }
};
template <int OP> struct Unary<f16, OP> {
    __device__ static __forceinline__ f16 run(f16 x) {
        if (OP == NEG) { x.bits ^= 0x8000u; return x; }
        double v = to_f64(x);
        if (OP == ABS) { x.bits &= 0x7FFFu; return x; }
        if (OP == RELU) return v < 0.0 ? f64_to_f16(0.0) : x;
        return f64_to_f16(unary_f64<OP>(v));
    }
};
template <int OP> struct Unary<bf16, OP> {
    __device__ static __forceinline__ bf16 run(bf16 x) {
        if (OP == NEG) { x.bits ^= 0x8000u; return x; }
        double v = to_f64(x);
        if (OP == ABS) { x.bits &= 0x7FFFu; return x; }
        if (OP == RELU) return v < 0.0 ? f64_to_bf16(0.0) : x;
        return f64_to_bf16(unary_f64<OP>(v));
    }
};
#define INT_UNARY(T, U)                                                \
    template <int OP> struct Unary<T, OP> {                            \
        __device__ static __forceinline__ T run(T x) {                 \
            if (OP == NEG) return (T)(0 - (U)x);                       \
            if (OP == BNOT) return ~x;                                 \
            if (OP == ABS) return x < 0 ? (T)(0 - (U)x) : x;           \
            if (OP == FLOOR || OP == CEIL || OP == ROUND || OP == TRUNC) \
                return x;                                              \
            if (OP == SIGN) return (T)((0 < x) - (x < 0));             \
            return x < 0 ? (T)0 : x;                                   \
        }                                                              \
    };
INT_UNARY(u8, u32)
INT_UNARY(i8, u32)
INT_UNARY(i16, u32)
INT_UNARY(int, u32)
INT_UNARY(i64, u64)
// Only `~` (logical not) reaches bool: the rest copy or compute in another dtype.
template <int OP> struct Unary<bool, OP> {
    __device__ static __forceinline__ bool run(bool x) { return !x; }
};

// `F::run` over every element (unary ops, the pow shortcuts).
template <class T, class F> __device__ __forceinline__ void map_kernel(const UnaryArgs& p) {
    const T* in = (const T*)p.in;
    T* out = (T*)p.out;
    if (p.shape.flat) {
        flat_map1<T, T, F>(in + p.s.offset, out, p.shape.numel);
        return;
    }
    GRID_LOOP(i, p.shape.numel) { out[i] = F::run(in[offset_of(p.shape, p.s, i)]); }
}

// `x ** s` for a number `s` that PyTorch's CUDA kernel takes a shortcut for
// (PowKernel.cu, ops::pow_shortcut): sqrt for 0.5, rsqrt for -0.5 and 1 / x for
// -1 in the opmath type (f16/bf16 in f32, rounded once); x * x for 2,
// x * x * x for 3 and 1.0 / (x * x) for -2 in the dtype's own arithmetic:
// f16/bf16 round each product to the dtype, and 1.0 / (...) divides in f64
// (a double literal), rounded to the dtype through f32.
enum PowShortcut { PS_SQRT, PS_RSQRT, PS_RECIP, PS_SQUARE, PS_CUBE, PS_INV_SQUARE };

template <class T, int S> struct PowBy;
template <int S> struct PowBy<float, S> {
    __device__ static __forceinline__ float run(float x) {
        if (S == PS_SQRT) return sqrtf(x);
        if (S == PS_RSQRT) return rsqrtf(x);
        if (S == PS_RECIP) return 1.0f / x;
        if (S == PS_SQUARE) return x * x;
        if (S == PS_CUBE) return x * x * x;
        return (float)(1.0 / (double)(x * x));
    }
};
template <int S> struct PowBy<double, S> {
    __device__ static __forceinline__ double run(double x) {
        if (S == PS_SQRT) return sqrt(x);
        if (S == PS_RSQRT) return rsqrt(x);
        if (S == PS_RECIP) return 1.0 / x;
        if (S == PS_SQUARE) return x * x;
        if (S == PS_CUBE) return x * x * x;
        return 1.0 / (x * x);
    }
};
template <class H, int S> struct PowByHalf {
    __device__ static __forceinline__ float r(float x) { return half_to_f32(f32_to_half<H>(x)); }
    __device__ static __forceinline__ H run(H h) {
        float x = half_to_f32(h);
        if (S == PS_CUBE) return f32_to_half<H>(r(x * x) * x);
        if (S == PS_INV_SQUARE) return f32_to_half<H>((float)(1.0 / (double)r(x * x)));
        return f32_to_half<H>(PowBy<float, S>::run(x));
    }
};
template <int S> struct PowBy<f16, S> : PowByHalf<f16, S> {};
template <int S> struct PowBy<bf16, S> : PowByHalf<bf16, S> {};

// where(cond, x, y) and clamp(x, lo, hi): three broadcast operands. clamp
// as PyTorch's: a NaN in any operand wins, then min(max(x, lo), hi); f16 and
// bf16 through f32 (exact: the result is one of the operands).
template <class T> struct Clamp {
    __device__ static __forceinline__ T run(T x, T lo, T hi) {
        if (x != x) return x;
        if (lo != lo) return lo;
        if (hi != hi) return hi;
        T m = x < lo ? lo : x;
        return hi < m ? hi : m;
    }
};
template <> struct Clamp<f16> {
    __device__ static __forceinline__ f16 run(f16 x, f16 lo, f16 hi) {
        return f32_to_f16(Clamp<float>::run(f16_to_f32(x), f16_to_f32(lo), f16_to_f32(hi)));
    }
};
template <> struct Clamp<bf16> {
    __device__ static __forceinline__ bf16 run(bf16 x, bf16 lo, bf16 hi) {
        return f32_to_bf16(Clamp<float>::run(bf16_to_f32(x), bf16_to_f32(lo), bf16_to_f32(hi)));
    }
};

template <class T> __device__ __forceinline__ void where_kernel(const TernaryArgs& p) {
    const bool* cond = (const bool*)p.a;
    const T* x = (const T*)p.b;
    const T* y = (const T*)p.c;
    T* out = (T*)p.out;
    GRID_LOOP(i, p.shape.numel) {
        out[i] = cond[offset_of(p.shape, p.sa, i)] ? x[offset_of(p.shape, p.sb, i)] : y[offset_of(p.shape, p.sc, i)];
    }
}

template <class T> __device__ __forceinline__ void clamp_kernel(const TernaryArgs& p) {
    const T* x = (const T*)p.a;
    const T* lo = (const T*)p.b;
    const T* hi = (const T*)p.c;
    T* out = (T*)p.out;
    GRID_LOOP(i, p.shape.numel) {
        out[i] = Clamp<T>::run(x[offset_of(p.shape, p.sa, i)], lo[offset_of(p.shape, p.sb, i)], hi[offset_of(p.shape, p.sc, i)]);
    }
}

// `a + alpha * b`, PyTorch's `add` with `alpha` (the optimizers' updates):
// in the opmath type with one rounding, a fused multiply-add, as PyTorch's
// CPU vector code (`fmadd`) and its CUDA kernel (contracted by nvcc)
// compute it; f16 and bf16 keep alpha in f32; integers wrap.
template <class T> struct AddScaled;
template <> struct AddScaled<float> {
    typedef float Alpha;
    __device__ static __forceinline__ float run(float a, float b, float c) { return fmaf(b, c, a); }
};
template <> struct AddScaled<double> {
    typedef double Alpha;
    __device__ static __forceinline__ double run(double a, double b, double c) { return fma(b, c, a); }
};
template <> struct AddScaled<f16> {
    typedef float Alpha;
    __device__ static __forceinline__ f16 run(f16 a, f16 b, float c) {
        return f32_to_f16(fmaf(f16_to_f32(b), c, f16_to_f32(a)));
    }
};
template <> struct AddScaled<bf16> {
    typedef float Alpha;
    __device__ static __forceinline__ bf16 run(bf16 a, bf16 b, float c) {
        return f32_to_bf16(fmaf(bf16_to_f32(b), c, bf16_to_f32(a)));
    }
};
// Integers: `a + alpha * b` wrapping, in an unsigned type of at least their width.
#define INT_ADD_SCALED(T, U)                                                             \
    template <> struct AddScaled<T> {                                                    \
        typedef T Alpha;                                                                 \
        __device__ static __forceinline__ T run(T a, T b, T c) { return (T)((U)a + (U)c * (U)b); } \
    };
INT_ADD_SCALED(u8, u32)
INT_ADD_SCALED(i8, u32)
INT_ADD_SCALED(i16, u32)
INT_ADD_SCALED(int, u32)
INT_ADD_SCALED(i64, u64)

template <class T> __device__ __forceinline__ void add_scaled_kernel(const TernaryArgs& p) {
    typedef typename AddScaled<T>::Alpha A;
    const T* a = (const T*)p.a;
    const T* b = (const T*)p.b;
    const A alpha = ((const A*)p.c)[p.sc.offset];
    T* out = (T*)p.out;
    GRID_LOOP(i, p.shape.numel) {
        out[i] = AddScaled<T>::run(a[offset_of(p.shape, p.sa, i)], b[offset_of(p.shape, p.sb, i)], alpha);
    }
}

// ---- the kernels ------------------------------------------------------------

#define BINARY(name, OP, dt, T) \
    extern "C" __global__ void binary_##name##_##dt(const __grid_constant__ BinaryArgs p) { binary_kernel<T, OP>(p); }
#define ARITH_KERNELS(dt, T)                                                                     \
    BINARY(add, ADD, dt, T) BINARY(sub, SUB, dt, T) BINARY(mul, MUL, dt, T) BINARY(div, DIV, dt, T) \
    BINARY(pow, POW, dt, T) BINARY(floor_divide, FLOORDIV, dt, T) BINARY(remainder, REM, dt, T)      \
    BINARY(fmod, FMOD, dt, T)                                                                    \
    BINARY(maximum, MAXIMUM, dt, T) BINARY(minimum, MINIMUM, dt, T)
FOR_NUMS(ARITH_KERNELS)
#define BITWISE_KERNELS(dt, T) \
    BINARY(bitwise_and, BAND, dt, T) BINARY(bitwise_or, BOR, dt, T) BINARY(bitwise_xor, BXOR, dt, T)
FOR_INTS(BITWISE_KERNELS)
#define SHIFT_KERNELS(dt, T) \
    BINARY(bitwise_left_shift, LSHIFT, dt, T) BINARY(bitwise_right_shift, RSHIFT, dt, T)
FOR_INTS(SHIFT_KERNELS)
#define BOOL_ARITH_KERNELS(dt, T) \
    BINARY(add, ADD, dt, T) BINARY(mul, MUL, dt, T) BINARY(maximum, MAXIMUM, dt, T) BINARY(minimum, MINIMUM, dt, T) BITWISE_KERNELS(dt, T)
DT_bool(BOOL_ARITH_KERNELS)

#define POW_BY(name, S, dt, T) \
    extern "C" __global__ void pow_##name##_##dt(const __grid_constant__ UnaryArgs p) { map_kernel<T, PowBy<T, S> >(p); }
#define POW_BY_KERNELS(dt, T)                                                                        \
    POW_BY(sqrt, PS_SQRT, dt, T) POW_BY(rsqrt, PS_RSQRT, dt, T) POW_BY(reciprocal, PS_RECIP, dt, T) \
    POW_BY(square, PS_SQUARE, dt, T) POW_BY(cube, PS_CUBE, dt, T) POW_BY(inv_square, PS_INV_SQUARE, dt, T)
FOR_FLOATS(POW_BY_KERNELS)

#define SCALAR_KERNELS(dt, T)                                                                                        \
    extern "C" __global__ void scalar_add_##dt(const __grid_constant__ BinaryArgs p) { scalar_kernel<T, ADD>(p); }          \
    extern "C" __global__ void scalar_sub_##dt(const __grid_constant__ BinaryArgs p) { scalar_kernel<T, SUB>(p); }          \
    extern "C" __global__ void scalar_rsub_##dt(const __grid_constant__ BinaryArgs p) { scalar_kernel<T, RSUB>(p); }        \
    extern "C" __global__ void scalar_mul_##dt(const __grid_constant__ BinaryArgs p) { scalar_kernel<T, MUL>(p); }          \
    extern "C" __global__ void scalar_div_##dt(const __grid_constant__ BinaryArgs p) { scalar_kernel<T, DIV>(p); }          \
    extern "C" __global__ void scalar_floor_divide_##dt(const __grid_constant__ BinaryArgs p) { scalar_kernel<T, FLOORDIV>(p); }
DT_f16(SCALAR_KERNELS)
DT_bf16(SCALAR_KERNELS)

#define COMPARE(name, OP, dt, T) \
    extern "C" __global__ void compare_##name##_##dt(const __grid_constant__ BinaryArgs p) { compare_kernel<T, OP>(p); }
#define COMPARE_KERNELS(dt, T) \
    COMPARE(eq, EQ, dt, T) COMPARE(ne, NE, dt, T) COMPARE(lt, LT, dt, T) COMPARE(le, LE, dt, T) COMPARE(gt, GT, dt, T) COMPARE(ge, GE, dt, T) \
    COMPARE(logical_and, LAND, dt, T) COMPARE(logical_or, LOR, dt, T) COMPARE(logical_xor, LXOR, dt, T)
FOR_ALL(COMPARE_KERNELS)

#define UNARY(name, OP, dt, T) \
    extern "C" __global__ void unary_##name##_##dt(const __grid_constant__ UnaryArgs p) { map_kernel<T, Unary<T, OP> >(p); }
#define FLOAT_UNARY_KERNELS(dt, T)                                                                        \
    UNARY(neg, NEG, dt, T) UNARY(abs, ABS, dt, T) UNARY(relu, RELU, dt, T) UNARY(exp, EXP, dt, T)      \
    UNARY(log, LOG, dt, T) UNARY(sqrt, SQRT, dt, T) UNARY(sigmoid, SIGMOID, dt, T) UNARY(tanh, TANH, dt, T)   \
    UNARY(sin, SIN, dt, T) UNARY(cos, COS, dt, T) UNARY(floor, FLOOR, dt, T) UNARY(ceil, CEIL, dt, T)      \
    UNARY(round, ROUND, dt, T) UNARY(trunc, TRUNC, dt, T) UNARY(erf, ERF, dt, T) UNARY(gelu, GELU, dt, T)  \
    UNARY(gelu_tanh, GELU_TANH, dt, T) UNARY(log1p, LOG1P, dt, T) UNARY(rsqrt, RSQRT, dt, T)             \
    UNARY(sign, SIGN, dt, T) UNARY(tan, TAN, dt, T) UNARY(atan, ATAN, dt, T) UNARY(asin, ASIN, dt, T)     \
    UNARY(acos, ACOS, dt, T) UNARY(sinh, SINH, dt, T) UNARY(cosh, COSH, dt, T)                            \
    UNARY(reciprocal, RECIPROCAL, dt, T) UNARY(log2, LOG2, dt, T) UNARY(log10, LOG10, dt, T)              \
    UNARY(expm1, EXPM1, dt, T) UNARY(exp2, EXP2, dt, T) UNARY(silu, SILU, dt, T) UNARY(mish, MISH, dt, T) \
    UNARY(erfinv, ERFINV, dt, T)
#define INT_UNARY_KERNELS(dt, T)                                                                        \
    UNARY(neg, NEG, dt, T) UNARY(abs, ABS, dt, T) UNARY(relu, RELU, dt, T) UNARY(floor, FLOOR, dt, T)  \
    UNARY(ceil, CEIL, dt, T) UNARY(round, ROUND, dt, T) UNARY(trunc, TRUNC, dt, T) UNARY(bitwise_not, BNOT, dt, T) \
    UNARY(sign, SIGN, dt, T)
FOR_FLOATS(FLOAT_UNARY_KERNELS)
FOR_INTS(INT_UNARY_KERNELS)
#define BOOL_UNARY_KERNELS(dt, T) UNARY(bitwise_not, BNOT, dt, T)
DT_bool(BOOL_UNARY_KERNELS)

#define WHERE_KERNEL(dt, T) \
    extern "C" __global__ void where_##dt(const __grid_constant__ TernaryArgs p) { where_kernel<T>(p); }
FOR_ALL(WHERE_KERNEL)
#define CLAMP_KERNEL(dt, T) \
    extern "C" __global__ void clamp_##dt(const __grid_constant__ TernaryArgs p) { clamp_kernel<T>(p); }
FOR_NUMS(CLAMP_KERNEL)
#define ADD_SCALED_KERNEL(dt, T) \
    extern "C" __global__ void add_scaled_##dt(const __grid_constant__ TernaryArgs p) { add_scaled_kernel<T>(p); }
FOR_NUMS(ADD_SCALED_KERNEL)
