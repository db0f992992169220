# A character-level model in the style of karpathy/makemore: a Dataset of
# words, an endless loader that `next` draws from (a RandomSampler with
# replacement and 10**10 samples), causal self-attention masked with
# `masked_fill`, a context made with `torch.roll`, a block whose MLP is a
# lambda closing over the block, a training step made by a function that
# keeps its count with `nonlocal`, a timing decorator, and chained
# assignments. The weights start from a formula, so the numbers are
# PyTorch's.
import math

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import Dataset, DataLoader, RandomSampler

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper"]


class CharDataset(Dataset):

    def __init__(self, words, chars, max_word_length):
        self.words = words
        self.chars = chars
        self.max_word_length = max_word_length
        self.stoi = {ch: i + 1 for i, ch in enumerate(chars)}
        self.itos = {i: s for s, i in self.stoi.items()}

    def __len__(self):
        return len(self.words)

    def get_vocab_size(self):
        return len(self.chars) + 1

    def get_output_length(self):
        return self.max_word_length + 1

    def encode(self, word):
        return torch.tensor([self.stoi[w] for w in word], dtype=torch.long)

    def decode(self, ix):
        return "".join(self.itos[i] for i in ix)

    def __getitem__(self, idx):
        word = self.words[idx]
        ix = self.encode(word)
        x = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        y = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        x[1:1 + len(ix)] = ix
        y[:len(ix)] = ix
        y[len(ix) + 1:] = -1
        return x, y


class InfiniteDataLoader:
    """makemore's: one iterator kept, `next` per step, a new pass when one ends."""

    def __init__(self, dataset, **kwargs):
        train_sampler = torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10))
        self.train_loader = DataLoader(dataset, sampler=train_sampler, **kwargs)
        self.data_iter = iter(self.train_loader)

    def next(self):
        try:
            batch = next(self.data_iter)
        except StopIteration:
            self.data_iter = iter(self.train_loader)
            batch = next(self.data_iter)
        return batch


class CausalSelfAttention(nn.Module):

    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                                     .view(1, 1, block_size, block_size))
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):

    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.ModuleDict(dict(
            c_fc=nn.Linear(n_embd, 4 * n_embd),
            c_proj=nn.Linear(4 * n_embd, n_embd),
            act=nn.GELU(),
        ))
        m = self.mlp
        self.mlpf = lambda x: m.c_proj(m.act(m.c_fc(x)))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlpf(self.ln_2(x))
        return x


class Model(nn.Module):
    """Attention over the sequence, plus the previous character's embedding
    brought in with torch.roll (makemore's MLP builds its context so)."""

    def __init__(self, vocab_size, block_size, n_embd=8, n_head=2):
        super().__init__()
        self.block_size = block_size
        self.vocab_size = vocab_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.prev = nn.Embedding(vocab_size + 1, n_embd)
        self.block = Block(n_embd, n_head, block_size)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        before = torch.roll(idx, 1, 1)
        before[:, 0] = self.vocab_size
        x = self.wte(idx) + self.wpe(pos) + self.prev(before)
        logits = self.lm_head(self.block(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss


def timed(label):
    def wrap(fn):
        def inner(*args, **kwargs):
            out = fn(*args, **kwargs)
            print(f"[{label}] {fn.__name__} done")
            return out
        return inner
    return wrap


def make_step(model, optimizer):
    steps = 0
    def step(X, Y):
        nonlocal steps
        logits, loss = model(X, Y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        steps += 1
        return steps, loss.item()
    return step


@timed("sample")
def generate(model, dataset, n):
    idx = h = torch.zeros(n, 1, dtype=torch.long)
    for _ in range(dataset.get_output_length() - 1):
        logits, _ = model(idx)
        nxt = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        idx = torch.cat((idx, nxt), dim=1)
    out = []
    for row in idx[:, 1:].tolist():
        crop = row.index(0) if 0 in row else len(row)
        out.append(dataset.decode(row[:crop]))
    return out, h.shape


chars = sorted(list(set("".join(WORDS))))
max_word_length = max(len(w) for w in WORDS)
dataset = CharDataset(WORDS, chars, max_word_length)
vocab_size, block_size = dataset.get_vocab_size(), dataset.get_output_length()
print(f"vocab_size={vocab_size}, block_size={block_size}, words={len(dataset)}")
x, y = dataset[2]
print(x.tolist(), y.tolist())

endless = InfiniteDataLoader(dataset, batch_size=3, num_workers=0)
print(len(endless.train_loader))
for _ in range(3):
    X, Y = endless.next()
    print(tuple(X.shape), X.dtype, int((Y >= 0).sum() > 0))

model = Model(vocab_size, block_size)
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (0.7 + .1 * k)).reshape(p.shape) * .3)
print(f"params: {sum(p.numel() for p in model.parameters())}")
print(model.block.attn(torch.ones(1, 3, 8)).sum().item() != 0.0)

optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2, weight_decay=0.01, betas=(0.9, 0.99), eps=1e-8)
step = make_step(model, optimizer)
whole = DataLoader(dataset, batch_size=len(dataset), sampler=RandomSampler(dataset))
best = last = None
for epoch in range(40):
    for X, Y in whole:
        n, loss = step(X, Y)
    last = loss
    best = loss if best is None or loss < best else best
    if n % 10 == 0:
        print(f"step {n} | loss {loss:.4f}")
print(f"best {best:.4f}, last {last:.4f}")

names, shape = generate(model, dataset, 3)
print(names, tuple(shape))
