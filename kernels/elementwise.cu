// Elementwise binary ops, comparisons and unary ops over strided, broadcast
// inputs into a new contiguous output. Semantics follow src/runtime/element.rs:
// integers wrap, f16/bf16 compute in f32 and round once.

enum BinOp { ADD, SUB, MUL, DIV, POW };
enum CmpOp { EQ, NE, LT, LE, GT, GE };
enum UnOp { NEG, ABS, RELU, EXP, LOG, SQRT, SIGMOID, TANH, SIN, COS, FLOOR, CEIL, ROUND, TRUNC };

// ---- arithmetic per element type ------------------------------------------

template <class T, int OP> struct Arith;

template <int OP> struct Arith<bool, OP> {
    // Only `*` (and) and `+` (or) reach bool: the others compute in another dtype.
    __device__ static __forceinline__ bool run(bool a, bool b) { return OP == MUL ? (a && b) : (a || b); }
};

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

#define INT_ARITH(T, U, MIN)                                                           \
    template <int OP> struct Arith<T, OP> {                                            \
        __device__ static __forceinline__ T run(T a, T b) {                            \
            if (OP == ADD) return (T)((U)a + (U)b);                                    \
            if (OP == SUB) return (T)((U)a - (U)b);                                    \
            if (OP == MUL) return (T)((U)a * (U)b);                                    \
            if (OP == DIV) return (b == 0 || (a == (MIN) && b == -1)) ? (T)0 : a / b; \
            return int_pow<T, U>(a, b);                                                \
        }                                                                              \
    };
INT_ARITH(int, u32, (-2147483647 - 1))
INT_ARITH(i64, u64, (-0x7FFFFFFFFFFFFFFFLL - 1))

template <int OP> struct Arith<float, OP> {
    __device__ static __forceinline__ float run(float a, float b) {
        if (OP == ADD) return a + b;
        if (OP == SUB) return a - b;
        if (OP == MUL) return a * b;
        if (OP == DIV) return a / b;
        return powf(a, b);
    }
};

template <int OP> struct Arith<double, OP> {
    __device__ static __forceinline__ double run(double a, double b) {
        if (OP == ADD) return a + b;
        if (OP == SUB) return a - b;
        if (OP == MUL) return a * b;
        if (OP == DIV) return a / b;
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
    if (OP == SQRT) return sqrtf(x);
    if (OP == SIGMOID) return 1.0f / (1.0f + expf(-x));
    if (OP == SIN) return sinf(x);
    if (OP == COS) return cosf(x);
    if (OP == FLOOR) return floorf(x);
    if (OP == CEIL) return ceilf(x);
    if (OP == ROUND) return rintf(x); // halves to even, as PyTorch's nearbyint
    if (OP == TRUNC) return truncf(x);
    return tanhf(x);
}

template <int OP> __device__ __forceinline__ double unary_f64(double x) {
    if (OP == NEG) return -x;
    if (OP == ABS) return fabs(x);
    if (OP == RELU) return x < 0.0 ? 0.0 : x;
    if (OP == EXP) return exp(x);
    if (OP == LOG) return log(x);
    if (OP == SQRT) return sqrt(x);
    if (OP == SIGMOID) return 1.0 / (1.0 + exp(-x));
    if (OP == SIN) return sin(x);
    if (OP == COS) return cos(x);
    if (OP == FLOOR) return floor(x);
    if (OP == CEIL) return ceil(x);
    if (OP == ROUND) return rint(x);
    if (OP == TRUNC) return trunc(x);
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
            if (OP == ABS) return x < 0 ? (T)(0 - (U)x) : x;           \
            if (OP == FLOOR || OP == CEIL || OP == ROUND || OP == TRUNC) \
                return x;                                              \
            return x < 0 ? (T)0 : x;                                   \
        }                                                              \
    };
INT_UNARY(int, u32)
INT_UNARY(i64, u64)

template <class T, int OP> __device__ __forceinline__ void unary_kernel(const UnaryArgs& p) {
    const T* in = (const T*)p.in;
    T* out = (T*)p.out;
    if (p.shape.flat) {
        flat_map1<T, T, Unary<T, OP> >(in + p.s.offset, out, p.shape.numel);
        return;
    }
    GRID_LOOP(i, p.shape.numel) { out[i] = Unary<T, OP>::run(in[offset_of(p.shape, p.s, i)]); }
}

// ---- the kernels ------------------------------------------------------------

#define BINARY(name, OP, dt, T) \
    extern "C" __global__ void binary_##name##_##dt(const __grid_constant__ BinaryArgs p) { binary_kernel<T, OP>(p); }
#define ARITH_KERNELS(dt, T) \
    BINARY(add, ADD, dt, T) BINARY(sub, SUB, dt, T) BINARY(mul, MUL, dt, T) BINARY(div, DIV, dt, T) BINARY(pow, POW, dt, T)
FOR_NUMS(ARITH_KERNELS)
#define BOOL_ARITH_KERNELS(dt, T) BINARY(add, ADD, dt, T) BINARY(mul, MUL, dt, T)
DT_bool(BOOL_ARITH_KERNELS)

#define COMPARE(name, OP, dt, T) \
    extern "C" __global__ void compare_##name##_##dt(const __grid_constant__ BinaryArgs p) { compare_kernel<T, OP>(p); }
#define COMPARE_KERNELS(dt, T) \
    COMPARE(eq, EQ, dt, T) COMPARE(ne, NE, dt, T) COMPARE(lt, LT, dt, T) COMPARE(le, LE, dt, T) COMPARE(gt, GT, dt, T) COMPARE(ge, GE, dt, T)
FOR_ALL(COMPARE_KERNELS)

#define UNARY(name, OP, dt, T) \
    extern "C" __global__ void unary_##name##_##dt(const __grid_constant__ UnaryArgs p) { unary_kernel<T, OP>(p); }
#define FLOAT_UNARY_KERNELS(dt, T)                                                                        \
    UNARY(neg, NEG, dt, T) UNARY(abs, ABS, dt, T) UNARY(relu, RELU, dt, T) UNARY(exp, EXP, dt, T)      \
    UNARY(log, LOG, dt, T) UNARY(sqrt, SQRT, dt, T) UNARY(sigmoid, SIGMOID, dt, T) UNARY(tanh, TANH, dt, T)   \
    UNARY(sin, SIN, dt, T) UNARY(cos, COS, dt, T) UNARY(floor, FLOOR, dt, T) UNARY(ceil, CEIL, dt, T)      \
    UNARY(round, ROUND, dt, T) UNARY(trunc, TRUNC, dt, T)
#define INT_UNARY_KERNELS(dt, T)                                                                        \
    UNARY(neg, NEG, dt, T) UNARY(abs, ABS, dt, T) UNARY(relu, RELU, dt, T) UNARY(floor, FLOOR, dt, T)  \
    UNARY(ceil, CEIL, dt, T) UNARY(round, ROUND, dt, T) UNARY(trunc, TRUNC, dt, T)
FOR_FLOATS(FLOAT_UNARY_KERNELS)
FOR_INTS(INT_UNARY_KERNELS)
