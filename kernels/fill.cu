// Filling memory: a value (converted on the host, so every dtype fills with
// exactly the element `full` makes) into a strided destination, and arange.

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
