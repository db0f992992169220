// The window ops of convolution and pooling (src/runtime/ops/window.rs
// computes the same on the host, element for element): an image's windows
// as columns (im2col), columns added back into their places (col2im), the
// max pooling with its maxima's places, and its gradient. One thread per
// output element; each sum runs in one fixed order, so results do not
// depend on the grid.

// A window op's sum: f16, bf16 and f32 in f32, f64 in double.
template <class T> struct WinAcc { typedef float type; };
template <> struct WinAcc<double> { typedef double type; };

// Comparisons for the maximum: exact for every type (f16 and bf16 through
// double; integers as themselves, as i64 has no exact double).
template <class T> __device__ __forceinline__ bool win_gt(T a, T b) { return a > b; }
__device__ __forceinline__ bool win_gt(f16 a, f16 b) { return to_f64(a) > to_f64(b); }
__device__ __forceinline__ bool win_gt(bf16 a, bf16 b) { return to_f64(a) > to_f64(b); }
template <class T> __device__ __forceinline__ bool win_nan(T a) { return to_f64(a) != to_f64(a); }
__device__ __forceinline__ bool win_nan(i8) { return false; }
__device__ __forceinline__ bool win_nan(i16) { return false; }
__device__ __forceinline__ bool win_nan(int) { return false; }
__device__ __forceinline__ bool win_nan(i64) { return false; }

// Output element e of the columns [planes, kh * kw, oh * ow].
template <class T> __device__ __forceinline__ void im2col_kernel(const WindowArgs& p) {
    const T* in = (const T*)p.in;
    T* out = (T*)p.out;
    i64 l = p.oh * p.ow, k = p.kh * p.kw;
    GRID_LOOP(e, p.planes * k * l) {
        i64 o = e % l, row = (e / l) % k, plane = e / (l * k);
        i64 ih = (o / p.ow) * p.sh - p.ph + (row / p.kw) * p.dh;
        i64 iw = (o % p.ow) * p.sw - p.pw + (row % p.kw) * p.dw;
        bool inside = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w;
        out[e] = inside ? in[plane * p.h * p.w + ih * p.w + iw] : from_f64<T>(0.0);
    }
}

// Image element e: the columns that read it, kernel offsets in order.
template <class T> __device__ __forceinline__ void col2im_kernel(const WindowArgs& p) {
    typedef typename WinAcc<T>::type A;
    const T* cols = (const T*)p.in;
    T* out = (T*)p.out;
    i64 l = p.oh * p.ow, k = p.kh * p.kw;
    GRID_LOOP(e, p.planes * p.h * p.w) {
        i64 plane = e / (p.h * p.w), y = (e / p.w) % p.h, x = e % p.w;
        A acc = (A)0;
        for (i64 i = 0; i < p.kh; ++i) {
            i64 hh = y + p.ph - i * p.dh;
            if (hh < 0 || hh % p.sh != 0 || hh / p.sh >= p.oh) continue;
            for (i64 j = 0; j < p.kw; ++j) {
                i64 ww = x + p.pw - j * p.dw;
                if (ww < 0 || ww % p.sw != 0 || ww / p.sw >= p.ow) continue;
                i64 at = (plane * k + i * p.kw + j) * l + (hh / p.sh) * p.ow + ww / p.sw;
                acc = acc + (A)to_f64(cols[at]);
            }
        }
        out[e] = from_f64<T>((double)acc);
    }
}

// Window e's largest element and its place, as PyTorch's kernel: an element
// larger than all before it, or NaN, takes over; padding never counts.
template <class T> __device__ __forceinline__ void max_pool_kernel(const WindowArgs& p) {
    const T* in = (const T*)p.in;
    T* out = (T*)p.out;
    i64 l = p.oh * p.ow;
    GRID_LOOP(e, p.planes * l) {
        i64 o = e % l, plane = e / l;
        const T* src = in + plane * p.h * p.w;
        T best = from_f64<T>(0.0);
        i64 place = -1;
        for (i64 i = 0; i < p.kh; ++i) {
            i64 ih = (o / p.ow) * p.sh - p.ph + i * p.dh;
            if (ih < 0 || ih >= p.h) continue;
            for (i64 j = 0; j < p.kw; ++j) {
                i64 iw = (o % p.ow) * p.sw - p.pw + j * p.dw;
                if (iw < 0 || iw >= p.w) continue;
                T v = src[ih * p.w + iw];
                if (place < 0 || win_gt(v, best) || win_nan(v)) {
                    best = v;
                    place = ih * p.w + iw;
                }
            }
        }
        out[e] = best;
        p.places[e] = place;
    }
}

// Image element e's gradient: the windows whose maximum it is, in the
// windows' order (row by row).
template <class T> __device__ __forceinline__ void max_pool_backward_kernel(const WindowArgs& p) {
    typedef typename WinAcc<T>::type A;
    const T* grad = (const T*)p.in;
    T* out = (T*)p.out;
    i64 l = p.oh * p.ow;
    GRID_LOOP(e, p.planes * p.h * p.w) {
        i64 plane = e / (p.h * p.w), y = (e / p.w) % p.h, x = e % p.w;
        A acc = (A)0;
        for (i64 i = p.kh - 1; i >= 0; --i) {
            i64 hh = y + p.ph - i * p.dh;
            if (hh < 0 || hh % p.sh != 0 || hh / p.sh >= p.oh) continue;
            for (i64 j = p.kw - 1; j >= 0; --j) {
                i64 ww = x + p.pw - j * p.dw;
                if (ww < 0 || ww % p.sw != 0 || ww / p.sw >= p.ow) continue;
                i64 at = plane * l + (hh / p.sh) * p.ow + ww / p.sw;
                if (p.places[at] == y * p.w + x) acc = acc + (A)to_f64(grad[at]);
            }
        }
        out[e] = from_f64<T>((double)acc);
    }
}

#define WINDOW_ALL(dt, T) \
    extern "C" __global__ void im2col_##dt(const __grid_constant__ WindowArgs p) { im2col_kernel<T>(p); }
#define WINDOW_NUMS(dt, T) \
    extern "C" __global__ void max_pool_##dt(const __grid_constant__ WindowArgs p) { max_pool_kernel<T>(p); }
#define WINDOW_FLOATS(dt, T)                                                                               \
    extern "C" __global__ void col2im_##dt(const __grid_constant__ WindowArgs p) { col2im_kernel<T>(p); } \
    extern "C" __global__ void max_pool_backward_##dt(const __grid_constant__ WindowArgs p) {            \
        max_pool_backward_kernel<T>(p);                                                                   \
    }
FOR_ALL(WINDOW_ALL)
FOR_NUMS(WINDOW_NUMS)
FOR_FLOATS(WINDOW_FLOATS)
