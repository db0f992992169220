// Compiles the kernels as plain C++ for the CPU tests (tests/kernels_host.rs):
// the CUDA keywords become nothing, the thread indices are per-thread
// globals the test sets before each call, __syncthreads is a barrier over the
// block's threads (OS threads in the tests, fibers in the emu backend), and
// __shared__ memory is a function-local static (blocks run one at a time).
// Never part of a GPU build.

#include <cmath>
#include <limits>
#include <math.h>
#include <cstring>
#include <barrier>
#include <cstdio>
#include <mutex>

struct dim3 { unsigned int x, y, z; };

extern thread_local dim3 threadIdx;
extern thread_local dim3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
extern std::barrier<>* emu_block_barrier;

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ inline
#define __shared__ static
#define __grid_constant__
#define ASSUME_GLOBAL(p)

// Set while a block's threads run as fibers on one OS thread (the emu
// backend): the barrier is a switch to the next fiber.
extern void (*emu_fiber_sync)();

inline void __syncthreads() {
    if (emu_block_barrier) emu_block_barrier->arrive_and_wait();
    else if (emu_fiber_sync) emu_fiber_sync();
}

// A failed KERNEL_ASSERT (common.cuh) on the CPU: the first one of a launch
// is kept for the emu driver, which reports it as a GPU reports
// CUDA_ERROR_ASSERT; the thread goes on past it.
extern "C" void emu_assert_failed(const char* assertion);
#define KERNEL_ASSERT(cond) \
    do { if (!(cond)) emu_assert_failed(#cond); } while (0)

inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
// CUDA's reciprocal square roots, as 1 / sqrt (a GPU's rsqrtf differs by
// up to 2 ulp; ops::pow_shortcut computes the host's value the same way).
// CUDA's atomicAdd: a launch's threads run one after another on the CPU,
// so an add is atomic here; the old value is returned, as on a GPU.
template <class T> inline T atomicAdd(T* at, T v) { T old = *at; *at = old + v; return old; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
// CUDA's erfinv / erfinvf, as the host computes them (ops/elementwise.rs,
// PyTorch's CPU method, in double for a float too): a rational first guess
// refined by two Newton steps on erf(x) = y. A GPU's own may differ in the
// last places.
inline double erfinv(double y) {
    const double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
    const double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
    const double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
    const double d[2] = {3.543889200, 1.637067800};
    const double two_over_sqrt_pi = 1.12837916709551257390;
    double y_abs = std::fabs(y), x;
    if (y_abs > 1.0) return std::numeric_limits<double>::quiet_NaN();
    if (y_abs == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
    if (y_abs <= 0.7) {
        double z = y * y;
        double num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
        double dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0;
        x = y * num / dem;
    } else {
        double z = std::sqrt(-std::log((1.0 - y_abs) / 2.0));
        double num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
        double dem = (d[1] * z + d[0]) * z + 1.0;
        x = std::copysign(num, y) / dem;
    }
    for (int i = 0; i < 2; ++i) x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
    return x;
}
inline float erfinvf(float y) { return (float)erfinv((double)y); }
inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }

using std::exp; using std::log; using std::sqrt; using std::tanh; using std::pow;
using std::sin; using std::cos;
