# PyTorch's spatial transformer tutorial's network (intermediate_source/
# spatial_transformer_tutorial.py): a localization net predicts an affine
# map, F.affine_grid and F.grid_sample warp the input with it; trained a
# few steps on images made from formulas (no MNIST here), without the
# tutorial's dropout (random draws differ between a CPU and a GPU), and
# from a map a little off the identity (at the identity every sampling
# point falls on a pixel's centre, where bilinear sampling's slope jumps:
# a rounding apart, a CPU and a GPU would take different sides).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device.type} device")


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True)
        )

        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(
            nn.Linear(10 * 3 * 3, 32),
            nn.ReLU(True),
            nn.Linear(32, 3 * 2)
        )

        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([0.95, 0.1, 0.03, -0.08, 1.02, 0.05], dtype=torch.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)

        grid = F.affine_grid(theta, x.size())
        x = F.grid_sample(x, grid)

        return x

    def forward(self, x):
        # transform the input
        x = self.stn(x)

        # Perform the usual forward pass
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        return F.log_softmax(x, dim=1)


torch.manual_seed(0)
model = Net().to(device)
optimizer = optim.SGD(model.parameters(), lr=0.05)
n = 16
i = torch.arange(n * 28 * 28, dtype=torch.float32).reshape(n, 1, 28, 28)
data = (torch.sin(i * 0.013) * torch.cos(i * 0.0007)).to(device)
target = (torch.arange(n) % 10).to(device)
for step in range(4):
    optimizer.zero_grad()
    output = model(data)
    loss = F.nll_loss(output, target)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.6f}")

with torch.no_grad():
    theta = model.fc_loc(model.localization(data[:2]).view(-1, 90)).view(-1, 2, 3)
    print("theta", [round(v, 4) for v in theta.flatten().tolist()])
    warped = model.stn(data[:2])
    print("warped", tuple(warped.shape), round(warped.sum().item(), 3))

# The grids themselves, every padding mode and both corner conventions.
theta = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]]], requires_grad=True)
img = torch.arange(30.0).reshape(1, 1, 5, 6).to(device)
for align in (False, True):
    grid = F.affine_grid(theta, (1, 1, 3, 4), align_corners=align)
    print("grid", align, [round(v, 4) for v in grid.flatten().tolist()[:8]])
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            g = F.affine_grid(theta, (1, 1, 3, 4), align_corners=align).to(device) * 1.4
            out = F.grid_sample(img, g, mode=mode, padding_mode=pad, align_corners=align)
            print(" ", mode, pad, [round(v, 4) for v in out.flatten().tolist()])
theta.grad = None
F.grid_sample(img, F.affine_grid(theta, (1, 1, 3, 4)).to(device)).sum().backward()
print("theta.grad", [round(v, 3) for v in theta.grad.flatten().tolist()])
