"""What processes share as Python's multiprocessing (and torch.multiprocessing)
gives it: a Queue of tensors two producers fill (each kept alive until the
consumer has taken its tensors, as PyTorch's sharing of tensors between
processes needs), a Value counted under a Lock, an Event, and a Pool's
map, starmap, apply and apply_async.
"""
import time
import torch
import torch.multiprocessing as mp
from queue import Empty

def producer(q, n, counter, lock, done):
    for i in range(n):
        q.put(torch.full((2,), float(i)))
        with lock:
            counter.value += 1
    q.put(None)
    done.wait()

def square(x):
    return x * x

def add(a, b):
    return a + b

def waiter(e, q):
    e.wait()
    q.put("event seen by " + mp.current_process().name)

if __name__ == "__main__":
    q = mp.Queue()
    counter = mp.Value('i', 0)
    lock = mp.Lock()
    consumed = mp.Event()
    ps = [mp.Process(target=producer, args=(q, 3, counter, lock, consumed)) for _ in range(2)]
    for p in ps: p.start()
    got, done = [], 0
    while done < 2:
        x = q.get()
        if x is None:
            done += 1
        else:
            got.append(x.sum().item())
    consumed.set()
    for p in ps: p.join()
    print(sorted(got), counter.value)
    try:
        q.get(timeout=0.01)
    except Empty:
        print("empty")
    with mp.Pool(3) as pool:
        print(pool.map(square, range(7)), pool.starmap(add, [(1, 2), (3, 4)]), pool.apply(add, (5, 6)))
        r = pool.apply_async(square, (9,))
        print(r.get())
    e = mp.Event()
    p = mp.Process(target=waiter, args=(e, q), name="waiter")
    p.start()
    e.set()
    print(q.get())
    p.join()
    print(e.is_set(), counter, mp.current_process().name)
