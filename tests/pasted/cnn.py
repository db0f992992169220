"""A CNN trained as PyTorch's MNIST example trains one: Conv2d, max
pooling, log_softmax with nll_loss, Adadelta with a StepLR schedule, and a
test loop that counts correct predictions. The images are synthetic and
the weights come from formulas (no random numbers, no dropout), so cudash
and PyTorch print the same numbers.
"""
from __future__ import print_function
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.fc1 = nn.Linear(8 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)

    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))


class Args:
    """What the example reads from its command line."""
    batch_size = 16
    test_batch_size = 32
    epochs = 2
    lr = 1.0
    gamma = 0.7
    log_interval = 2


def synthetic(n, offset):
    """n images of 1x12x12 and their labels, from formulas."""
    k = torch.arange(n * 144, dtype=torch.float32).reshape(n, 1, 12, 12)
    images = torch.sin(k * 0.013 + offset) * torch.cos(k * 0.0071)
    labels = (torch.arange(n) * 3 + offset) % 10
    return images, labels


def main():
    args = Args()
    use_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")

    train_kwargs = {'batch_size': args.batch_size}
    test_kwargs = {'batch_size': args.test_batch_size}

    x_train, y_train = synthetic(64, 0)
    x_test, y_test = synthetic(32, 1)
    train_loader = DataLoader(TensorDataset(x_train, y_train), **train_kwargs)
    test_loader = DataLoader(TensorDataset(x_test, y_test), **test_kwargs)

    model = Net().to(device)
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + i).reshape(p.shape) * 0.15)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()


if __name__ == '__main__':
    main()
