// Filling memory: a value (converted on the host, so every dtype fills with
// exactly the element `full` makes) into a strided destination, arange and
// linspace.

template <class W> __device__ __forceinline__ void fill_kernel(const FillArgs& p) {
    W* out = (W*)p.out;
    W v = (W)p.bits;
    if (p.shape.flat) {
        out += p.s.offset;
        i64 packs = 0;
        if (pack_aligned(out)) {
            packs = p.shape.numel / 4;
            Pack4<W> r;
            for (int q = 0; q < 4; ++q) r.v[q] = v;
            GRID_LOOP(j, packs) { ((Pack4<W>*)out)[j] = r; }
        }
        GRID_LOOP(i, p.shape.numel - packs * 4) { out[packs * 4 + i] = v; }
        return;
    }
    GRID_LOOP(i, p.shape.numel) { out[offset_of(p.shape, p.s, i)] = v; }
}

// By element size: the bits are the element's.
extern "C" __global__ void fill_1(const __grid_constant__ FillArgs p) { fill_kernel<unsigned char>(p); }
extern "C" __global__ void fill_2(const __grid_constant__ FillArgs p) { fill_kernel<unsigned short>(p); }
extern "C" __global__ void fill_4(const __grid_constant__ FillArgs p) { fill_kernel<u32>(p); }
extern "C" __global__ void fill_8(const __grid_constant__ FillArgs p) { fill_kernel<u64>(p); }

// arange as PyTorch's CUDA kernel computes it (RangeFactories.cu):
// start + i * step in the dtype's accumulate type, multiply and add fused
// into one rounding (nvcc contracts them): f32 for f32, f16 and bf16, f64
// for f64, and i64 for integers, start and step truncated (factory::arange).
template <class T> struct RangeAcc {
    typedef float A;
    __device__ static __forceinline__ A of(double v) { return (float)v; }
    __device__ static __forceinline__ A at(A start, A step, i64 i) { return fmaf((float)i, step, start); }
    __device__ static __forceinline__ T store(A v) { return from_f64<T>((double)v); }
};
template <> struct RangeAcc<double> {
    typedef double A;
    __device__ static __forceinline__ A of(double v) { return v; }
    __device__ static __forceinline__ A at(A start, A step, i64 i) { return fma((double)i, step, start); }
    __device__ static __forceinline__ double store(A v) { return v; }
};
template <class T> struct RangeAccInt {
    typedef i64 A;
    __device__ static __forceinline__ A of(double v) { return sat_i64(v); }
    // Two's complement wrapping, as the i64 arithmetic does on a GPU.
    __device__ static __forceinline__ A at(A start, A step, i64 i) {
        return (i64)((unsigned long long)start + (unsigned long long)i * (unsigned long long)step);
    }
    __device__ static __forceinline__ T store(A v) { return (T)v; }
};
template <> struct RangeAcc<u8> : RangeAccInt<u8> {};
template <> struct RangeAcc<i8> : RangeAccInt<i8> {};
template <> struct RangeAcc<i16> : RangeAccInt<i16> {};
template <> struct RangeAcc<int> : RangeAccInt<int> {};
template <> struct RangeAcc<i64> : RangeAccInt<i64> {};

template <class T> __device__ __forceinline__ void arange_kernel(const ArangeArgs& p) {
    typedef RangeAcc<T> R;
    T* out = (T*)p.out;
    const typename R::A start = R::of(p.start), step = R::of(p.step);
    GRID_LOOP(i, p.n) { out[i] = R::store(R::at(start, step, i)); }
}

#define ARANGE(dt, T) \
    extern "C" __global__ void arange_##dt(const __grid_constant__ ArangeArgs p) { arange_kernel<T>(p); }
FOR_NUMS(ARANGE)

// linspace as PyTorch's CUDA kernel computes it (factory::Linspace): the
// first half up from start, the second down from end. f32 and f64 (and
// integers, in f32) fuse each multiply-add into one rounding, as nvcc
// contracts them; f16 and bf16 round every operation to the dtype
// (c10::Half's operators). The host gives start, end and the step already
// as values of that arithmetic.
template <class T> struct Lin {
    typedef float A;
    __device__ static __forceinline__ A at(A from, A step, i64 k) { return fmaf(step, (float)k, from); }
};
template <> struct Lin<double> {
    typedef double A;
    __device__ static __forceinline__ A at(A from, A step, i64 k) { return fma(step, (double)k, from); }
};
template <> struct Lin<f16> {
    typedef float A;
    __device__ static __forceinline__ A round(A x) { return f16_to_f32(f32_to_f16(x)); }
    __device__ static __forceinline__ A at(A from, A step, i64 k) { return round(from + round(step * round((A)k))); }
};
template <> struct Lin<bf16> {
    typedef float A;
    __device__ static __forceinline__ A round(A x) { return bf16_to_f32(f32_to_bf16(x)); }
    __device__ static __forceinline__ A at(A from, A step, i64 k) { return round(from + round(step * round((A)k))); }
};

template <class T> __device__ __forceinline__ void linspace_kernel(const LinspaceArgs& p) {
    typedef typename Lin<T>::A A;
    T* out = (T*)p.out;
    const A start = (A)p.start, end = (A)p.end, step = (A)p.step;
    const i64 halfway = p.n / 2;
    GRID_LOOP(i, p.n) {
        A v;
        if (p.n == 1) {
            v = start;
        } else if (i < halfway) {
            v = Lin<T>::at(start, step, i);
        } else {
            v = Lin<T>::at(end, -step, p.n - i - 1);
        }
        out[i] = from_f64<T>((double)v);
    }
}

#define LINSPACE(dt, T) \
    extern "C" __global__ void linspace_##dt(const __grid_constant__ LinspaceArgs p) { linspace_kernel<T>(p); }
FOR_NUMS(LINSPACE)
