"""Python's dicts and sets as text programs use them, timed in cudash and in
this Python side by side, best of 3:

- vocab: a seq2seq tutorial's `Lang` over 200,000 words (50,000 distinct):
  `word2index`/`word2count`/`index2word` grown word by word;
- count: `counts[w] = counts.get(w, 0) + 1` over the same words, then a
  `Counter(...).most_common(10)`;
- grid: `grid[i, j]` of a 300x300 table by tuple keys, written and summed;
- members: `w in seen` of a set of 50,000 words, 200,000 times.

Usage: python benches/python_dicts.py CUDASH   (prints a markdown table)
"""

import os
import subprocess
import sys
import tempfile

CUDASH = sys.argv[1]

PROGRAM = """
import time
from collections import Counter
words = ["w%d" % ((i * 7919) % 50000) for i in range(200000)]
def best(step):
    t_best, check = 1e9, None
    for _ in range(3):
        t = time.time()
        check = step()
        t_best = min(t_best, time.time() - t)
    return t_best, check
class Lang:
    def __init__(self):
        self.word2index = {}
        self.word2count = {}
        self.index2word = {0: "SOS", 1: "EOS"}
        self.n_words = 2
    def addWord(self, word):
        if word not in self.word2index:
            self.word2index[word] = self.n_words
            self.word2count[word] = 1
            self.index2word[self.n_words] = word
            self.n_words += 1
        else:
            self.word2count[word] += 1
def vocab():
    lang = Lang()
    for w in words:
        lang.addWord(w)
    return lang.n_words + lang.word2count["w0"]
def count():
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return len(counts) + Counter(words).most_common(1)[0][1]
def grid():
    g = {}
    for i in range(300):
        for j in range(300):
            g[i, j] = i + j
    return sum(g[i, j] for i in range(300) for j in range(300))
seen = set(words[:50000])
def members():
    return sum(1 for w in words if w in seen)
for name, step in [("vocab", vocab), ("count", count), ("grid", grid), ("members", members)]:
    t, check = best(step)
    print(name, t, check)
"""


def run(argv, path):
    out = subprocess.run(argv + [path], capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: (float(line.split()[1]), line.split()[2]) for line in out.splitlines()}


def main():
    fd, program = tempfile.mkstemp(suffix=".py")
    with os.fdopen(fd, "w") as f:
        f.write(PROGRAM)
    ours = run([CUDASH, "--sim-devices", "0", "script"], program)
    theirs = run([sys.executable], program)
    print("| step | cudash (s) | CPython (s) | cudash / CPython |")
    print("|---|---|---|---|")
    for step in ["vocab", "count", "grid", "members"]:
        assert ours[step][1] == theirs[step][1], (step, ours[step], theirs[step])
        print(f"| {step} | {ours[step][0]:.3f} | {theirs[step][0]:.3f} | {ours[step][0] / theirs[step][0]:.1f}× |")
    os.unlink(program)


main()
