// Shared by every kernel: element types, conversions that match the simulator
// bit for bit, and the argument structs (mirrored in src/runtime/cuda/args.rs).
//
// The same source compiles two ways: by NVRTC for a GPU, and by the host C++
// compiler with kernels/host_shim.h for the CPU tests that check every kernel
// against the simulator. So: no CUDA headers, no warp intrinsics, plain types.

#define MAX_DIMS 8
#define MAX_BLOCK 1024

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;
typedef signed char i8;
typedef short i16;

// f16 and bf16 are their bits; arithmetic happens in f32, as on the simulator.
struct f16 { unsigned short bits; };
struct bf16 { unsigned short bits; };

// A device-side assertion, as PyTorch's CUDA_KERNEL_ASSERT: on a GPU, NVRTC's
// assert prints the failed condition with its block and thread, and the
// context is lost (CUDA_ERROR_ASSERT, "device-side assert triggered", at the
// next driver call and every one after). host_shim.h defines it first for
// the CPU, where the thread records the failure and goes on, so kernels
// guard the access an assertion protects as well.
#ifndef KERNEL_ASSERT
#define KERNEL_ASSERT(cond) assert(cond)
#endif

// ---- argument structs: one per kernel family, passed by value -------------

// The iteration space: `numel` elements of an n-dimensional shape, row-major.
// `flat` says every operand is contiguous over it, so element i is at offset + i.
struct Shape {
    i64 numel;
    int ndim;
    int flat;
    i64 sizes[MAX_DIMS];
};

// Where one operand's elements are: offset + sum(index[d] * strides[d]).
struct Strided {
    i64 offset;
    i64 strides[MAX_DIMS];
};

struct BinaryArgs { void* out; const void* a; const void* b; Shape shape; Strided sa; Strided sb; };
struct UnaryArgs { void* out; const void* in; Shape shape; Strided s; };
struct TernaryArgs { void* out; const void* a; const void* b; const void* c; Shape shape; Strided sa; Strided sb; Strided sc; };
struct CastArgs { void* out; const void* in; Shape shape; Strided sin; Strided sout; };
struct PutArgs { void* dst; const void* value; const void* index; Shape shape; Strided sd; Strided sv; Strided si; i64 size; i64 stride; int wrap; };
struct TakeArgs { void* out; const void* src; const void* index; Shape shape; Strided s; Strided si; i64 size; i64 stride; int wrap; };
struct FillArgs { void* out; Shape shape; Strided s; u64 bits; };
struct ArangeArgs { void* out; i64 n; double start; double step; };
struct LinspaceArgs { void* out; i64 n; double start; double end; double step; };
// Ops along the middle axis of a contiguous input laid out as [outer, len,
// inner] (along.cu); `param` is var's correction or norm's order.
struct AlongArgs { void* out; const void* in; i64 outer; i64 len; i64 inner; double param; };
// One merge pass of a sort (sort.cu): runs of `width` sorted elements of each
// line of `len` merged in pairs. `first`: the indices are the positions.
struct SortArgs { void* out_v; i64* out_i; const void* in_v; const i64* in_i; i64 lines; i64 len; i64 width; int descending; int first; };
// tril / triu of contiguous matrices of rows x cols.
struct TriArgs { void* out; const void* in; i64 numel; i64 rows; i64 cols; i64 diagonal; int upper; int _pad; };
// The window ops (window.cu) over images of `planes` (image, channel)
// planes of h x w and their windows' oh x ow output places: kernel (kh,
// kw), stride, padding, dilation. `places`: each window's maximum's place
// in its plane (h * w + w), written by max_pool, read by its gradient.
struct WindowArgs { void* out; const void* in; i64* places; i64 planes; i64 h; i64 w; i64 oh; i64 ow; i64 kh; i64 kw; i64 sh; i64 sw; i64 ph; i64 pw; i64 dh; i64 dw; };
// Fused attention (attention.cu): q [B, H, L, E], k [B, H, S, E], v [B, H,
// S, Ev], an additive bias and the output's gradient read through their
// strides (elements; a bias's are 0 where it broadcasts), as are out, dq,
// dk and dv (os, dqs, dks, dvs); lse contiguous; delta, the backward's
// per-row dot(dout, out), in double.
struct AttentionArgs {
    const void* q; const void* k; const void* v; const void* bias;
    void* out; void* lse; const void* dout; void* dq; void* dk; void* dv; double* delta;
    i64 b; i64 h; i64 l; i64 s; i64 e; i64 ev;
    i64 qs[4]; i64 ks[4]; i64 vs[4]; i64 bs[4]; i64 gs[4];
    i64 os[4]; i64 dqs[4]; i64 dks[4]; i64 dvs[4];
    double scale; i64 causal; i64 has_bias;
};
struct RandomArgs { void* out; i64 n; u64 seed; u64 first; double mean; double std; i64 low; u64 range; };

// One partial result of a reduction: a float sum or extreme (exact in double
// for every float dtype), an integer one, and the index it was found at.
// A reduction's accumulator: a float sum is the double-double f + lo (the
// rounding errors of the additions kept in lo), so its value does not
// depend on the grid's order of additions but where a sum cancels to far
// below its terms; ints in i; the extremes' index in idx.
struct Acc { double f; double lo; i64 i; i64 idx; };

// Input laid out as [outer, len, inner]; the reduced axis is the middle one,
// shared by `chunks` parts that take its elements in turns.
struct ReduceArgs {
    const void* in;
    void* out;
    Acc* partial;
    i64 outer;
    i64 len;
    i64 inner;
    i64 chunks;
};

// ---- bit casts ------------------------------------------------------------

__device__ __forceinline__ float bits_f32(u32 b) { return __int_as_float((int)b); }
__device__ __forceinline__ u32 f32_bits(float x) { return (u32)__float_as_int(x); }
__device__ __forceinline__ u64 f64_bits(double x) { return (u64)__double_as_longlong(x); }
__device__ __forceinline__ double bits_f64(u64 b) { return __longlong_as_double((i64)b); }

// ---- f16 ------------------------------------------------------------------

__device__ __forceinline__ float f16_to_f32(f16 h) {
    u32 i = h.bits;
    u32 sign = (i & 0x8000u) << 16;
    u32 exp = i & 0x7C00u;
    u32 man = i & 0x03FFu;
    if ((i & 0x7FFFu) == 0) return bits_f32(sign);
    if (exp == 0x7C00u) return bits_f32(sign | 0x7F800000u | (man ? 0x00400000u | (man << 13) : 0u));
    if (exp == 0) {
        // Subnormal: man * 2^-24, exact in f32.
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return bits_f32(sign | (((exp >> 10) + 112u) << 23) | (man << 13));
}

// Round to nearest, ties to even (what F16C and the half crate do).
__device__ __forceinline__ f16 f32_to_f16(float v) {
    u32 x = f32_bits(v);
    u32 sign = (x & 0x80000000u) >> 16;
    u32 exp = x & 0x7F800000u;
    u32 man = x & 0x007FFFFFu;
    f16 h;
    if (exp == 0x7F800000u) {
        h.bits = (unsigned short)(sign | 0x7C00u | (man ? 0x0200u : 0u) | (man >> 13));
        return h;
    }
    int e = (int)(exp >> 23) - 127 + 15;
    if (e >= 0x1F) { h.bits = (unsigned short)(sign | 0x7C00u); return h; }
    if (e <= 0) {
        if (14 - e > 24) { h.bits = (unsigned short)sign; return h; }
        man |= 0x00800000u;
        u32 hm = man >> (14 - e);
        u32 round = 1u << (13 - e);
        if ((man & round) && (man & (3u * round - 1u))) hm += 1;
        h.bits = (unsigned short)(sign | hm);
        return h;
    }
    u32 r = sign | ((u32)e << 10) | (man >> 13);
    if ((man & 0x1000u) && (man & 0x2FFFu)) r += 1;
    h.bits = (unsigned short)r;
    return h;
}

// Through f32, as the half crate does on every x86-64 with F16C.
__device__ __forceinline__ f16 f64_to_f16(double v) { return f32_to_f16((float)v); }

// ---- bf16 -----------------------------------------------------------------

__device__ __forceinline__ float bf16_to_f32(bf16 b) {
    u32 i = b.bits;
    if ((i & 0x7FFFu) > 0x7F80u) i |= 0x0040u;
    return bits_f32(i << 16);
}

__device__ __forceinline__ bf16 f32_to_bf16(float v) {
    u32 x = f32_bits(v);
    bf16 b;
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) { b.bits = (unsigned short)((x >> 16) | 0x0040u); return b; }
    u32 r = x >> 16;
    if ((x & 0x8000u) && (x & 0x17FFFu)) r += 1;
    b.bits = (unsigned short)r;
    return b;
}

// Through f32, as PyTorch's c10::BFloat16(double) converts (and the
// simulator's `Element::from_f64`).
__device__ __forceinline__ bf16 f64_to_bf16(double v) { return f32_to_bf16((float)v); }

// ---- every element type as double, and back (Element::to_f64 / from_f64) --

__device__ __forceinline__ double to_f64(bool x) { return x ? 1.0 : 0.0; }
__device__ __forceinline__ double to_f64(u8 x) { return (double)x; }
__device__ __forceinline__ double to_f64(i8 x) { return (double)x; }
__device__ __forceinline__ double to_f64(i16 x) { return (double)x; }
__device__ __forceinline__ double to_f64(int x) { return (double)x; }
__device__ __forceinline__ double to_f64(i64 x) { return (double)x; }
__device__ __forceinline__ double to_f64(f16 x) { return (double)f16_to_f32(x); }
__device__ __forceinline__ double to_f64(bf16 x) { return (double)bf16_to_f32(x); }
__device__ __forceinline__ double to_f64(float x) { return (double)x; }
__device__ __forceinline__ double to_f64(double x) { return x; }

__device__ __forceinline__ i64 to_i64(bool x) { return x ? 1 : 0; }
__device__ __forceinline__ i64 to_i64(u8 x) { return x; }
__device__ __forceinline__ i64 to_i64(i8 x) { return x; }
__device__ __forceinline__ i64 to_i64(i16 x) { return x; }
__device__ __forceinline__ i64 to_i64(int x) { return x; }
__device__ __forceinline__ i64 to_i64(i64 x) { return x; }

__device__ __forceinline__ bool is_nan_f64(double x) { return x != x; }
__device__ __forceinline__ bool is_finite_f64(double x) { return x - x == 0.0; }

// Rust's `as i64` from a double: saturating, NaN is 0.
__device__ __forceinline__ i64 sat_i64(double v) {
    if (v != v) return 0;
    if (v >= 9223372036854775807.0) return (i64)0x7FFFFFFFFFFFFFFFLL;
    if (v <= -9223372036854775808.0) return (i64)(-0x7FFFFFFFFFFFFFFFLL - 1);
    return (i64)v;
}

template <class T> __device__ __forceinline__ T from_f64(double v);
template <> __device__ __forceinline__ bool from_f64<bool>(double v) { return v != 0.0; }
template <> __device__ __forceinline__ int from_f64<int>(double v) {
    // Rust's `as i32`: saturating.
    if (v != v) return 0;
    if (v >= 2147483647.0) return 2147483647;
    if (v <= -2147483648.0) return -2147483647 - 1;
    return (int)v;
}
template <> __device__ __forceinline__ i64 from_f64<i64>(double v) { return sat_i64(v); }
// Through i64 and wrapping, as c10 converts to uint8 (-1. is 255).
template <> __device__ __forceinline__ u8 from_f64<u8>(double v) { return (u8)(u64)sat_i64(v); }
// int8 and int16 the same way (the simulator's `(v as i64) as i8`).
template <> __device__ __forceinline__ i8 from_f64<i8>(double v) { return (i8)(u8)(u64)sat_i64(v); }
template <> __device__ __forceinline__ i16 from_f64<i16>(double v) { return (i16)(unsigned short)(u64)sat_i64(v); }
template <> __device__ __forceinline__ f16 from_f64<f16>(double v) { return f64_to_f16(v); }
template <> __device__ __forceinline__ bf16 from_f64<bf16>(double v) { return f64_to_bf16(v); }
template <> __device__ __forceinline__ float from_f64<float>(double v) { return (float)v; }
template <> __device__ __forceinline__ double from_f64<double>(double v) { return v; }

template <class T> __device__ __forceinline__ T from_i64(i64 v) { return from_f64<T>((double)v); }
template <> __device__ __forceinline__ bool from_i64<bool>(i64 v) { return v != 0; }
template <> __device__ __forceinline__ u8 from_i64<u8>(i64 v) { return (u8)(u64)v; }
template <> __device__ __forceinline__ i8 from_i64<i8>(i64 v) { return (i8)(u8)(u64)v; }
template <> __device__ __forceinline__ i16 from_i64<i16>(i64 v) { return (i16)(unsigned short)(u64)v; }
template <> __device__ __forceinline__ int from_i64<int>(i64 v) { return (int)(u32)(u64)v; }
template <> __device__ __forceinline__ i64 from_i64<i64>(i64 v) { return v; }

template <class T> struct Kind { enum { is_int = 0, is_bool = 0 }; };
template <> struct Kind<bool> { enum { is_int = 0, is_bool = 1 }; };
template <> struct Kind<u8> { enum { is_int = 1, is_bool = 0 }; };
template <> struct Kind<i8> { enum { is_int = 1, is_bool = 0 }; };
template <> struct Kind<i16> { enum { is_int = 1, is_bool = 0 }; };
template <> struct Kind<int> { enum { is_int = 1, is_bool = 0 }; };
template <> struct Kind<i64> { enum { is_int = 1, is_bool = 0 }; };

__device__ __forceinline__ bool to_bool(bool x) { return x; }
__device__ __forceinline__ bool to_bool(u8 x) { return x != 0; }
__device__ __forceinline__ bool to_bool(i8 x) { return x != 0; }
__device__ __forceinline__ bool to_bool(i16 x) { return x != 0; }
__device__ __forceinline__ bool to_bool(int x) { return x != 0; }
__device__ __forceinline__ bool to_bool(i64 x) { return x != 0; }
template <class T> __device__ __forceinline__ bool to_bool(T x) { return to_f64(x) != 0.0; }

// cast_one in src/runtime/buffer.rs: bool through bool, integers through i64,
// floats to integers as CUDA's conversion does (toward zero, saturating at the
// target's range; NaN is the minimum for i64, and for i32 0 from f32, f16 and
// bf16 but the minimum from f64, as PyTorch gave on an H100 and an H200),
// everything else through double.
template <class S, class D> struct Cast {
    __device__ static __forceinline__ D run(S x) {
        if (Kind<S>::is_bool || Kind<D>::is_bool) return from_i64<D>(to_bool(x) ? 1 : 0);
        if (Kind<D>::is_int) {
            double v = to_f64(x);
            if (sizeof(D) == 8 && v != v) return from_i64<D>(-0x7FFFFFFFFFFFFFFFLL - 1);
            if (sizeof(S) == 8 && v != v) return from_i64<D>(-2147483647 - 1);
            return from_f64<D>(v);
        }
        return from_f64<D>(to_f64(x));
    }
};
template <class S> struct Cast<S, bool> {
    __device__ static __forceinline__ bool run(S x) { return to_bool(x); }
};
template <class D> struct Cast<u8, D> {
    __device__ static __forceinline__ D run(u8 x) { return Kind<D>::is_bool || Kind<D>::is_int ? from_i64<D>(x) : from_f64<D>((double)x); }
};
template <class D> struct Cast<i8, D> {
    __device__ static __forceinline__ D run(i8 x) { return Kind<D>::is_bool || Kind<D>::is_int ? from_i64<D>(x) : from_f64<D>((double)x); }
};
template <class D> struct Cast<i16, D> {
    __device__ static __forceinline__ D run(i16 x) { return Kind<D>::is_bool || Kind<D>::is_int ? from_i64<D>(x) : from_f64<D>((double)x); }
};
template <class D> struct Cast<int, D> {
    __device__ static __forceinline__ D run(int x) { return Kind<D>::is_bool || Kind<D>::is_int ? from_i64<D>(x) : from_f64<D>((double)x); }
};
template <class D> struct Cast<i64, D> {
    __device__ static __forceinline__ D run(i64 x) { return Kind<D>::is_bool || Kind<D>::is_int ? from_i64<D>(x) : from_f64<D>((double)x); }
};
template <> struct Cast<u8, bool> { __device__ static __forceinline__ bool run(u8 x) { return x != 0; } };
template <> struct Cast<i8, bool> { __device__ static __forceinline__ bool run(i8 x) { return x != 0; } };
template <> struct Cast<i16, bool> { __device__ static __forceinline__ bool run(i16 x) { return x != 0; } };
template <> struct Cast<int, bool> { __device__ static __forceinline__ bool run(int x) { return x != 0; } };
template <> struct Cast<i64, bool> { __device__ static __forceinline__ bool run(i64 x) { return x != 0; } };

// Same-type copies move bits: no conversion can change a NaN's payload.
template <class T> struct Cast<T, T> {
    __device__ static __forceinline__ T run(T x) { return x; }
};
template <> struct Cast<bool, bool> { __device__ static __forceinline__ bool run(bool x) { return x; } };
template <> struct Cast<u8, u8> { __device__ static __forceinline__ u8 run(u8 x) { return x; } };
template <> struct Cast<i8, i8> { __device__ static __forceinline__ i8 run(i8 x) { return x; } };
template <> struct Cast<i16, i16> { __device__ static __forceinline__ i16 run(i16 x) { return x; } };
template <> struct Cast<int, int> { __device__ static __forceinline__ int run(int x) { return x; } };
template <> struct Cast<i64, i64> { __device__ static __forceinline__ i64 run(i64 x) { return x; } };

// ---- indexing -------------------------------------------------------------

// The offset of element `i` (row-major over `sh`) in an operand laid out as `s`.
// The strided walk is one shared function, not inlined into every kernel: it
// keeps NVRTC's compile time down, and the contiguous case never calls it.
__device__ __noinline__ i64 strided_offset(const Shape& sh, const Strided& s, i64 i) {
    i64 off = s.offset;
    for (int d = sh.ndim - 1; d >= 0; --d) {
        i64 size = sh.sizes[d];
        off += (i % size) * s.strides[d];
        i /= size;
    }
    return off;
}

__device__ __forceinline__ i64 offset_of(const Shape& sh, const Strided& s, i64 i) {
    return sh.flat ? s.offset + i : strided_offset(sh, s, i);
}

// Four consecutive elements moved as one access (16 bytes for f32): the flat
// paths read and write these where every operand is aligned for them, the
// way PyTorch's vectorised elementwise kernels do.
template <class T> struct alignas(4 * sizeof(T)) Pack4 { T v[4]; };

// Tells the compiler that `p` points to global memory, so it reads and writes
// with ld.global/st.global instead of generic accesses (a pointer read from an
// argument struct is otherwise generic). Nothing on the host.
#ifndef ASSUME_GLOBAL
#define ASSUME_GLOBAL(p) __builtin_assume(__isGlobal(p))
#endif

template <class T> __device__ __forceinline__ bool pack_aligned(const T* p) {
    return (u64)p % sizeof(Pack4<T>) == 0;
}

// A grid-stride loop over n elements.
#define GRID_LOOP(i, n) \
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)blockDim.x * gridDim.x)

// Packs each thread moves per round of the flat paths, all loaded before any
// is used (more bytes in flight); a block's round covers FLAT_UNROLL *
// blockDim.x consecutive packs. A compile-time knob (CUDASH_KERNEL_DEFINES).
#ifndef FLAT_UNROLL
#define FLAT_UNROLL 4
#endif
// Packs each thread of a row reduction loads per round, each into its own
// accumulator (combining is order-free for the extremes; sums are in f64).
#ifndef REDUCE_UNROLL
#define REDUCE_UNROLL 8
#endif

// out[k] = F::run(a[k], b[k]) for k in [0, n): operands contiguous (the flat
// case), four elements per access where all three are aligned for it.
template <class A, class B, class O, class F>
__device__ __forceinline__ void flat_map2(const A* a, const B* b, O* out, i64 n) {
    ASSUME_GLOBAL(a);
    ASSUME_GLOBAL(b);
    ASSUME_GLOBAL(out);
    i64 packs = 0;
    if (pack_aligned(a) && pack_aligned(b) && pack_aligned(out)) {
        packs = n / 4;
        const Pack4<A>* pa = (const Pack4<A>*)a;
        const Pack4<B>* pb = (const Pack4<B>*)b;
        Pack4<O>* po = (Pack4<O>*)out;
        const i64 tile = (i64)FLAT_UNROLL * blockDim.x;
        for (i64 base = (i64)blockIdx.x * tile; base < packs; base += tile * gridDim.x) {
            Pack4<A> x[FLAT_UNROLL];
            Pack4<B> y[FLAT_UNROLL];
            for (int u = 0; u < FLAT_UNROLL; ++u) {
                i64 j = base + u * (i64)blockDim.x + threadIdx.x;
                if (j < packs) { x[u] = pa[j]; y[u] = pb[j]; }
            }
            for (int u = 0; u < FLAT_UNROLL; ++u) {
                i64 j = base + u * (i64)blockDim.x + threadIdx.x;
                if (j < packs) {
                    Pack4<O> r;
                    for (int q = 0; q < 4; ++q) r.v[q] = F::run(x[u].v[q], y[u].v[q]);
                    po[j] = r;
                }
            }
        }
    }
    GRID_LOOP(i, n - packs * 4) {
        i64 k = packs * 4 + i;
        out[k] = F::run(a[k], b[k]);
    }
}

// out[k] = F::run(a[k]), as flat_map2.
template <class A, class O, class F>
__device__ __forceinline__ void flat_map1(const A* a, O* out, i64 n) {
    ASSUME_GLOBAL(a);
    ASSUME_GLOBAL(out);
    i64 packs = 0;
    if (pack_aligned(a) && pack_aligned(out)) {
        packs = n / 4;
        const Pack4<A>* pa = (const Pack4<A>*)a;
        Pack4<O>* po = (Pack4<O>*)out;
        const i64 tile = (i64)FLAT_UNROLL * blockDim.x;
        for (i64 base = (i64)blockIdx.x * tile; base < packs; base += tile * gridDim.x) {
            Pack4<A> x[FLAT_UNROLL];
            for (int u = 0; u < FLAT_UNROLL; ++u) {
                i64 j = base + u * (i64)blockDim.x + threadIdx.x;
                if (j < packs) x[u] = pa[j];
            }
            for (int u = 0; u < FLAT_UNROLL; ++u) {
                i64 j = base + u * (i64)blockDim.x + threadIdx.x;
                if (j < packs) {
                    Pack4<O> r;
                    for (int q = 0; q < 4; ++q) r.v[q] = F::run(x[u].v[q]);
                    po[j] = r;
                }
            }
        }
    }
    GRID_LOOP(i, n - packs * 4) {
        i64 k = packs * 4 + i;
        out[k] = F::run(a[k]);
    }
}

// The element types, with their names in kernel names. A program built with
// -DONE_DTYPE -DDTYPE_f32 (say) holds only that dtype's kernels: the runtime
// compiles one (file, dtype) unit at a time, so a first use costs seconds, not
// the minute all of them together take.
#if !defined(ONE_DTYPE) || defined(DTYPE_bool)
#define DT_bool(X) X(bool, bool)
#else
#define DT_bool(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_u8)
#define DT_u8(X) X(u8, u8)
#else
#define DT_u8(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_i8)
#define DT_i8(X) X(i8, i8)
#else
#define DT_i8(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_i16)
#define DT_i16(X) X(i16, i16)
#else
#define DT_i16(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_i32)
#define DT_i32(X) X(i32, int)
#else
#define DT_i32(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_i64)
#define DT_i64(X) X(i64, i64)
#else
#define DT_i64(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_f16)
#define DT_f16(X) X(f16, f16)
#else
#define DT_f16(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_bf16)
#define DT_bf16(X) X(bf16, bf16)
#else
#define DT_bf16(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_f32)
#define DT_f32(X) X(f32, float)
#else
#define DT_f32(X)
#endif
#if !defined(ONE_DTYPE) || defined(DTYPE_f64)
#define DT_f64(X) X(f64, double)
#else
#define DT_f64(X)
#endif
#define FOR_FLOATS(X) DT_f16(X) DT_bf16(X) DT_f32(X) DT_f64(X)
#define FOR_INTS(X) DT_u8(X) DT_i8(X) DT_i16(X) DT_i32(X) DT_i64(X)
#define FOR_NUMS(X) FOR_INTS(X) FOR_FLOATS(X)
#define FOR_ALL(X) DT_bool(X) FOR_NUMS(X)
