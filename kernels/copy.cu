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
    CAST(sdt, S, bool, bool) CAST(sdt, S, i32, int) CAST(sdt, S, i64, i64) CAST(sdt, S, f16, f16) \
    CAST(sdt, S, bf16, bf16) CAST(sdt, S, f32, float) CAST(sdt, S, f64, double)
FOR_ALL(CAST_FROM)
