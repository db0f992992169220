"""PyTorch's `ConcatDataset`, as cudash gives it (written for cudash, as
PyTorch 2.15's `torch/utils/data/dataset.py` defines it): the samples of
several map-style datasets one after another; sample `i` is found by the
running totals of their lengths (`cumulative_sizes`).

`from torch.utils.data import ConcatDataset`, `torch.utils.data.ConcatDataset`
and `dataset_a + dataset_b` read this module."""
from torch.utils.data import Dataset


class ConcatDataset(Dataset):
    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            n = len(e)
            r.append(n + s)
            s += n
        return r

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        # Python's bisect.bisect_right of the running totals.
        dataset_idx = 0
        while dataset_idx < len(self.cumulative_sizes) and self.cumulative_sizes[dataset_idx] <= idx:
            dataset_idx += 1
        if dataset_idx == 0:
            sample_idx = idx
        else:
            sample_idx = idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]
