# PyTorch's examples/mnist_forward_forward, shortened: Hinton's
# forward-forward training, each layer a class derived from nn.Linear
# with an Adam of its own, trained on positive data (the label written
# into the first pixels) against negative data (a wrong label drawn with
# torch.randint). MNIST is replaced by 96 images of 64 pixels from a
# formula; the example's own seed is added (it never seeds), and its
# losses are printed to 6 places (their last float bits may differ).
import argparse
import math

import torch
import torch.nn as nn
from torch.optim import Adam

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--lr", type=float, default=0.03)
parser.add_argument("--threshold", type=float, default=2)
parser.add_argument("--log-interval", type=int, default=10)
args = parser.parse_args([])
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(10))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = torch.tensor(allowed_indices)[
            torch.randint(len(allowed_indices), size=(1,))
        ].item()
    return y_neg.to(device)


def overlay_y_on_x(x, y, classes=10):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log1p(
                torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))
            ).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % args.log_interval == 0:
                print(f"Loss: {loss.item():.6f}")
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


def images(n, offset):
    y = torch.tensor([(k * 7 + offset) % 10 for k in range(n)])
    pixels = torch.arange(64, dtype=torch.float32)
    x = torch.stack([torch.sin(pixels * (0.1 + 0.05 * int(c)) + k * 0.01) for k, c in enumerate(y)])
    return (x - 0.1307) / 0.3081, y


torch.manual_seed(1)
net = Net([64, 32, 32])
x, y = images(96, 0)
x, y = x.to(device), y.to(device)
x_pos = overlay_y_on_x(x, y)
y_neg = get_y_neg(y)
x_neg = overlay_y_on_x(x, y_neg)
print("negative labels:", y_neg[:12].tolist())
net.train(x_pos, x_neg)
print(f"train error: {1.0 - net.predict(x).eq(y).float().mean().item():.4f}")
x_te, y_te = images(40, 3)
x_te, y_te = x_te.to(device), y_te.to(device)
print(f"test error: {1.0 - net.predict(x_te).eq(y_te).float().mean().item():.4f}")
