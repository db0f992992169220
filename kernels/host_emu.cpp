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

// A block whose threads run concurrently (kernels that call __syncthreads).
extern "C" void emu_begin_block(unsigned int threads) { emu_block_barrier = new std::barrier<>(threads); }
extern "C" void emu_end_block() { delete emu_block_barrier; emu_block_barrier = nullptr; }

// Runs a kernel's whole grid (the `emu` backend's launch): `args` holds its
// argument struct's bytes. Blocks run one after another; a kernel that
// synchronises gets one OS thread per GPU thread of the block.
#include <thread>
#include <vector>
template <class A>
static void emu_run(void (*kernel)(A), const void* args, unsigned int grid, unsigned int block, int syncs) {
    A a;
    std::memcpy(static_cast<void*>(&a), args, sizeof(A));
    emu_launch_dims(grid, block);
    for (unsigned int b = 0; b < grid; ++b) {
        if (syncs) {
            emu_begin_block(block);
            std::vector<std::thread> threads;
            threads.reserve(block);
            for (unsigned int t = 0; t < block; ++t)
                threads.emplace_back([=] { emu_thread(b, t); kernel(a); });
            for (auto& t : threads) t.join();
            emu_end_block();
        } else {
            for (unsigned int t = 0; t < block; ++t) {
                emu_thread(b, t);
                kernel(a);
            }
        }
    }
}
