"""torch.nn.utils.rnn's packed sequences, as PyTorch's `rnn.py` defines
them: `PackedSequence` (a named tuple of the packed data, its batch sizes
and the permutations that sorted the batch), `pack_padded_sequence`,
`pad_packed_sequence`, `pack_sequence`, `unpack_sequence` and
`unpad_sequence`. The packing itself is the runtime's
(`_cudash.pack_padded`, PyTorch's `_pack_padded_sequence`); a recurrent
layer given a `PackedSequence` runs `_packed_forward` below."""

from collections import namedtuple
import torch
import _cudash

_Fields = namedtuple(
    "PackedSequence_",
    ["data", "batch_sizes", "sorted_indices", "unsorted_indices"],
    defaults=(None, None, None),
)


def _invert_permutation(permutation):
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


class PackedSequence(_Fields):
    """Sequences of different lengths packed step after step: `data` holds
    the running sequences of each step side by side, `batch_sizes[t]` how
    many run at step t (a CPU int64 tensor); `sorted_indices` is the order
    the packing put the batch in (None when it came sorted) and
    `unsorted_indices` its inverse."""

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        rest = {k: v for k, v in kwargs.items() if k != "device" and k != "dtype"}
        s = self.sorted_indices
        u = self.unsorted_indices
        if s is not None:
            s = s.to(data.device, **rest)
        if u is not None:
            u = u.to(data.device, **rest)
        return type(self)(data, self.batch_sizes, s, u)

    def cuda(self, *args, **kwargs):
        device = args[0] if args else kwargs.pop("device", "cuda")
        if not isinstance(device, (str, torch.device)):
            device = torch.device("cuda", device)
        return self.to(device, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to("cpu", **kwargs)

    def double(self):
        return self.to(dtype=torch.double)

    def float(self):
        return self.to(dtype=torch.float)

    def half(self):
        return self.to(dtype=torch.half)

    def long(self):
        return self.to(dtype=torch.long)

    def int(self):
        return self.to(dtype=torch.int)

    def short(self):
        return self.to(dtype=torch.short)

    def char(self):
        return self.to(dtype=torch.int8)

    def byte(self):
        return self.to(dtype=torch.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()

    def pin_memory(self):
        s = self.sorted_indices
        u = self.unsorted_indices
        return type(self)(
            self.data.pin_memory(),
            self.batch_sizes,
            None if s is None else s.pin_memory(),
            None if u is None else u.pin_memory(),
        )


def _lengths_tensor(lengths):
    if isinstance(lengths, torch.Tensor):
        return lengths.to(dtype=torch.int64)
    return torch.as_tensor(lengths, dtype=torch.int64, device="cpu")


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """A padded batch [T, B, *] ([B, T, *] with batch_first) and each
    sequence's length, packed; unless enforce_sorted, the batch is sorted
    longest first and the order kept."""
    lengths = _lengths_tensor(lengths)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = _cudash.pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, _invert_permutation(sorted_indices))


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    # As PyTorch's `_pad_packed_sequence`: a tensor of the padding, each
    # run of steps of one batch size copied into its block.
    sizes = batch_sizes.tolist()
    max_batch = sizes[0]
    steps = len(sizes)
    rest = tuple(data.shape[1:])
    output = torch.full((total_length, max_batch) + rest, padding_value, dtype=data.dtype, device=data.device)
    lengths = [0] * max_batch
    offset = 0
    prev_batch = max_batch
    prev_i = 0
    for i in range(steps + 1):
        batch = sizes[i] if i != steps else 0
        if batch != prev_batch:
            n = prev_batch * (i - prev_i)
            block = data[offset:offset + n]
            output[prev_i:i, :prev_batch] = block.view((i - prev_i, prev_batch) + rest)
            offset += n
            prev_i = i
        for j in range(batch, prev_batch):
            lengths[j] = i
        prev_batch = batch
    if batch_first:
        output = output.transpose(0, 1)
    return output, torch.tensor(lengths, dtype=torch.int64)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: the padded batch (in the order
    the sequences were given) and each sequence's length."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, "
                f"but got total_length={total_length} and max sequence length being {max_seq_length}"
            )
        max_seq_length = total_length
    padded, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first, padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded, lengths


def pack_sequence(sequences, enforce_sorted=True):
    """A list of sequences [L_i, *] packed (pad_sequence, then pack_padded_sequence)."""
    lengths = torch.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(torch.nn.utils.rnn.pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """A padded batch back into its list of sequences."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = torch.arange(max_length, device=lengths.device)
    unpadded = []
    for seq, length in zip(padded_sequences, lengths):
        mask = idx < length
        unpadded.append(seq[mask])
    return unpadded


def unpack_sequence(packed_sequences):
    """A PackedSequence back into its list of sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def _permute_hidden(hx, permutation):
    if permutation is None or hx is None:
        return hx
    if isinstance(hx, torch.Tensor):
        return hx.index_select(1, permutation)
    return (hx[0].index_select(1, permutation), hx[1].index_select(1, permutation))


def _packed_forward(rnn, input, hx=None):
    # RNNBase.forward over a PackedSequence: the state given is in the
    # caller's order, the packing's (sorted) order inside.
    data, batch_sizes, sorted_indices, unsorted_indices = input
    hx = _permute_hidden(hx, sorted_indices)
    output, hidden = _cudash.rnn_packed(rnn, data, batch_sizes, hx)
    return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), _permute_hidden(hidden, unsorted_indices)
