// Fused attention, as PyTorch's flash and memory-efficient kernels compute
// it: no [L, S] matrix of scores is stored. One thread per query row (the
// forward, dq) or key row (dk, dv); each recomputes the scores it needs,
// sums in double in one fixed order, and rounds once, as the host's
// src/runtime/ops/attention.rs does, element for element. A row's output
// is built CHUNK columns at a time, so any width fits in registers.

#define ATTN_CHUNK 32

__device__ __forceinline__ double attn_inf() { return bits_f64(0x7FF0000000000000ULL); }

// The log-sum-exp's type: double for f64 inputs, float otherwise.
template <class T> struct AttnLse { typedef float type; };
template <> struct AttnLse<double> { typedef double type; };

// Where row (b, h, i) of a result laid out with strides `s` begins.
__device__ __forceinline__ i64 attn_at(const i64* s, i64 b, i64 h, i64 i) { return b * s[0] + h * s[1] + i * s[2]; }

// Query row i's score against key row j of (batch b, head h).
template <class T>
__device__ __forceinline__ double attn_score(const AttentionArgs& p, i64 b, i64 h, i64 i, i64 j) {
    if (p.causal && j > i) return -attn_inf();
    const T* q = (const T*)p.q + b * p.qs[0] + h * p.qs[1] + i * p.qs[2];
    const T* k = (const T*)p.k + b * p.ks[0] + h * p.ks[1] + j * p.ks[2];
    double dot = 0.0;
    for (i64 e = 0; e < p.e; ++e) dot += to_f64(q[e * p.qs[3]]) * to_f64(k[e * p.ks[3]]);
    dot *= p.scale;
    if (p.has_bias) {
        const T* bias = (const T*)p.bias;
        dot += to_f64(bias[b * p.bs[0] + h * p.bs[1] + i * p.bs[2] + j * p.bs[3]]);
    }
    return dot;
}

// Element (b, h, row, c) of an operand read through its strides `s`.
template <class T>
__device__ __forceinline__ double attn_read(const void* x, const i64* s, i64 b, i64 h, i64 row, i64 c) {
    return to_f64(((const T*)x)[b * s[0] + h * s[1] + row * s[2] + c * s[3]]);
}
#define attn_v(p, b, h, j, c) attn_read<T>(p.v, p.vs, b, h, j, c)
#define attn_dout(p, b, h, i, c) attn_read<T>(p.dout, p.gs, b, h, i, c)
#define attn_q(p, b, h, i, c) attn_read<T>(p.q, p.qs, b, h, i, c)
#define attn_k(p, b, h, j, c) attn_read<T>(p.k, p.ks, b, h, j, c)

// Row r = (b, h, i): its log-sum-exp, then its output.
template <class T> __device__ __forceinline__ void attention_kernel(const AttentionArgs& p) {
    typedef typename AttnLse<T>::type L;
    T* out = (T*)p.out;
    L* lse = (L*)p.lse;
    GRID_LOOP(r, p.b * p.h * p.l) {
        i64 i = r % p.l, h = (r / p.l) % p.h, b = r / (p.l * p.h);
        double m = -attn_inf();
        for (i64 j = 0; j < p.s; ++j) {
            double s = attn_score<T>(p, b, h, i, j);
            if (s > m) m = s;
        }
        if (m == -attn_inf()) {
            lse[r] = (L)m;
            for (i64 c = 0; c < p.ev; ++c) out[attn_at(p.os, b, h, i) + c] = from_f64<T>(0.0);
            continue;
        }
        double sum = 0.0;
        for (i64 j = 0; j < p.s; ++j) sum += exp(attn_score<T>(p, b, h, i, j) - m);
        double ls = m + log(sum);
        lse[r] = (L)ls;
        for (i64 c0 = 0; c0 < p.ev; c0 += ATTN_CHUNK) {
            double acc[ATTN_CHUNK];
            i64 w = p.ev - c0 < ATTN_CHUNK ? p.ev - c0 : ATTN_CHUNK;
            for (i64 c = 0; c < w; ++c) acc[c] = 0.0;
            for (i64 j = 0; j < p.s; ++j) {
                double pr = exp(attn_score<T>(p, b, h, i, j) - ls);
                for (i64 c = 0; c < w; ++c) acc[c] += pr * attn_v(p, b, h, j, c0 + c);
            }
            for (i64 c = 0; c < w; ++c) out[attn_at(p.os, b, h, i) + c0 + c] = from_f64<T>(acc[c]);
        }
    }
}

// Query row r = (b, h, i): delta = dot(dout, out), then dq.
template <class T> __device__ __forceinline__ void attention_backward_q_kernel(const AttentionArgs& p) {
    typedef typename AttnLse<T>::type L;
    const T* out = (const T*)p.out;
    const L* lse = (const L*)p.lse;
    T* dq = (T*)p.dq;
    GRID_LOOP(r, p.b * p.h * p.l) {
        i64 i = r % p.l, h = (r / p.l) % p.h, b = r / (p.l * p.h);
        double delta = 0.0;
        for (i64 c = 0; c < p.ev; ++c) delta += attn_dout(p, b, h, i, c) * to_f64(out[attn_at(p.os, b, h, i) + c]);
        p.delta[r] = delta;
        double ls = (double)lse[r];
        for (i64 c0 = 0; c0 < p.e; c0 += ATTN_CHUNK) {
            double acc[ATTN_CHUNK];
            i64 w = p.e - c0 < ATTN_CHUNK ? p.e - c0 : ATTN_CHUNK;
            for (i64 c = 0; c < w; ++c) acc[c] = 0.0;
            if (ls != -attn_inf()) {
                for (i64 j = 0; j < p.s; ++j) {
                    double pr = exp(attn_score<T>(p, b, h, i, j) - ls);
                    double dp = 0.0;
                    for (i64 c = 0; c < p.ev; ++c) dp += attn_dout(p, b, h, i, c) * attn_v(p, b, h, j, c);
                    double ds = pr * (dp - delta) * p.scale;
                    for (i64 c = 0; c < w; ++c) acc[c] += ds * attn_k(p, b, h, j, c0 + c);
                }
            }
            for (i64 c = 0; c < w; ++c) dq[attn_at(p.dqs, b, h, i) + c0 + c] = from_f64<T>(acc[c]);
        }
    }
}

// Key row r = (b, h, j): dv, then dk, over every query row in order.
template <class T> __device__ __forceinline__ void attention_backward_kv_kernel(const AttentionArgs& p) {
    typedef typename AttnLse<T>::type L;
    const L* lse = (const L*)p.lse;
    T* dk = (T*)p.dk;
    T* dv = (T*)p.dv;
    GRID_LOOP(r, p.b * p.h * p.s) {
        i64 j = r % p.s, h = (r / p.s) % p.h, b = r / (p.s * p.h);
        i64 rows = (b * p.h + h) * p.l;
        for (i64 c0 = 0; c0 < p.ev; c0 += ATTN_CHUNK) {
            double acc[ATTN_CHUNK];
            i64 w = p.ev - c0 < ATTN_CHUNK ? p.ev - c0 : ATTN_CHUNK;
            for (i64 c = 0; c < w; ++c) acc[c] = 0.0;
            for (i64 i = 0; i < p.l; ++i) {
                double ls = (double)lse[rows + i];
                if (ls == -attn_inf()) continue;
                double pr = exp(attn_score<T>(p, b, h, i, j) - ls);
                for (i64 c = 0; c < w; ++c) acc[c] += pr * attn_dout(p, b, h, i, c0 + c);
            }
            for (i64 c = 0; c < w; ++c) dv[attn_at(p.dvs, b, h, j) + c0 + c] = from_f64<T>(acc[c]);
        }
        for (i64 c0 = 0; c0 < p.e; c0 += ATTN_CHUNK) {
            double acc[ATTN_CHUNK];
            i64 w = p.e - c0 < ATTN_CHUNK ? p.e - c0 : ATTN_CHUNK;
            for (i64 c = 0; c < w; ++c) acc[c] = 0.0;
            for (i64 i = 0; i < p.l; ++i) {
                double ls = (double)lse[rows + i];
                if (ls == -attn_inf()) continue;
                double pr = exp(attn_score<T>(p, b, h, i, j) - ls);
                double dp = 0.0;
                for (i64 c = 0; c < p.ev; ++c) dp += attn_dout(p, b, h, i, c) * attn_v(p, b, h, j, c);
                double ds = pr * (dp - p.delta[rows + i]) * p.scale;
                for (i64 c = 0; c < w; ++c) acc[c] += ds * attn_q(p, b, h, i, c0 + c);
            }
            for (i64 c = 0; c < w; ++c) dk[attn_at(p.dks, b, h, j) + c0 + c] = from_f64<T>(acc[c]);
        }
    }
}

#define ATTENTION_FLOATS(dt, T)                                                                             \
    extern "C" __global__ void attention_##dt(const __grid_constant__ AttentionArgs p) {                   \
        attention_kernel<T>(p);                                                                          \
    }                                                                                                     \
    extern "C" __global__ void attention_backward_q_##dt(const __grid_constant__ AttentionArgs p) {        \
        attention_backward_q_kernel<T>(p);                                                               \
    }                                                                                                     \
    extern "C" __global__ void attention_backward_kv_##dt(const __grid_constant__ AttentionArgs p) {       \
        attention_backward_kv_kernel<T>(p);                                                              \
    }
FOR_FLOATS(ATTENTION_FLOATS)
