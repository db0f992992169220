// Integer matrix products (cuBLAS has none): i32 and i64 tensors multiply in
// i64, wrapping on overflow as the simulator's `wrapping_mul` and
// `wrapping_add` do (unsigned arithmetic, so no signed-overflow UB).
// One thread per output element; each operand is row-major contiguous per
// matrix, `stride_a` / `stride_b` elements apart (0: one matrix for every batch).

extern "C" __global__ void matmul_i64(const __grid_constant__ MatmulArgs p) {
    const i64* a = (const i64*)p.a;
    const i64* b = (const i64*)p.b;
    i64* out = (i64*)p.out;
    GRID_LOOP(i, p.batch * p.m * p.n) {
        i64 t = i / (p.m * p.n);
        i64 row = (i / p.n) % p.m;
        i64 col = i % p.n;
        const i64* ra = a + t * p.stride_a + row * p.k;
        const i64* cb = b + t * p.stride_b + col;
        u64 acc = 0;
        for (i64 q = 0; q < p.k; ++q) {
            acc += (u64)ra[q] * (u64)cb[q * p.n];
        }
        out[i] = (i64)acc;
    }
}
