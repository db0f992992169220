"""A whole model saved and loaded as PyTorch's examples do it: the word
language model keeps its best model with `torch.save(model, f)` into an
open file and reads it back with `torch.load(f)` after training (then
`flatten_parameters()`); the super-resolution example saves a checkpoint
of the whole model each epoch and its inference script loads one. Since
PyTorch 2.6 such a load needs `weights_only=False`, and the program's
classes must be defined where it loads.
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
folder = tempfile.mkdtemp()


def fill(model, scale=0.3):
    # Weights from a formula, so every device starts from the same numbers.
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            k = torch.arange(p.numel(), dtype=torch.float32)
            p.copy_((torch.sin(k * 0.7 + i) * scale).reshape(p.shape))


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


ntokens, bptt, bsz = 9, 5, 3
stream = torch.tensor([(k * 7 + k // 3) % ntokens for k in range(3 * 31)]).view(bsz, -1).t().contiguous().to(device)


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def evaluate(model, source):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(bsz)
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, bptt):
            data, targets = get_batch(source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * F.nll_loss(output, targets).item()
    return total_loss / (len(source) - 1)


for rnn_type, tied in [("LSTM", False), ("GRU", True)]:
    model = RNNModel(rnn_type, ntokens, 6, 6, 2, dropout=0.0, tie_weights=tied).to(device)
    fill(model)
    save = os.path.join(folder, f"model_{rnn_type}.pt")
    lr, best_val_loss = 2.0, None
    for epoch in range(1, 4):
        model.train()
        hidden = model.init_hidden(bsz)
        for batch, i in enumerate(range(0, stream.size(0) - 1, bptt)):
            data, targets = get_batch(stream, i)
            model.zero_grad()
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
            loss = F.nll_loss(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
        val_loss = evaluate(model, stream)
        print('| end of epoch {:3d} | valid loss {:5.3f} | valid ppl {:8.3f}'.format(epoch, val_loss, math.exp(val_loss)))
        if not best_val_loss or val_loss < best_val_loss:
            with open(save, 'wb') as f:
                torch.save(model, f)
            best_val_loss = val_loss
        else:
            lr /= 4.0
    with open(save, 'rb') as f:
        model = torch.load(f, weights_only=False)
        if rnn_type in ['RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU']:
            model.rnn.flatten_parameters()
    print(f'| {rnn_type} best: test loss {evaluate(model, stream):5.3f} | tied {model.decoder.weight is model.encoder.weight} | {type(model.rnn).__name__}')


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, 8, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        return self.pixel_shuffle(self.conv3(x))


def checkpoint(model, epoch):
    model_out_path = os.path.join(folder, "model_epoch_{}.pth".format(epoch))
    torch.save(model, model_out_path)
    print("Checkpoint saved to {}".format(os.path.basename(model_out_path)))


k = torch.arange(2 * 36, dtype=torch.float32)
low = torch.sin(k * 0.3).reshape(2, 1, 6, 6).to(device)
high = torch.cos(k.repeat(4) * 0.11).reshape(2, 1, 12, 12).to(device)
sr = Net(upscale_factor=2).to(device)
fill(sr, 0.2)
optimizer = torch.optim.Adam(sr.parameters(), lr=0.01)
for epoch in range(1, 3):
    loss = F.mse_loss(sr(low), high)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"===> Epoch {epoch} Complete: Loss: {loss.item():.5f}")
    checkpoint(sr, epoch)

model = torch.load(os.path.join(folder, "model_epoch_2.pth"), weights_only=False)
out = model(low)
print(out.shape, round(F.mse_loss(out, high).item(), 5), model.conv1.padding, model.pixel_shuffle.upscale_factor)
try:
    torch.load(os.path.join(folder, "model_epoch_1.pth"))
except Exception as e:
    print(type(e).__name__, "GLOBAL __main__.Net was not an allowed global" in str(e))
