// Reductions over the middle axis of an input laid out as [outer, len, inner]
// (src/runtime/ops/reduce.rs): sum and mean accumulate floats in double-double
// (rounded to double once, at the end: every grid shape, and the simulator's
// loop, give the same bits but where a sum cancels to below about 2^-50 of its
// terms), prod in double, integers in wrapping i64; max, min, argmax and argmin
// keep the first extreme, and the first NaN wins. Combining partial results is
// order-independent for the extremes, so every grid shape gives the simulator's
// answer.
//
// inner == 1: reduce_rows gives one partial per (row, chunk), reduce_finish
// combines a row's chunks (a row of one chunk is stored at once). inner > 1:
// reduce_cols, one thread per (output, chunk), then reduce_finish likewise.

enum RedOp { SUM, MEAN, MAX, MIN, ARGMAX, ARGMIN, PROD };

template <int OP> struct Extreme { enum { value = OP == MAX || OP == MIN || OP == ARGMAX || OP == ARGMIN }; };

// Nothing reduced yet: the op's identity (1 for prod, 0 for sums; the
// extremes look at idx < 0).
template <int OP> __device__ __forceinline__ Acc acc_empty() {
    Acc a;
    a.f = OP == PROD ? 1.0 : 0.0;
    a.lo = 0.0;
    a.i = OP == PROD ? 1 : 0;
    a.idx = -1;
    return a;
}

template <class T> __device__ __forceinline__ Acc acc_load(T x, i64 k) {
    Acc a;
    a.f = to_f64(x);
    a.lo = 0.0;
    a.i = 0;
    a.idx = k;
    return a;
}
#define INT_LOAD(T)                                                    \
    template <> __device__ __forceinline__ Acc acc_load<T>(T x, i64 k) { \
        Acc a;                                                         \
        a.f = 0.0;                                                     \
        a.lo = 0.0;                                                    \
        a.i = to_i64(x);                                               \
        a.idx = k;                                                     \
        return a;                                                      \
    }
INT_LOAD(bool)
INT_LOAD(u8)
INT_LOAD(i8)
INT_LOAD(i16)
INT_LOAD(int)
INT_LOAD(i64)

template <int FLOAT, int OP> __device__ __forceinline__ Acc combine(Acc a, Acc b) {
    if (OP == PROD) {
        a.f *= b.f;
        a.i = (i64)((u64)a.i * (u64)b.i);
        return a;
    }
    if (!Extreme<OP>::value) {
        // Knuth's TwoSum: s + e is a.f + b.f exactly (no fused multiply-add
        // here: NVRTC runs with --fmad=false, the host with -ffp-contract=off).
        double s = a.f + b.f, bb = s - a.f;
        double e = (a.f - (s - bb)) + (b.f - bb);
        a.f = s;
        a.lo = a.lo + b.lo + e;
        a.i = (i64)((u64)a.i + (u64)b.i);
        return a;
    }
    if (a.idx < 0) return b;
    if (b.idx < 0) return a;
    bool want_max = OP != MIN && OP != ARGMIN;
    Acc first = a.idx <= b.idx ? a : b;
    if (FLOAT) {
        bool an = is_nan_f64(a.f), bn = is_nan_f64(b.f);
        if (an && bn) return first;
        if (an) return a;
        if (bn) return b;
        if (a.f == b.f) return first;
        return (want_max ? b.f > a.f : b.f < a.f) ? b : a;
    }
    if (a.i == b.i) return first;
    return (want_max ? b.i > a.i : b.i < a.i) ? b : a;
}

// Every thread of the block passes its value; all of them get the block's result.
template <int FLOAT, int OP> __device__ __forceinline__ Acc block_reduce(Acc v) {
    __shared__ Acc sh[MAX_BLOCK];
    u32 t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (u32 s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] = combine<FLOAT, OP>(sh[t], sh[t + s]);
        __syncthreads();
    }
    Acc r = sh[0];
    __syncthreads();
    return r;
}

template <class T, int OP> __device__ __forceinline__ void acc_store(void* out, i64 j, Acc a, i64 len) {
    bool float_in = !Kind<T>::is_int && !Kind<T>::is_bool;
    // A sum's double-double rounded once; an infinite or NaN sum is what
    // f holds (its lo is then meaningless).
    double f = (OP == SUM || OP == MEAN) && is_finite_f64(a.f) ? a.f + a.lo : a.f;
    if (OP == ARGMAX || OP == ARGMIN) {
        ((i64*)out)[j] = a.idx < 0 ? 0 : a.idx;
    } else if ((OP == SUM || OP == PROD) && !float_in) {
        ((i64*)out)[j] = a.i;
    } else if (OP == MEAN) {
        ((T*)out)[j] = from_f64<T>(f / (double)len);
    } else if (float_in) {
        ((T*)out)[j] = from_f64<T>(f);
    } else {
        ((T*)out)[j] = from_i64<T>(a.i);
    }
}

// This thread's share of a row's elements [start, end), taken in turns by
// `lanes` threads of which it is `lane`, folded into `acc`: four elements per
// load over the part that is aligned for it, REDUCE_UNROLL loads in flight.
template <class T, int OP>
__device__ __forceinline__ Acc reduce_range(const T* in, i64 start, i64 end, i64 lane, i64 lanes, Acc acc) {
    ASSUME_GLOBAL(in);
    const int FLOAT = !Kind<T>::is_int && !Kind<T>::is_bool;
    // Elements before the first aligned pack, then whole packs, then the rest.
    i64 body = start;
    while (body < end && !pack_aligned(in + body)) ++body;
    i64 packs = (end - body) / 4;
    const Pack4<T>* pk = (const Pack4<T>*)(in + body);
    for (i64 k = start + lane; k < body; k += lanes) acc = combine<FLOAT, OP>(acc, acc_load<T>(in[k], k));
    Acc accs[REDUCE_UNROLL];
    accs[0] = acc;
    for (int u = 1; u < REDUCE_UNROLL; ++u) accs[u] = acc_empty<OP>();
    i64 j = lane;
    for (; j + (REDUCE_UNROLL - 1) * lanes < packs; j += REDUCE_UNROLL * lanes) {
        Pack4<T> x[REDUCE_UNROLL];
        for (int u = 0; u < REDUCE_UNROLL; ++u) x[u] = pk[j + u * lanes];
        for (int u = 0; u < REDUCE_UNROLL; ++u) {
            i64 k0 = body + 4 * (j + u * lanes);
            for (int q = 0; q < 4; ++q) accs[u] = combine<FLOAT, OP>(accs[u], acc_load<T>(x[u].v[q], k0 + q));
        }
    }
    for (; j < packs; j += lanes) {
        Pack4<T> x = pk[j];
        for (int q = 0; q < 4; ++q) accs[0] = combine<FLOAT, OP>(accs[0], acc_load<T>(x.v[q], body + 4 * j + q));
    }
    acc = accs[0];
    for (int u = 1; u < REDUCE_UNROLL; ++u) acc = combine<FLOAT, OP>(acc, accs[u]);
    for (i64 k = body + 4 * packs + lane; k < end; k += lanes) acc = combine<FLOAT, OP>(acc, acc_load<T>(in[k], k));
    return acc;
}

// Block b reduces chunk b % chunks of row b / chunks. The chunks of a row
// interleave: together the row's blocks sweep it from start to end, so the
// device reads one window of memory at a time. (Contiguous chunks, hundreds
// of far-apart streams, ran 9% slower on an H100.)
template <class T, int OP> __device__ __forceinline__ void reduce_rows(const ReduceArgs& p) {
    const T* in = (const T*)p.in;
    const int FLOAT = !Kind<T>::is_int && !Kind<T>::is_bool;
    for (i64 b = blockIdx.x; b < p.outer * p.chunks; b += gridDim.x) {
        i64 row = b / p.chunks, c = b % p.chunks;
        // Indices count from the row's start (argmax), so the row is the base.
        const T* base = in + row * p.len;
        Acc acc = reduce_range<T, OP>(base, 0, p.len, c * blockDim.x + threadIdx.x, p.chunks * blockDim.x, acc_empty<OP>());
        Acc r = block_reduce<FLOAT, OP>(acc);
        if (threadIdx.x == 0) {
            // One chunk per row: the result itself, no combining pass.
            if (p.chunks == 1) acc_store<T, OP>(p.out, row, r, p.len);
            else p.partial[b] = r;
        }
    }
}

template <class T, int OP> __device__ __forceinline__ void reduce_finish(const ReduceArgs& p) {
    const int FLOAT = !Kind<T>::is_int && !Kind<T>::is_bool;
    for (i64 row = blockIdx.x; row < p.outer; row += gridDim.x) {
        Acc acc = acc_empty<OP>();
        for (i64 c = threadIdx.x; c < p.chunks; c += blockDim.x) {
            acc = combine<FLOAT, OP>(acc, p.partial[row * p.chunks + c]);
        }
        Acc r = block_reduce<FLOAT, OP>(acc);
        if (threadIdx.x == 0) acc_store<T, OP>(p.out, row, r, p.len);
    }
}

// One thread per (output, chunk of the reduced axis): neighbouring threads
// read neighbouring elements of a row of the input. With one chunk the
// thread's result is the output; with several, partial[output * chunks +
// chunk], which reduce_finish then combines (over outer * inner rows).
template <class T, int OP> __device__ __forceinline__ void reduce_cols(const ReduceArgs& p) {
    const T* in = (const T*)p.in;
    const int FLOAT = !Kind<T>::is_int && !Kind<T>::is_bool;
    const i64 outputs = p.outer * p.inner;
    GRID_LOOP(t, outputs * p.chunks) {
        i64 j = t % outputs, c = t / outputs;
        i64 o = j / p.inner, i = j % p.inner;
        const T* col = in + o * p.len * p.inner + i;
        Acc acc = acc_empty<OP>();
        // Chunk c takes rows c, c + chunks, ...: the chunks read neighbouring rows.
        const i64 first = c, step = p.chunks, end = p.len;
        i64 k = first;
        for (; k + 3 * step < end; k += 4 * step) {
            T x0 = col[k * p.inner], x1 = col[(k + step) * p.inner];
            T x2 = col[(k + 2 * step) * p.inner], x3 = col[(k + 3 * step) * p.inner];
            acc = combine<FLOAT, OP>(acc, acc_load<T>(x0, k));
            acc = combine<FLOAT, OP>(acc, acc_load<T>(x1, k + step));
            acc = combine<FLOAT, OP>(acc, acc_load<T>(x2, k + 2 * step));
            acc = combine<FLOAT, OP>(acc, acc_load<T>(x3, k + 3 * step));
        }
        for (; k < end; k += step) acc = combine<FLOAT, OP>(acc, acc_load<T>(col[k * p.inner], k));
        if (p.chunks == 1) acc_store<T, OP>(p.out, j, acc, p.len);
        else p.partial[j * p.chunks + c] = acc;
    }
}

#define REDUCE(name, OP, dt, T)                                                                         \
    extern "C" __global__ void reduce_rows_##name##_##dt(const __grid_constant__ ReduceArgs p) { reduce_rows<T, OP>(p); }     \
    extern "C" __global__ void reduce_finish_##name##_##dt(const __grid_constant__ ReduceArgs p) { reduce_finish<T, OP>(p); } \
    extern "C" __global__ void reduce_cols_##name##_##dt(const __grid_constant__ ReduceArgs p) { reduce_cols<T, OP>(p); }
#define REDUCE_ALL(dt, T) REDUCE(sum, SUM, dt, T) REDUCE(max, MAX, dt, T) REDUCE(min, MIN, dt, T) REDUCE(argmax, ARGMAX, dt, T) REDUCE(argmin, ARGMIN, dt, T) REDUCE(prod, PROD, dt, T)
#define REDUCE_MEAN(dt, T) REDUCE(mean, MEAN, dt, T)
FOR_ALL(REDUCE_ALL)
FOR_FLOATS(REDUCE_MEAN)
