// Random numbers from Philox4x32-10, drawing exactly what the simulator draws
// (src/runtime/rng.rs): block b of a draw is philox(first + b, seed) and gives
// four numbers; uniform is the top 24 bits, normal is Box-Muller in double.

struct Philox { u32 w[4]; };

__device__ __forceinline__ Philox philox(u64 counter, u64 seed) {
    u32 c0 = (u32)counter, c1 = (u32)(counter >> 32), c2 = 0, c3 = 0;
    u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
    for (int r = 0; r < 10; ++r) {
        u64 p0 = (u64)0xD2511F53u * c0;
        u64 p1 = (u64)0xCD9E8D57u * c2;
        u32 hi0 = (u32)(p0 >> 32), lo0 = (u32)p0;
        u32 hi1 = (u32)(p1 >> 32), lo1 = (u32)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    Philox out;
    out.w[0] = c0; out.w[1] = c1; out.w[2] = c2; out.w[3] = c3;
    return out;
}

template <class T> __device__ __forceinline__ void uniform_kernel(const RandomArgs& p) {
    T* out = (T*)p.out;
    i64 blocks = (p.n + 3) / 4;
    GRID_LOOP(b, blocks) {
        Philox w = philox(p.first + (u64)b, p.seed);
        for (int j = 0; j < 4 && 4 * b + j < p.n; ++j) {
            out[4 * b + j] = from_f64<T>((double)(w.w[j] >> 8) * (1.0 / 16777216.0));
        }
    }
}

// mean + std * z, as normal_() computes it; randn has mean 0 and std 1.
template <class T> __device__ __forceinline__ void normal_kernel(const RandomArgs& p) {
    T* out = (T*)p.out;
    i64 blocks = (p.n + 3) / 4;
    GRID_LOOP(b, blocks) {
        Philox w = philox(p.first + (u64)b, p.seed);
        double z[4];
        for (int pair = 0; pair < 2; ++pair) {
            double u1 = ((double)w.w[2 * pair] + 1.0) / 4294967296.0;
            double u2 = (double)w.w[2 * pair + 1] / 4294967296.0;
            double r = sqrt(-2.0 * log(u1));
            double t = 6.283185307179586 * u2;
            z[2 * pair] = r * cos(t);
            z[2 * pair + 1] = r * sin(t);
        }
        for (int j = 0; j < 4 && 4 * b + j < p.n; ++j) {
            out[4 * b + j] = from_f64<T>(p.mean + p.std * z[j]);
        }
    }
}

// randint: each word modulo the range, as PyTorch's random_from_to takes a
// 32-bit draw; a range wider than 2^32 takes the word and the next one of
// its block as 64 bits (rng.rs's `integer`). Integers wrap; floats round.
template <class T> __device__ __forceinline__ void integers_kernel(const RandomArgs& p) {
    T* out = (T*)p.out;
    i64 blocks = (p.n + 3) / 4;
    GRID_LOOP(b, blocks) {
        Philox w = philox(p.first + (u64)b, p.seed);
        for (int j = 0; j < 4 && 4 * b + j < p.n; ++j) {
            u64 draw = p.range > ((u64)1 << 32) ? (((u64)w.w[j] << 32) | (u64)w.w[(j + 1) % 4]) : (u64)w.w[j];
            i64 v = (i64)((u64)p.low + draw % p.range);
            out[4 * b + j] = from_i64<T>(v);
        }
    }
}

#define RANDOM(dt, T)                                                                       \
    extern "C" __global__ void uniform_##dt(const __grid_constant__ RandomArgs p) { uniform_kernel<T>(p); } \
    extern "C" __global__ void normal_##dt(const __grid_constant__ RandomArgs p) { normal_kernel<T>(p); }
FOR_FLOATS(RANDOM)
#define INTEGERS(dt, T) \
    extern "C" __global__ void integers_##dt(const __grid_constant__ RandomArgs p) { integers_kernel<T>(p); }
FOR_NUMS(INTEGERS)
