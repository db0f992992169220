"""One case of benches/recurrent.py: a word-level language model as
PyTorch's word_language_model example builds it (Embedding 64, two layers
of 128, seq 35, batch 20, vocabulary 1000), forward, backward, clipping and
SGD, timed over its steps after two warm-up steps; or the same LSTM stepped
cell by cell (`lstm-cells`)."""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

case = sys.argv[1] if len(sys.argv) > 1 else "lstm"
torch.manual_seed(0)
ntoken, ninp, nhid, seq, batch, steps = 1000, 64, 128, 35, 20, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        if case == "gru":
            self.rnn = nn.GRU(ninp, nhid, 2)
        elif case == "lstm":
            self.rnn = nn.LSTM(ninp, nhid, 2)
        else:
            self.cell1 = nn.LSTMCell(ninp, nhid)
            self.cell2 = nn.LSTMCell(nhid, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x):
        emb = self.encoder(x)
        if case in ("gru", "lstm"):
            out, _ = self.rnn(emb)
        else:
            h1 = torch.zeros(batch, nhid)
            c1 = torch.zeros(batch, nhid)
            h2 = torch.zeros(batch, nhid)
            c2 = torch.zeros(batch, nhid)
            outs = []
            for t in range(seq):
                h1, c1 = self.cell1(emb[t], (h1, c1))
                h2, c2 = self.cell2(h1, (h2, c2))
                outs.append(h2)
            out = torch.stack(outs)
        return F.log_softmax(self.decoder(out), dim=-1)


model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randint(0, ntoken, (seq, batch))
y = torch.randint(0, ntoken, (seq, batch))


def step():
    opt.zero_grad()
    loss = F.nll_loss(model(x).reshape(-1, ntoken), y.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    opt.step()
    return loss.item()


step()
step()
start = time.perf_counter()
for _ in range(steps):
    step()
took = time.perf_counter() - start
print(f"{case} per step: {took / steps * 1000:.3f} ms")
