"""The MLP of mlp.py wrapped in nn.DataParallel when there are GPUs to
spread it over, as PyTorch's data parallelism tutorial wraps its model:
each batch of 32 is split over the GPUs, the replicas' outputs gathered,
their gradients summed. The losses are those of one device (PyTorch
printed this file's .torch on the CPU, where the wrapper is not made).

Data and initial weights come from formulas (no random numbers), so
cudash and PyTorch print the same losses.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

# 256 samples of 20 features, 4 classes.
N, D, C = 256, 20, 4
X = torch.sin(torch.arange(N * D, dtype=torch.float32).reshape(N, D) * 0.37)
y = (torch.arange(N) * 7 + torch.arange(N) // 5) % C
train_data = TensorDataset(X[:192], y[:192])
test_data = TensorDataset(X[192:], y[192:])

batch_size = 32
train_dataloader = DataLoader(train_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

for X_, y_ in test_dataloader:
    print(f"Shape of X [N, D]: {X_.shape}")
    print(f"Shape of y: {y_.shape} {y_.dtype}")
    break


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(D, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, C),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def init_weights(model: nn.Module) -> None:
    """Every parameter from a formula, the same in both programs."""
    with torch.no_grad():
        for k, p in enumerate(model.parameters()):
            n = p.numel()
            values = torch.cos(torch.arange(n, dtype=torch.float32) * (0.1 + 0.01 * k)) * 0.2
            p.copy_(values.reshape(p.shape))


model = NeuralNetwork()
init_weights(model)
if torch.cuda.device_count() > 1:
    # dim = 0 [32, ...] -> [16, ...], [16, ...] on 2 GPUs
    model = nn.DataParallel(model)
model.to(device)

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 2 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


epochs = 3
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")
