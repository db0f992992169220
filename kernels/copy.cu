// Copies between strided layouts, converting the element type on the way
// (cast_one in src/runtime/buffer.rs). With equal types this is the strided
// copy behind .contiguous(), index assignment and broadcast writes.

template <class S, class D> __device__ __forceinline__ void cast_kernel(const CastArgs& p) {
    const S* in = (const S*)p.in;
    D* out = (D*)p.out;
    if (p.shape.flat) {
        flat_map1<S, D, Cast<S, D> >(in + p.sin.offset, out + p.sout.offset, p.shape.numel);
        return;
    }
    GRID_LOOP(i, p.shape.numel) {
        out[offset_of(p.shape, p.sout, i)] = Cast<S, D>::run(in[offset_of(p.shape, p.sin, i)]);
    }
}

#define CAST(sdt, S, ddt, D) \
    extern "C" __global__ void cast_##sdt##_##ddt(const __grid_constant__ CastArgs p) { cast_kernel<S, D>(p); }
#define CAST_FROM(sdt, S)                                                                      \
    CAST(sdt, S, bool, bool) CAST(sdt, S, u8, u8) CAST(sdt, S, i8, i8) CAST(sdt, S, i16, i16) CAST(sdt, S, i32, int) CAST(sdt, S, i64, i64) CAST(sdt, S, f16, f16) \
    CAST(sdt, S, bf16, bf16) CAST(sdt, S, f32, float) CAST(sdt, S, f64, double)
FOR_ALL(CAST_FROM)

// Advanced indexing (x[i], x[mask]): out[i] = src[offset + step], where the
// step comes from the index array: integer indices into one dimension
// (`wrap`: negative ones count from the end, then times the stride) or a
// mask's element offsets, precomputed (`wrap` 0). An integer index out of
// range is a device-side assert, as in PyTorch's index kernels: the host
// never reads a device's index tensor to check it.
// The step an index entry gives: an offset as it is, or an integer index
// wrapped and times the stride; false (and the assert) when out of range.
__device__ __forceinline__ bool index_step(i64 index, i64 size, i64 stride, int wrap, i64* step) {
    if (wrap) {
        KERNEL_ASSERT(-size <= index && index < size && "index out of bounds");
        if (index < -size || index >= size) return false;
        *step = (index < 0 ? index + size : index) * stride;
        return true;
    }
    *step = index;
    return true;
}

template <class T> __device__ __forceinline__ void take_kernel(const TakeArgs& p) {
    const T* src = (const T*)p.src;
    const i64* index = (const i64*)p.index;
    T* out = (T*)p.out;
    GRID_LOOP(i, p.shape.numel) {
        i64 step;
        if (index_step(index[offset_of(p.shape, p.si, i)], p.size, p.stride, p.wrap, &step)) {
            out[i] = src[offset_of(p.shape, p.s, i) + step];
        }
    }
}

#define TAKE(dt, T) \
    extern "C" __global__ void take_##dt(const __grid_constant__ TakeArgs p) { take_kernel<T>(p); }
FOR_ALL(TAKE)

// Advanced indexing's write (x[i] = v, x[mask] = v): dst[offset + step] =
// value[...], value converted and broadcast over the collapsed layout; the
// step as in take_kernel (an index out of range asserts and writes nothing).
template <class S, class D> __device__ __forceinline__ void put_kernel(const PutArgs& p) {
    const S* value = (const S*)p.value;
    const i64* index = (const i64*)p.index;
    D* dst = (D*)p.dst;
    GRID_LOOP(i, p.shape.numel) {
        i64 step;
        if (index_step(index[offset_of(p.shape, p.si, i)], p.size, p.stride, p.wrap, &step)) {
            dst[offset_of(p.shape, p.sd, i) + step] = Cast<S, D>::run(value[offset_of(p.shape, p.sv, i)]);
        }
    }
}

#define PUT(dt, T) \
    extern "C" __global__ void put_##dt(const __grid_constant__ PutArgs p) { put_kernel<T, T>(p); }
FOR_ALL(PUT)

// x[i] += v, PyTorch's index_put_(accumulate=True) (the backward of x[i]):
// atomic adds, so every repeated index counts; in which order they land is
// the GPU's business, as in PyTorch's atomic index kernels.
template <class T> __device__ __forceinline__ void put_add_kernel(const PutArgs& p) {
    const T* value = (const T*)p.value;
    const i64* index = (const i64*)p.index;
    T* dst = (T*)p.dst;
    GRID_LOOP(i, p.shape.numel) {
        i64 step;
        if (index_step(index[offset_of(p.shape, p.si, i)], p.size, p.stride, p.wrap, &step)) {
            atomicAdd(&dst[offset_of(p.shape, p.sd, i) + step], value[offset_of(p.shape, p.sv, i)]);
        }
    }
}

#define PUT_ADD(dt, T) \
    extern "C" __global__ void put_add_##dt(const __grid_constant__ PutArgs p) { put_add_kernel<T>(p); }
DT_f32(PUT_ADD) DT_f64(PUT_ADD)

// tril (upper = 0) and triu (upper = 1) of contiguous matrices: element (r, c)
// of each is kept where c - r is at most (at least) `diagonal`, else zero.
template <class T> __device__ __forceinline__ void tri_kernel(const TriArgs& p) {
    const T* in = (const T*)p.in;
    T* out = (T*)p.out;
    GRID_LOOP(e, p.numel) {
        i64 c = e % p.cols, r = (e / p.cols) % p.rows;
        i64 d = c - r;
        bool keep = p.upper ? d >= p.diagonal : d <= p.diagonal;
        out[e] = keep ? in[e] : from_i64<T>(0);
    }
}

#define TRI(dt, T) \
    extern "C" __global__ void tri_##dt(const __grid_constant__ TriArgs p) { tri_kernel<T>(p); }
FOR_ALL(TRI)
