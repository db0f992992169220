"""torch.utils.data's iterable-style datasets for cudash: `IterableDataset`
(a stream whose `__iter__` gives the samples), `ChainDataset`, and the
DataLoader over one (`DataLoader(stream, batch_size=4)` comes here from
`eval/data.rs`). Written for cudash in Python after PyTorch's
`_IterableDatasetFetcher` and `_MultiProcessingDataLoaderIter`:

- each pass draws the base seed from torch's generator (or the loader's
  `generator`) as every PyTorch pass does, so later draws match;
- batches are `batch_size` consecutive samples collated (`collate_fn`, or
  the default collate), the last one short unless `drop_last`;
  `batch_size=None` gives the samples themselves;
- with `num_workers=N`, each worker has its own copy of the dataset
  (as a forked worker's: the map-style loader's copy), iterates all of it, seeds
  torch's and Python's generators with `base_seed + id`, runs
  `worker_init_fn(id)`, and sees itself in `get_worker_info()`; batches
  come round robin from the workers still going, in the order PyTorch's
  main process receives them (`prefetch_factor * N` tasks ahead: a task a
  worker gets after its stream ended is skipped). The workers run in turn
  on the session's thread: their generators are their own, but a module
  variable one changes is the session's (a forked worker's is its own),
  and `profile` shows no worker lanes for them.
- `shuffle`, `sampler` and `batch_sampler` are PyTorch's ValueErrors."""
import itertools
import random

import torch
import _cudash


class IterableDataset:
    """A dataset that is a stream: derive from it and give `__iter__`."""

    _cudash_iterable = True

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not getattr(d, "_cudash_iterable", False):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not getattr(d, "_cudash_iterable", False):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class WorkerInfo:
    def __init__(self, id, num_workers, seed, dataset):
        self.id = id
        self.num_workers = num_workers
        self.seed = seed
        self.dataset = dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, dataset={self.dataset!r})"


_current = [None]


def get_worker_info():
    """In a DataLoader worker: its `id`, `num_workers`, `seed` and copy of
    the dataset; None on the session's own thread."""
    if _current[0] is not None:
        return _current[0]
    return _cudash.get_worker_info()


def default_collate(batch):
    """PyTorch's default collate: the samples' tensors and numbers stacked
    field by field (tuples, lists and dicts kept), strings listed."""
    return _cudash.default_collate(list(batch))


def default_convert(data):
    """What a loader with `batch_size=None` gives for a sample: the sample."""
    return data


class _Worker:
    """One worker of a pass: its dataset copy, its generators' states
    between its turns, its stream of samples."""

    def __init__(self, loader, k, base_seed):
        self.info = WorkerInfo(k, loader.num_workers, base_seed + k, _cudash.worker_copy(loader.dataset))
        self.going = True
        self.stream = None
        self.states = None
        self.loader = loader

    def turn(self, body):
        """`body()` run as this worker: its generators and worker info."""
        saved = (torch.get_rng_state(), random.getstate(), _current[0])
        _current[0] = self.info
        try:
            if self.states is None:
                torch.manual_seed(self.info.seed)
                random.seed(self.info.seed)
                if self.loader.worker_init_fn is not None:
                    self.loader.worker_init_fn(self.info.id)
                self.stream = iter(self.info.dataset)
            else:
                torch.set_rng_state(self.states[0])
                random.setstate(self.states[1])
            return body()
        finally:
            self.states = (torch.get_rng_state(), random.getstate())
            torch.set_rng_state(saved[0])
            random.setstate(saved[1])
            _current[0] = saved[2]


class _IterableLoader:
    """A DataLoader over an iterable dataset."""

    def __init__(self, dataset, batch_size, num_workers, collate_fn, pin_memory, drop_last,
                 worker_init_fn, generator, prefetch_factor, persistent_workers):
        self.dataset = dataset
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory
        self.drop_last = drop_last
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.sampler = None
        self.batch_sampler = None

    def __len__(self):
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size

    def __repr__(self):
        return "<torch.utils.data.dataloader.DataLoader object>"

    def _collate(self, samples):
        if self.collate_fn is not None:
            return self.collate_fn(samples)
        if self.batch_size is None:
            return default_convert(samples)
        return default_collate(samples)

    def _fetch(self, stream):
        """One batch from `stream`, or StopIteration where it ends."""
        if self.batch_size is None:
            return self._collate(next(stream))
        data = []
        for _ in range(self.batch_size):
            try:
                data.append(next(stream))
            except StopIteration:
                break
        if len(data) == 0 or (self.drop_last and len(data) < self.batch_size):
            raise StopIteration
        return self._collate(data)

    def _pinned(self, batch):
        if not self.pin_memory or not torch.cuda.is_available():
            return batch
        return _pin(batch)

    def __iter__(self):
        base_seed = torch.empty((), dtype=torch.int64).random_(generator=self.generator).item()
        if self.num_workers == 0:
            stream = iter(self.dataset)
            while True:
                try:
                    batch = self._fetch(stream)
                except StopIteration:
                    return
                yield self._pinned(batch)
        workers = [_Worker(self, k, base_seed) for k in range(self.num_workers)]
        cycle = itertools.cycle(range(self.num_workers))
        tasks = []

        def put():
            for _ in range(self.num_workers):
                k = next(cycle)
                if workers[k].going:
                    tasks.append(k)
                    return

        ahead = (self.prefetch_factor or 2) * self.num_workers
        for _ in range(ahead):
            put()
        while tasks:
            k = tasks.pop(0)
            w = workers[k]
            if not w.going:
                continue
            try:
                batch = w.turn(lambda: self._fetch(w.stream))
            except StopIteration:
                w.going = False
                put()
                continue
            put()
            yield self._pinned(batch)


def _pin(batch):
    if isinstance(batch, torch.Tensor):
        return batch.pin_memory()
    if isinstance(batch, (list, tuple)):
        return type(batch)(_pin(b) for b in batch)
    if isinstance(batch, dict):
        return {k: _pin(v) for k, v in batch.items()}
    return batch


def loader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
           collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
           multiprocessing_context=None, generator=None, prefetch_factor=None,
           persistent_workers=False, pin_memory_device="", in_order=True):
    """`DataLoader(dataset, ...)` of an iterable dataset, with PyTorch's checks."""
    if shuffle not in (None, False):
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler={batch_sampler}")
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
    if batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
    return _IterableLoader(dataset, batch_size, num_workers, collate_fn, pin_memory, drop_last,
                           worker_init_fn, generator, prefetch_factor, persistent_workers)


class StackDataset(torch.utils.data.Dataset):
    """Datasets of one length read together: sample `i` is the tuple of
    each one's (given positionally) or the dict of each one's by name."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- "
                                 "(via ``kwargs``) like input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self):
        return self._length
