// Ops along one dimension of a contiguous input laid out as [outer, len,
// inner] (src/runtime/ops/along.rs): the scans cumsum and cumprod, softmax
// and log_softmax, var, std and norm.
//
// Scans: one thread per line, in order, accumulating as the simulator (and
// PyTorch's CPU kernel) does: f16 and bf16 in f32, f32 and f64 in double,
// integers and bool in wrapping i64. The rest: one block per line, every
// sum in double, one rounding at the end.

// The block's threads each pass a double; all of them get the sum (or the
// NaN-propagating maximum, MAX).
template <int MAX> __device__ __forceinline__ double along_block(double v) {
    __shared__ double sh[MAX_BLOCK];
    u32 t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (u32 s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            double a = sh[t], b = sh[t + s];
            sh[t] = MAX ? ((a != a || b != b) ? a + b : (b > a ? b : a)) : a + b;
        }
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

__device__ __forceinline__ double along_inf() { return bits_f64(0x7FF0000000000000ULL); }

// Element k of line `line`.
__device__ __forceinline__ i64 along_at(const AlongArgs& p, i64 line, i64 k) {
    i64 o = line / p.inner, i = line % p.inner;
    return (o * p.len + k) * p.inner + i;
}

template <class T> struct ScanAcc { typedef double type; };
template <> struct ScanAcc<f16> { typedef float type; };
template <> struct ScanAcc<bf16> { typedef float type; };

// An integer scan's element (the float overload is never called: it keeps
// the untaken branch of scan_kernel compiling for float types).
template <class T> __device__ __forceinline__ i64 scan_i64(T x) { return sat_i64(to_f64(x)); }
__device__ __forceinline__ i64 scan_i64(bool x) { return to_i64(x); }
__device__ __forceinline__ i64 scan_i64(u8 x) { return to_i64(x); }
__device__ __forceinline__ i64 scan_i64(i8 x) { return to_i64(x); }
__device__ __forceinline__ i64 scan_i64(i16 x) { return to_i64(x); }
__device__ __forceinline__ i64 scan_i64(int x) { return to_i64(x); }
__device__ __forceinline__ i64 scan_i64(i64 x) { return to_i64(x); }

template <class T, int PROD> __device__ __forceinline__ void scan_kernel(const AlongArgs& p) {
    const T* in = (const T*)p.in;
    GRID_LOOP(line, p.outer * p.inner) {
        if (Kind<T>::is_int || Kind<T>::is_bool) {
            i64 acc = PROD ? 1 : 0;
            for (i64 k = 0; k < p.len; ++k) {
                i64 at = along_at(p, line, k);
                i64 x = scan_i64(in[at]);
                acc = PROD ? (i64)((u64)acc * (u64)x) : (i64)((u64)acc + (u64)x);
                ((i64*)p.out)[at] = acc;
            }
        } else {
            typedef typename ScanAcc<T>::type A;
            A acc = PROD ? (A)1 : (A)0;
            for (i64 k = 0; k < p.len; ++k) {
                i64 at = along_at(p, line, k);
                A x = (A)to_f64(in[at]);
                acc = PROD ? acc * x : acc + x;
                ((T*)p.out)[at] = from_f64<T>((double)acc);
            }
        }
    }
}

// softmax (LOG = 0) or log_softmax (LOG = 1): the line's maximum, the sum of
// exp(x - max), then every element.
template <class T, int LOG> __device__ __forceinline__ void softmax_kernel(const AlongArgs& p) {
    const T* in = (const T*)p.in;
    T* out = (T*)p.out;
    for (i64 line = blockIdx.x; line < p.outer * p.inner; line += gridDim.x) {
        double m = -along_inf();
        for (i64 k = threadIdx.x; k < p.len; k += blockDim.x) {
            double x = to_f64(in[along_at(p, line, k)]);
            m = (m != m || x != x) ? m + x : (x > m ? x : m);
        }
        m = along_block<1>(m);
        double s = 0.0;
        for (i64 k = threadIdx.x; k < p.len; k += blockDim.x) s += exp(to_f64(in[along_at(p, line, k)]) - m);
        s = along_block<0>(s);
        double ln = log(s);
        for (i64 k = threadIdx.x; k < p.len; k += blockDim.x) {
            i64 at = along_at(p, line, k);
            double d = to_f64(in[at]) - m;
            out[at] = from_f64<T>(LOG ? d - ln : exp(d) / s);
        }
    }
}

// var (SQRT = 0) or std (SQRT = 1) with correction p.param: the mean, then
// the squared deviations, over max(0, n - correction).
template <class T, int SQRT> __device__ __forceinline__ void var_kernel(const AlongArgs& p) {
    const T* in = (const T*)p.in;
    for (i64 line = blockIdx.x; line < p.outer * p.inner; line += gridDim.x) {
        double s = 0.0;
        for (i64 k = threadIdx.x; k < p.len; k += blockDim.x) s += to_f64(in[along_at(p, line, k)]);
        double n = (double)p.len;
        double mean = along_block<0>(s) / n;
        double ss = 0.0;
        for (i64 k = threadIdx.x; k < p.len; k += blockDim.x) {
            double d = to_f64(in[along_at(p, line, k)]) - mean;
            ss += d * d;
        }
        ss = along_block<0>(ss);
        double div = n - p.param > 0.0 ? n - p.param : 0.0;
        double v = ss / div;
        if (threadIdx.x == 0) ((T*)p.out)[line] = from_f64<T>(SQRT ? sqrt(v) : v);
    }
}

// The p-norm (p.param): non-zeros for 0, the largest (smallest) magnitude
// for inf (-inf), (sum |x|^p)^(1/p) otherwise. Accumulated in float but for
// double (PyTorch's opmath type): each thread's sum in A, the block's
// partials combined in double and rounded to A once.
template <class T> struct NormAcc { typedef float type; };
__device__ __forceinline__ float along_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double along_pow(double a, double b) { return pow(a, b); }
__device__ __forceinline__ float along_sqrt(float a) { return sqrtf(a); }
__device__ __forceinline__ double along_sqrt(double a) { return sqrt(a); }
template <> struct NormAcc<double> { typedef double type; };

template <class T> __device__ __forceinline__ void norm_kernel(const AlongArgs& p) {
    typedef typename NormAcc<T>::type A;
    const T* in = (const T*)p.in;
    const double q = p.param, inf = along_inf();
    const A qa = (A)q;
    const int extreme = q == inf || q == -inf;
    for (i64 line = blockIdx.x; line < p.outer * p.inner; line += gridDim.x) {
        // inf and -inf: the maximum of |x| or of -|x|, in double (exact).
        double ext = -inf;
        A acc = 0;
        for (i64 k = threadIdx.x; k < p.len; k += blockDim.x) {
            double x = to_f64(in[along_at(p, line, k)]);
            if (extreme) {
                double a = x < 0.0 ? -x : x;
                double v = q > 0.0 ? a : -a;
                ext = (ext != ext || v != v) ? ext + v : (v > ext ? v : ext);
            } else {
                A a = (A)x;
                a = a < 0 ? -a : a;
                if (q == 0.0) acc += x != 0.0 ? (A)1 : (A)0;
                else if (q == 1.0) acc += a;
                else if (q == 2.0) acc += a * a;
                else acc += along_pow(a, qa);
            }
        }
        double r;
        if (extreme) {
            r = along_block<1>(ext);
            if (q < 0.0) r = -r;
        } else {
            A sum = (A)along_block<0>((double)acc);
            if (q == 2.0) sum = along_sqrt(sum);
            else if (q != 0.0 && q != 1.0) sum = along_pow(sum, (A)1 / qa);
            r = (double)sum;
        }
        if (threadIdx.x == 0) ((T*)p.out)[line] = from_f64<T>(r);
    }
}

#define ALONG_SCANS(dt, T)                                                                                          \
    extern "C" __global__ void cumsum_##dt(const __grid_constant__ AlongArgs p) { scan_kernel<T, 0>(p); }  \
    extern "C" __global__ void cumprod_##dt(const __grid_constant__ AlongArgs p) { scan_kernel<T, 1>(p); }
#define ALONG_FLOATS(dt, T)                                                                                      \
    extern "C" __global__ void softmax_##dt(const __grid_constant__ AlongArgs p) { softmax_kernel<T, 0>(p); }     \
    extern "C" __global__ void log_softmax_##dt(const __grid_constant__ AlongArgs p) { softmax_kernel<T, 1>(p); } \
    extern "C" __global__ void var_##dt(const __grid_constant__ AlongArgs p) { var_kernel<T, 0>(p); }             \
    extern "C" __global__ void std_##dt(const __grid_constant__ AlongArgs p) { var_kernel<T, 1>(p); }             \
    extern "C" __global__ void norm_##dt(const __grid_constant__ AlongArgs p) { norm_kernel<T>(p); }
FOR_ALL(ALONG_SCANS)
FOR_FLOATS(ALONG_FLOATS)
