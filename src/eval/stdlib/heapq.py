"""Python's `heapq`: a list kept as a binary min-heap (`heappush`,
`heappop`, `heapify`, `heappushpop`, `heapreplace`) and `nlargest`,
`nsmallest` (with `key`, ties in the order the items came), as beam
searches and schedulers use them. The heap's order of items is
Python's (the same sift-down and sift-up), so a program's heap holds its
items where CPython's would. Written for cudash in Python."""


def _sift_toward_root(heap, start, pos):
    item = heap[pos]
    while pos > start:
        parent = (pos - 1) // 2
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
            continue
        break
    heap[pos] = item


def _sift_to_leaf(heap, pos):
    # Move the smaller child up until a leaf, then the item back toward the
    # root: fewer comparisons, and the order CPython's heapq leaves.
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_toward_root(heap, start, pos)


def heappush(heap, item):
    heap.append(item)
    _sift_toward_root(heap, 0, len(heap) - 1)


def heappop(heap):
    if not heap:
        raise IndexError("index out of range")
    last = heap.pop()
    if heap:
        top = heap[0]
        heap[0] = last
        _sift_to_leaf(heap, 0)
        return top
    return last


def heapreplace(heap, item):
    if not heap:
        raise IndexError("index out of range")
    top = heap[0]
    heap[0] = item
    _sift_to_leaf(heap, 0)
    return top


def heappushpop(heap, item):
    if heap and heap[0] < item:
        item, heap[0] = heap[0], item
        _sift_to_leaf(heap, 0)
    return item


def heapify(x):
    for i in reversed(range(len(x) // 2)):
        _sift_to_leaf(x, i)


def nsmallest(n, iterable, key=None):
    """The `n` smallest items, smallest first (equal ones in the order
    they came)."""
    return sorted(iterable, key=key)[: max(n, 0)]


def nlargest(n, iterable, key=None):
    """The `n` largest items, largest first (equal ones in the order they
    came)."""
    return sorted(iterable, key=key, reverse=True)[: max(n, 0)]
