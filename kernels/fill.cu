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

// start + i * step in double, converted as a literal is (factory::from_value).
template <class T> __device__ __forceinline__ void arange_kernel(const ArangeArgs& p) {
    T* out = (T*)p.out;
    GRID_LOOP(i, p.n) {
        double v = p.start + (double)i * p.step;
        out[i] = Kind<T>::is_int ? from_i64<T>(sat_i64(v)) : from_f64<T>(v);
    }
}

#define ARANGE(dt, T) \
    extern "C" __global__ void arange_##dt(const __grid_constant__ ArangeArgs p) { arange_kernel<T>(p); }
FOR_NUMS(ARANGE)

// linspace as PyTorch's CUDA kernel computes it (factory::Linspace): the
// first half up from start, the second down from end, in the dtype's
// arithmetic (integers: f32), each operation rounded to it. The host gives
// start, end and the step already as values of that arithmetic.
template <class T> struct Lin {
    typedef float A;
    __device__ static __forceinline__ A round(A x) { return x; }
};
template <> struct Lin<double> {
    typedef double A;
    __device__ static __forceinline__ A round(A x) { return x; }
};
template <> struct Lin<f16> {
    typedef float A;
    __device__ static __forceinline__ A round(A x) { return f16_to_f32(f32_to_f16(x)); }
};
template <> struct Lin<bf16> {
    typedef float A;
    __device__ static __forceinline__ A round(A x) { return bf16_to_f32(f32_to_bf16(x)); }
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
            v = Lin<T>::round(start + Lin<T>::round(step * Lin<T>::round((A)i)));
        } else {
            v = Lin<T>::round(end - Lin<T>::round(step * Lin<T>::round((A)(p.n - i - 1))));
        }
        out[i] = from_f64<T>((double)v);
    }
}

#define LINSPACE(dt, T) \
    extern "C" __global__ void linspace_##dt(const __grid_constant__ LinspaceArgs p) { linspace_kernel<T>(p); }
FOR_NUMS(LINSPACE)
