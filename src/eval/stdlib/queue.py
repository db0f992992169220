"""Python's `queue`: the `Empty` and `Full` that `multiprocessing`'s
queues raise, and a `Queue` for one program (no other thread takes from
it here, so a `get` on an empty one without a timeout is an error, not a
hang)."""
from collections import deque as _deque


class Empty(Exception):
    pass


class Full(Exception):
    pass


class Queue:
    def __init__(self, maxsize=0):
        self.maxsize = maxsize
        self._items = _deque()

    def qsize(self):
        return len(self._items)

    def empty(self):
        return not self._items

    def full(self):
        return 0 < self.maxsize <= len(self._items)

    def put(self, item, block=True, timeout=None):
        if self.full():
            raise Full()
        self._items.append(item)

    def put_nowait(self, item):
        self.put(item, False)

    def get(self, block=True, timeout=None):
        if not self._items:
            if block and timeout is None:
                raise RuntimeError("get() on an empty queue would wait forever: no other thread puts into it here")
            raise Empty()
        return self._items.popleft()

    def get_nowait(self):
        return self.get(False)

    def task_done(self):
        pass

    def join(self):
        pass
