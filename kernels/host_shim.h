// Compiles the kernels as plain C++ for the CPU tests (tests/kernels_host.rs):
// the CUDA keywords become nothing, the thread indices are per-thread
// globals the test sets before each call, __syncthreads is a barrier over the
// block's threads (OS threads in the tests, fibers in the emu backend), and
// __shared__ memory is a function-local static (blocks run one at a time).
// Never part of a GPU build.

#include <cmath>
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
inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }

using std::exp; using std::log; using std::sqrt; using std::tanh; using std::pow;
using std::sin; using std::cos;
