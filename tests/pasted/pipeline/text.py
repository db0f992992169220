def tokenize(lines):
    """Each line's words, lower-cased, as they are asked for."""
    for line in lines:
        for word in line.lower().split():
            yield word.strip(".,")


class Vocabulary:
    def __init__(self, words):
        self.words = sorted({w for w in words})
        self.index = {w: i for i, w in enumerate(self.words)}

    def __len__(self):
        return len(self.words)
