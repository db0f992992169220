"""PyTorch's figures for the measurements of benches/gpu/main.rs, on the same
GPU, timed the same way (CUDA events around each run on one side stream, the
median of the runs after a warm-up). Prints one JSON object per line.

    python3 benches/gpu/torch_ref.py [--quick]
    python3 benches/gpu/torch_ref.py first-result
    python3 benches/gpu/torch_ref.py copies
"""

import json
import sys
import time

started = time.perf_counter()

import torch  # noqa: E402  (the import is part of the first result's time)


def emit(name, ms, **fields):
    print(json.dumps({"name": name, "ms": ms, **fields}), flush=True)


def timed(f, warm, reps, stream):
    for _ in range(warm):
        f()
    pairs = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record(stream)
        f()
        b.record(stream)
        pairs.append((a, b))
    stream.synchronize()
    ms = sorted(a.elapsed_time(b) for a, b in pairs)
    return ms[len(ms) // 2]


def main(quick):
    dev = torch.device("cuda:0")
    s = torch.cuda.Stream()
    print(torch.cuda.get_device_name(0), torch.__version__, file=sys.stderr)
    with torch.cuda.stream(s):
        g = torch.Generator(device=dev).manual_seed(7)
        n = 1 << 24 if quick else 1 << 28
        x = torch.randn(n, device=dev, generator=g)
        y = torch.randn(n, device=dev, generator=g)
        ms = timed(lambda: x + y, 3, 20, s)
        emit("add_f32", ms, n=n, gbs=12 * n / (ms * 1e6))
        dst = torch.empty_like(x)
        ms = timed(lambda: dst.copy_(x), 3, 20, s)
        emit("copy_d2d", ms, n=n, gbs=8 * n / (ms * 1e6))
        del dst
        ms = timed(lambda: x.sum(), 3, 20, s)
        emit("sum_f32", ms, n=n, gbs=4 * n / (ms * 1e6))
        side = int(n**0.5)
        m = x[: side * side].view(side, side)
        for dim, name in [(0, "sum_dim0_f32"), (1, "sum_dim1_f32")]:
            ms = timed(lambda: m.sum(dim), 3, 20, s)
            emit(name, ms, n=side * side, gbs=4 * side * side / (ms * 1e6))
        del x, y, m

        k = 2048 if quick else 8192
        for dt, name in [
            (torch.float32, "matmul_f32"),
            (torch.float16, "matmul_f16"),
            (torch.bfloat16, "matmul_bf16"),
        ]:
            a = torch.randn(k, k, device=dev, generator=g).to(dt)
            b = torch.randn(k, k, device=dev, generator=g).to(dt)
            ms = timed(lambda: a @ b, 2, 10, s)
            emit(name, ms, n=k, tflops=2 * k**3 / (ms * 1e9))
            del a, b

        copies(dev, s, quick)

        # A cached 1 MiB allocation and free, as a user reaches it.
        torch.empty(1 << 20, dtype=torch.uint8, device=dev)
        iters = 10_000 if quick else 200_000
        t = time.perf_counter()
        for _ in range(iters):
            torch.empty(1 << 20, dtype=torch.uint8, device=dev)
        ns = (time.perf_counter() - t) * 1e9 / iters
        emit("alloc_free_1mib", ns / 1e6, ns=ns)

        # 10,000 small adds from Python, eager.
        x = torch.randn(1000, device=dev, generator=g)
        one = torch.ones(1000, device=dev)
        s.synchronize()
        t = time.perf_counter()
        y = x + one
        for _ in range(9_999):
            y = y + one
        s.synchronize()
        ms = (time.perf_counter() - t) * 1e3
        emit("small_adds_10k", ms, us_per_op=ms * 1e3 / 10_000)


def copies(dev, s, quick):
    with torch.cuda.stream(s):
        nbytes = (64 << 20) if quick else (1 << 30)
        d = torch.empty(nbytes, dtype=torch.uint8, device=dev)
        pageable = torch.arange(nbytes, dtype=torch.int64).remainder_(251).to(torch.uint8)
        pinned = pageable.pin_memory()
        for kind, host in [("pageable", pageable), ("pinned", pinned)]:
            nb = kind == "pinned"
            ms = timed(lambda: d.copy_(host, non_blocking=nb), 2, 10, s)
            emit("h2d_" + kind, ms, bytes=nbytes, gbs=nbytes / (ms * 1e6))
            ms = timed(lambda: host.copy_(d, non_blocking=nb), 2, 10, s)
            emit("d2h_" + kind, ms, bytes=nbytes, gbs=nbytes / (ms * 1e6))


def first_result():
    x = torch.arange(1.0, 5.0, device="cuda:0")
    got = (x + x).tolist()
    assert got == [2.0, 4.0, 6.0, 8.0], got
    emit("first_result", (time.perf_counter() - started) * 1e3)


if __name__ == "__main__":
    if "first-result" in sys.argv:
        first_result()
    elif "copies" in sys.argv:
        copies(torch.device("cuda:0"), torch.cuda.Stream(), False)
    else:
        main("--quick" in sys.argv)
