"""The layers image and sequence models are built from, as PyTorch's
examples build them: a DCGAN generator (ConvTranspose2d, BatchNorm2d), the
super-resolution example's sub-pixel network (Conv2d, PixelShuffle), a
fast-neural-style residual block (ReflectionPad2d, InstanceNorm2d), a U-Net
decoder step (Upsample, GroupNorm, SiLU), a text CNN (Conv1d over
embeddings) and an autoencoder (Unflatten); each trained a few steps.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def fill(shape, scale):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32, device=device).reshape(shape) * 0.37).sin() * scale


def init(model, scale=0.3):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.copy_(fill(p.shape, 0.1))
            elif p.dim() == 1:
                p.copy_(1.0 + fill(p.shape, 0.1))
            else:
                p.copy_(fill(p.shape, scale))


class Generator(nn.Module):
    def __init__(self, nz=8, ngf=4, nc=3):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class SuperResolution(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, 8, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        return self.pixel_shuffle(self.conv3(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.pad = nn.ReflectionPad2d(1)
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(self.pad(x))))
        out = self.in2(self.conv2(self.pad(out)))
        return out + residual


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm = nn.GroupNorm(2, cout)
        self.act = nn.SiLU()

    def forward(self, x, skip):
        x = self.up(x)
        diff_y, diff_x = skip.size(2) - x.size(2), skip.size(3) - x.size(3)
        x = F.pad(x, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
        return self.act(self.norm(self.conv(torch.cat([skip, x], dim=1))))


class TextCNN(nn.Module):
    def __init__(self, vocab=20, dim=6, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.convs = nn.ModuleList([nn.Conv1d(dim, 4, k, padding=k // 2) for k in (3, 5)])
        self.fc = nn.Linear(8, classes)

    def forward(self, tokens):
        x = self.embed(tokens).transpose(1, 2)
        pooled = [F.relu(conv(x)).max(dim=2).values for conv in self.convs]
        return self.fc(torch.cat(pooled, dim=1))


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 6))
        self.decoder = nn.Sequential(
            nn.Linear(6, 4 * 4 * 4),
            nn.Unflatten(1, (4, 4, 4)),
            nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


def train(name, model, inputs, loss_of, steps=3, lr=0.05):
    init(model)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for step in range(steps):
        opt.zero_grad()
        out = model(*inputs)
        loss = loss_of(out)
        loss.backward()
        opt.step()
        print(f"{name} step {step}: out {tuple(out.shape)} loss {loss.item():.5f}")
    return out


torch.manual_seed(0)
gen = Generator().to(device)
print(gen)
noise = fill((2, 8, 1, 1), 1.0)
fake = train("dcgan", gen, [noise], lambda out: ((out - fill(out.shape, 0.5)) ** 2).mean())
print("fake[0, 0, 0]:", [round(v, 4) for v in fake[0, 0, 0].tolist()])

sr = SuperResolution(upscale_factor=2).to(device)
low = fill((2, 1, 5, 5), 1.0)
high = fill((2, 1, 10, 10), 0.8)
train("super-resolution", sr, [low], lambda out: F.mse_loss(out, high), lr=0.002)

block = ResidualBlock(3).to(device)
print(block)
styled = train("residual", block, [fill((2, 3, 6, 6), 1.0)], lambda out: out.pow(2).mean())
print("styled mean/std:", round(styled.mean().item(), 4), round(styled.std().item(), 4))

up = Up(6, 4).to(device)
print(up)
train("unet-up", up, [fill((1, 4, 3, 3), 1.0), fill((1, 2, 7, 7), 0.5)], lambda out: out.abs().mean())

text = TextCNN().to(device)
tokens = torch.tensor([[1, 4, 7, 2, 9, 3, 0], [5, 5, 8, 13, 2, 19, 1]], device=device)
labels = torch.tensor([2, 0], device=device)
logits = train("text-cnn", text, [tokens], lambda out: F.cross_entropy(out, labels), lr=0.1)
print("predictions:", logits.argmax(1).tolist())

ae = AutoEncoder().to(device)
print(ae)
images = fill((3, 1, 8, 8), 0.5) + 0.5
train("autoencoder", ae, [images], lambda out: F.binary_cross_entropy(out, images), lr=0.5)

x = fill((1, 1, 3, 4), 1.0)
print("nearest:", [round(v, 4) for v in F.interpolate(x, size=(4, 6)).flatten()[:8].tolist()])
print("bilinear:", [round(v, 4) for v in F.interpolate(x, scale_factor=1.5, mode="bilinear").flatten()[:8].tolist()])
print("replicate:", [round(v, 4) for v in F.pad(x, (1, 1, 0, 0), mode="replicate")[0, 0, 0].tolist()])
print("unshuffle:", tuple(F.pixel_unshuffle(fill((1, 2, 4, 6), 1.0), 2).shape))
