"""Packed sequences as NLP programs use them (the chatbot tutorial's
encoder, sequence classifiers over batches of different lengths):
pack_padded_sequence into an LSTM or a bidirectional GRU, the output
padded back, each sequence's last state taken from h_n; unsorted batches
(enforce_sorted=False), pack_sequence and unpack_sequence, the batch
sizes, the graph, training, and PyTorch's errors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pad_packed_sequence,
    pack_sequence,
    unpack_sequence,
    pad_sequence,
)

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def fill(model, scale=0.3):
    # Weights from a formula, so every device starts from the same numbers.
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            k = torch.arange(p.numel(), dtype=torch.float32)
            p.copy_((torch.sin(k * 0.7 + i) * scale).reshape(p.shape))


def rounded(t, places=4):
    return [round(v, places) for v in t.flatten().tolist()]


# A batch of token sequences of different lengths, padded with 0.
seqs = [torch.tensor([(3 * i + 7 * j) % 19 + 1 for j in range(n)]) for i, n in enumerate([5, 2, 4, 1])]
lengths = [len(s) for s in seqs]
padded = pad_sequence(seqs, batch_first=True).to(device)
print(padded.shape, lengths)

packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print(type(packed).__name__, packed.data.tolist())
print(packed.batch_sizes.tolist(), packed.sorted_indices.tolist(), packed.unsorted_indices.tolist())
print(isinstance(packed, tuple), len(packed), packed.is_cuda == (device == "cuda"))
data, batch_sizes, sorted_indices, unsorted_indices = packed
print(batch_sizes.tolist(), data.device.type == device)

back, back_lengths = pad_packed_sequence(packed, batch_first=True)
print(torch.equal(back, padded), back_lengths.tolist())
back, _ = pad_packed_sequence(packed, batch_first=True, total_length=7, padding_value=-1)
print(back.shape, back[3].tolist())

ps = pack_sequence([torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0]), torch.tensor([6.0])])
print(ps.data.tolist(), ps.batch_sizes.tolist(), ps.sorted_indices)
moved = ps.to(device)
print(moved.data.device.type == device, moved.batch_sizes.device.type, moved.to(device) is moved, ps.double().data.dtype)
print([t.tolist() for t in unpack_sequence(pack_sequence([torch.tensor([1, 2]), torch.tensor([3, 4, 5])], enforce_sorted=False))])


class EncoderRNN(nn.Module):
    """The chatbot tutorial's encoder: embedding, a bidirectional GRU over
    the packed batch, the two directions' outputs summed."""

    def __init__(self, hidden_size, embedding, n_layers=1, dropout=0):
        super(EncoderRNN, self).__init__()
        self.n_layers = n_layers
        self.hidden_size = hidden_size
        self.embedding = embedding
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers,
                          dropout=(0 if n_layers == 1 else dropout), bidirectional=True)

    def forward(self, input_seq, input_lengths, hidden=None):
        embedded = self.embedding(input_seq)
        packed = nn.utils.rnn.pack_padded_sequence(embedded, input_lengths)
        outputs, hidden = self.gru(packed, hidden)
        outputs, _ = nn.utils.rnn.pad_packed_sequence(outputs)
        outputs = outputs[:, :, :self.hidden_size] + outputs[:, :, self.hidden_size:]
        return outputs, hidden


hidden = 6
embedding = nn.Embedding(20, hidden)
encoder = EncoderRNN(hidden, embedding, n_layers=2)
fill(encoder)
encoder.to(device)
order = sorted(range(len(seqs)), key=lambda i: -lengths[i])
input_seq = pad_sequence([seqs[i] for i in order]).to(device)
input_lengths = torch.tensor([lengths[i] for i in order])
outputs, h = encoder(input_seq, input_lengths)
print(outputs.shape, h.shape)
print(rounded(outputs.sum(dim=(0, 2))), rounded(h.sum(dim=2)))
print(outputs[4:, 1:].abs().sum().item(), outputs.grad_fn.name())


class Classifier(nn.Module):
    """A sequence classifier: each sequence's last state (h_n of the
    packed LSTM) into a linear layer."""

    def __init__(self, vocab, dim, hidden, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(self.embed(x), lengths, batch_first=True, enforce_sorted=False)
        _, (h_n, c_n) = self.lstm(packed)
        return self.out(h_n[-1])


torch.manual_seed(0)
model = Classifier(20, 5, 8, 3)
fill(model, 0.4)
model.to(device)
labels = torch.tensor([0, 2, 1, 2]).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(5):
    optimizer.zero_grad()
    logits = model(padded, lengths)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.5f}")
print(rounded(model.lstm.weight_hh_l0.grad.sum(dim=1)))

# The last state of each sequence is its own last step, in the caller's order.
lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
fill(lstm)
lstm.to(device)
x = torch.cos(torch.arange(5 * 3 * 3, dtype=torch.float32) * 0.3).reshape(5, 3, 3).to(device)
x.requires_grad_()
h0 = torch.sin(torch.arange(4 * 3 * 4, dtype=torch.float32)).reshape(4, 3, 4).to(device)
c0 = torch.cos(torch.arange(4 * 3 * 4, dtype=torch.float32)).reshape(4, 3, 4).to(device)
out, (h_n, c_n) = lstm(pack_padded_sequence(x, [2, 5, 3], enforce_sorted=False), (h0, c0))
print(type(out).__name__, out.data.shape, out.batch_sizes.tolist())
padded_out, out_lengths = pad_packed_sequence(out)
print(out_lengths.tolist(), rounded(padded_out.sum(dim=(0, 2))))
print(rounded(h_n.sum(dim=2)), rounded(c_n.sum(dim=2)))
alone, (h_alone, _) = lstm(x[:2, 0:1], (h0[:, 0:1].contiguous(), c0[:, 0:1].contiguous()))
print(torch.allclose(h_alone[:, 0], h_n[:, 0], atol=1e-6), torch.allclose(alone[:, 0], padded_out[:2, 0], atol=1e-6))
(padded_out.sum() + h_n.sum() + c_n.sum()).backward()
print(rounded(x.grad.sum(dim=(0, 2))), x.grad[2:, 0].abs().sum().item())
print(h_n.grad_fn.name(), out.data.grad_fn.name())

for bad in ([5, 0, 3], [3, 4, 5]):
    try:
        pack_padded_sequence(x, bad)
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    pad_packed_sequence(out, total_length=3)
except ValueError as e:
    print("ValueError:", e)
