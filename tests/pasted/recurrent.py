"""Recurrent layers as the tutorials use them: a word-level language model
(Embedding, a two-layer LSTM with dropout, a decoder, hidden states carried
and detached between batches), a bidirectional GRU, an RNN with relu, the
cells stepped by hand as the time-sequence example does, the states'
shapes and graph, and PyTorch's errors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def fill(model, scale=0.3):
    # Weights from a formula, so every device starts from the same numbers.
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            k = torch.arange(p.numel(), dtype=torch.float32)
            p.copy_((torch.sin(k * 0.7 + i) * scale).reshape(p.shape))


def data(*shape, phase=0.0):
    n = 1
    for s in shape:
        n *= s
    k = torch.arange(n, dtype=torch.float32)
    return torch.cos(k * 0.37 + phase).reshape(shape).to(device)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super(RNNModel, self).__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout, batch_first=True)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output)
        return F.log_softmax(decoded, dim=-1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros((self.nlayers, bsz, self.nhid)),
                weight.new_zeros((self.nlayers, bsz, self.nhid)))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


model = RNNModel(11, 6, 8, 2, dropout=0.2)
print(model)
print([name for name, _ in model.rnn.named_parameters()])
print(model.rnn.hidden_size, model.rnn.num_layers, model.rnn.batch_first, model.rnn.bidirectional)
fill(model)
model.to(device)
model.eval()  # no dropout: the same numbers on every device
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
tokens = torch.tensor([(i * 7 + 3) % 11 for i in range(4 * 9)]).reshape(4, 9).to(device)
hidden = model.init_hidden(4)
for step in range(5):
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    hidden = repackage_hidden(hidden)
    optimizer.zero_grad()
    output, hidden = model(inputs, hidden)
    loss = F.nll_loss(output.reshape(-1, 11), targets.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
    print(f"step {step} loss {loss.item():.6f}")
h, c = hidden
print(tuple(output.shape), tuple(h.shape), tuple(c.shape))
print(f"h {h.sum().item():.6f} c {c.sum().item():.6f}")
print(type(hidden).__name__, h.requires_grad, h.grad_fn.name())

# A bidirectional GRU, sequence first, its gradients.
gru = nn.GRU(3, 5, num_layers=2, bidirectional=True)
fill(gru, 0.4)
gru.to(device)
x = data(7, 2, 3).requires_grad_()
h0 = data(4, 2, 5, phase=1.0)
out, hn = gru(x, h0)
print(tuple(out.shape), tuple(hn.shape), out.grad_fn.name(), hn.grad_fn.name())
(out.sum() + hn.pow(2).sum()).backward()
print(f"out {out.sum().item():.6f} hn {hn.sum().item():.6f}")
print(f"x.grad {x.grad.sum().item():.5f} {x.grad.abs().sum().item():.5f}")
for name, p in gru.named_parameters():
    print(name, tuple(p.shape), f"{p.grad.sum().item():.5f}")

# An RNN with relu, unbatched input, no bias.
rnn = nn.RNN(3, 4, nonlinearity="relu", bias=False)
print(rnn, rnn.nonlinearity)
fill(rnn, 0.5)
rnn.to(device)
out, hn = rnn(data(6, 3))
print(tuple(out.shape), tuple(hn.shape), out.grad_fn.name())
print([round(v, 5) for v in hn.reshape(-1).tolist()])

# Cells stepped by hand, as the time-sequence example steps LSTMCells.
lstm1 = nn.LSTMCell(1, 6)
lstm2 = nn.LSTMCell(6, 6)
linear = nn.Linear(6, 1)
for m in [lstm1, lstm2, linear]:
    fill(m, 0.25)
    m.to(device)
series = data(3, 10)
h_t = torch.zeros(3, 6, device=device)
c_t = torch.zeros(3, 6, device=device)
h_t2 = torch.zeros(3, 6, device=device)
c_t2 = torch.zeros(3, 6, device=device)
outputs = []
for input_t in series.split(1, dim=1):
    h_t, c_t = lstm1(input_t, (h_t, c_t))
    h_t2, c_t2 = lstm2(h_t, (h_t2, c_t2))
    outputs += [linear(h_t2)]
outputs = torch.cat(outputs, dim=1)
loss = F.mse_loss(outputs, series)
loss.backward()
print(f"cells loss {loss.item():.6f} grad {lstm1.weight_hh.grad.sum().item():.6f} {lstm2.bias_ih.grad.sum().item():.6f}")
print(h_t.grad_fn.name(), c_t.grad_fn.name(), lstm1)
gcell = nn.GRUCell(3, 2)
rcell = nn.RNNCell(3, 2, bias=False, nonlinearity="relu")
fill(gcell)
fill(rcell)
gcell.to(device)
rcell.to(device)
print(gcell, rcell, rcell.bias_ih)
print([round(v, 5) for v in gcell(data(3)).tolist()], [round(v, 5) for v in rcell(data(2, 3)).reshape(-1).tolist()])

# What PyTorch refuses, with its words.
lstm = nn.LSTM(3, 4).to(device)
for bad in [
    lambda: lstm(data(5, 2, 2)),
    lambda: lstm(data(1, 5, 2, 3)),
    lambda: lstm(data(5, 2, 3), (data(1, 3, 4), data(1, 3, 4))),
    lambda: lstm(data(5, 2, 3), (data(1, 2, 4), data(2, 2, 4))),
    lambda: lstm(data(5, 2, 3), (data(2, 4), data(2, 4))),
    lambda: gru(data(5, 2, 3), data(4, 3, 5)),
    lambda: gru(data(5, 3), data(4, 2, 5)),
    lambda: lstm(data(5, 2, 3).double()),
    lambda: lstm(data(0, 2, 3)),
    lambda: nn.LSTMCell(3, 4)(data(2, 5)),
    lambda: nn.GRUCell(3, 4)(data(2, 3), data(3, 4)),
    lambda: nn.LSTMCell(3, 4)(data(2, 3), (data(2, 4), data(2, 5))),
    lambda: nn.RNNCell(3, 4)(data(2, 2, 3)),
    lambda: nn.LSTM(3, 4, dropout=1.5),
    lambda: nn.RNN(3, 4, nonlinearity="sigmoid"),
]:
    try:
        bad()
        print("no error")
    except Exception as e:
        print(type(e).__name__ + ":", e)
