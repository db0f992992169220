"""A word-level language model on a small text, written as PyTorch's
tutorials write their data utilities: a Dictionary(object) whose dicts grow
through `self`, a Corpus that tokenizes into a list, Python's lists and
dicts changed in place, tuples printed, a model of Embedding and Linear.

The text and the initial weights are in the program (no random numbers),
so cudash and PyTorch print the same numbers.
"""
import torch
import torch.nn as nn

TEXT = """the cat sat on the mat
the dog sat on the log
a cat and a dog met on the mat"""


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = {}
        self.idx = 0

    def add_word(self, word):
        if not word in self.word2idx:
            self.word2idx[word] = self.idx
            self.idx2word[self.idx] = word
            self.idx += 1

    def __len__(self):
        return len(self.word2idx)


class Corpus(object):
    def __init__(self):
        self.dictionary = Dictionary()
        self.counts = {}

    def tokenize(self, text):
        ids = []
        for line in text.split("\n"):
            words = line.split() + ["<eos>"]
            for word in words:
                self.dictionary.add_word(word)
                self.counts[word] = self.counts.get(word, 0) + 1
            ids += [self.dictionary.word2idx[w] for w in words]
        return ids


corpus = Corpus()
ids = corpus.tokenize(TEXT)
vocab_size = len(corpus.dictionary)
print(f"{len(ids)} tokens, {vocab_size} words")
print(ids[:8], corpus.dictionary.idx2word[3])
common = sorted(corpus.counts.items(), key=lambda kv: kv[1], reverse=True)[:3]
print("most common:", common)

# Pad to whole batches with <eos>, then one row per batch.
seq_len = 4
eos = corpus.dictionary.word2idx["<eos>"]
padded = ids + [eos] * (-len(ids) % seq_len)
rows = [padded[i:i + seq_len] for i in range(0, len(padded), seq_len)]
print(len(rows), "rows of", len(rows[0]), rows[-1])


class LanguageModel(nn.Module):
    def __init__(self, vocab_size, embed_size):
        super(LanguageModel, self).__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.linear = nn.Linear(embed_size, vocab_size)

    def forward(self, x):
        return self.linear(torch.tanh(self.embed(x)))


model = LanguageModel(vocab_size, 6)
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        values = torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (0.3 + 0.1 * k)) * 0.5
        p.copy_(values.reshape(p.shape))

data = torch.tensor(rows)
inputs, targets = data[:, :-1], data[:, 1:]
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
history = {"loss": [], "best": None}
for step in range(5):
    outputs = model(inputs)
    loss = criterion(outputs.reshape(-1, vocab_size), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history["loss"].append(round(loss.item(), 4))
    if history["best"] is None or loss.item() < history["best"][1]:
        history["best"] = (step, round(loss.item(), 4))
print("losses:", history["loss"])
print("best:", history["best"])

# The next word after each of a few words, by the trained model.
words = ["the", "cat", "sat"]
with torch.no_grad():
    picks = model(torch.tensor([corpus.dictionary.word2idx[w] for w in words])).argmax(dim=1)
pairs = list(zip(words, [corpus.dictionary.idx2word[i] for i in picks.tolist()]))
print(pairs)
summary = {w: corpus.counts[w] for w in words}
summary.update(total=sum(corpus.counts.values()))
del summary["sat"]
print(summary, len(summary), "cat" in summary)
