// The launcher side of kernels/host_shim.h: where the thread indices live,
// and how the test runs one thread of one block.

// Compiled with host_shim.h included first.

thread_local dim3 threadIdx;
thread_local dim3 blockIdx;
dim3 blockDim;
dim3 gridDim;
std::barrier<>* emu_block_barrier = nullptr;

extern "C" void emu_launch_dims(unsigned int grid, unsigned int block) {
    gridDim = dim3{grid, 1, 1};
    blockDim = dim3{block, 1, 1};
}

extern "C" void emu_thread(unsigned int block, unsigned int thread) {
    blockIdx = dim3{block, 0, 0};
    threadIdx = dim3{thread, 0, 0};
}

// The condition of the first failed KERNEL_ASSERT since the last
// emu_take_assert. Blocks run one at a time, but a test's threads of one
// block run at once: a lock keeps the first.
namespace {
std::mutex assert_lock;
char assert_text[512];
bool assert_seen = false;
}  // namespace

extern "C" void emu_assert_failed(const char* assertion) {
    std::lock_guard<std::mutex> guard(assert_lock);
    if (assert_seen) return;
    assert_seen = true;
    std::snprintf(assert_text, sizeof assert_text, "%s", assertion);
}

// Whether an assertion failed since the last call; its text goes to `out`
// (`len` bytes, NUL-terminated) and the record is cleared.
extern "C" int emu_take_assert(char* out, unsigned long len) {
    std::lock_guard<std::mutex> guard(assert_lock);
    if (!assert_seen) return 0;
    assert_seen = false;
    if (len > 0) std::snprintf(out, len, "%s", assert_text);
    return 1;
}

// A block whose threads run concurrently (kernels that call __syncthreads).
extern "C" void emu_begin_block(unsigned int threads) { emu_block_barrier = new std::barrier<>(threads); }
extern "C" void emu_end_block() { delete emu_block_barrier; emu_block_barrier = nullptr; }

// Runs a kernel's whole grid (the `emu` backend's launch): `args` holds its
// argument struct's bytes. Blocks run one after another. The threads of a
// kernel that synchronises run as fibers on the calling thread: each runs
// until its next __syncthreads, then the next one, so every thread of the
// block has reached the barrier before any goes past it.
#include <ucontext.h>
#include <vector>

void (*emu_fiber_sync)() = nullptr;

namespace {
constexpr size_t FIBER_STACK = 256 * 1024;

struct Fibers {
    ucontext_t scheduler;
    std::vector<ucontext_t> context;
    std::vector<std::vector<char>> stacks;
    std::vector<char> done;
    unsigned int current = 0;
    void (*body)(const void*) = nullptr;
    const void* arg = nullptr;
};
Fibers* const fibers = new Fibers();  // never destroyed; launches are serialised

void fiber_yield() { swapcontext(&fibers->context[fibers->current], &fibers->scheduler); }

void fiber_main(int id) {
    fibers->body(fibers->arg);
    fibers->done[id] = 1;
}  // returning resumes the scheduler (uc_link)

// Runs `body(arg)` once per thread of block `b`, as fibers.
void run_fibers(unsigned int b, unsigned int block, void (*body)(const void*), const void* arg) {
    Fibers& f = *fibers;
    f.context.resize(block);
    f.done.assign(block, 0);
    while (f.stacks.size() < block) f.stacks.emplace_back(FIBER_STACK);
    f.body = body;
    f.arg = arg;
    for (unsigned int t = 0; t < block; ++t) {
        getcontext(&f.context[t]);
        f.context[t].uc_stack.ss_sp = f.stacks[t].data();
        f.context[t].uc_stack.ss_size = FIBER_STACK;
        f.context[t].uc_link = &f.scheduler;
        makecontext(&f.context[t], reinterpret_cast<void (*)()>(fiber_main), 1, (int)t);
    }
    emu_fiber_sync = fiber_yield;
    for (bool running = true; running;) {
        running = false;
        for (unsigned int t = 0; t < block; ++t) {
            if (f.done[t]) continue;
            f.current = t;
            emu_thread(b, t);
            swapcontext(&f.scheduler, &f.context[t]);
            running |= !f.done[t];
        }
    }
    emu_fiber_sync = nullptr;
}

template <class A> struct Call {
    void (*kernel)(A);
    A a;
    static void run(const void* p) {
        const Call* c = static_cast<const Call*>(p);
        c->kernel(c->a);
    }
};
}  // namespace

template <class A>
static void emu_run(void (*kernel)(A), const void* args, unsigned int grid, unsigned int block, int syncs) {
    Call<A> call{kernel, {}};
    std::memcpy(static_cast<void*>(&call.a), args, sizeof(A));
    emu_launch_dims(grid, block);
    for (unsigned int b = 0; b < grid; ++b) {
        if (syncs) {
            run_fibers(b, block, &Call<A>::run, &call);
        } else {
            for (unsigned int t = 0; t < block; ++t) {
                emu_thread(b, t);
                kernel(call.a);
            }
        }
    }
}
