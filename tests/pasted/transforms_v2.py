# torchvision.transforms.v2 as PyTorch's current tutorials compose it, and
# F.interpolate(antialias=True) under it (session of 2026-12-07, seventh):
# a uint8 image resized as uint8 by PyTorch's kernel (PIL's method), a
# float one by the separable float kernel.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.transforms import v2

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)

train_tf = v2.Compose([
    v2.ToImage(),
    v2.RandomResizedCrop(16, antialias=True),
    v2.RandomHorizontalFlip(),
    v2.ToDtype(torch.float32, scale=True),
    v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
test_tf = v2.Compose([v2.ToImage(), v2.Resize(18), v2.CenterCrop(16), v2.ToDtype(torch.float32, scale=True)])
print(train_tf)
print(test_tf)
train = datasets.FakeData(size=8, image_size=(3, 24, 20), num_classes=3, transform=train_tf)
test = datasets.FakeData(size=4, image_size=(3, 24, 20), num_classes=3, transform=test_tf, random_offset=100)
for x, y in DataLoader(train, batch_size=4):
    x = x.to(device)
    print(tuple(x.shape), x.dtype, round(x.sum().item(), 3), [round(v, 4) for v in x.flatten().tolist()[:5]], y.tolist())
for x, y in DataLoader(test, batch_size=4):
    print(tuple(x.shape), round(x.sum().item(), 3), y.tolist())

img = (torch.rand(3, 21, 15) * 256).to(torch.uint8)
for t in [v2.Resize((9, 7)), v2.Resize(30, interpolation=v2.InterpolationMode.BICUBIC), v2.RandomCrop(12, padding=2),
          v2.Pad([1, 2]), v2.Grayscale(), v2.RandomVerticalFlip(p=1.0), v2.Resize(8, antialias=False)]:
    out = t(img)
    print(t, tuple(out.shape), out.dtype, out.flatten().tolist()[:8])
pair = v2.RandomHorizontalFlip(p=1.0)(img, 7)
print(type(pair).__name__, pair[1], torch.equal(pair[0], img.flip(-1)))
print(v2.ToDtype(torch.uint8, scale=True)(torch.tensor([0.0, 0.5, 1.0])).tolist(), v2.ToDtype(torch.float64)(img).dtype)

x = torch.randn(2, 3, 19, 14).to(device)
for mode in ["bilinear", "bicubic"]:
    for size in [(6, 5), (30, 9)]:
        y = F.interpolate(x, size=size, mode=mode, antialias=True)
        print(mode, size, [round(v, 4) for v in y.flatten().tolist()[:6]], round(y.sum().item(), 3))
q = x.clone().requires_grad_()
y = F.interpolate(q, size=(7, 4), mode="bilinear", antialias=True)
print(y.grad_fn.name())
y.pow(2).sum().backward()
print([round(v, 4) for v in q.grad.flatten().tolist()[:6]], round(q.grad.sum().item(), 3))

# GaussianBlur and RandomErasing, v1 and v2 (draws and values as torchvision's).
from torchvision import transforms as T
import torchvision.transforms.functional as TF
img = torch.rand(3, 12, 10)
u8 = (img * 255).to(torch.uint8)
print(T.GaussianBlur(3), v2.GaussianBlur((5, 3), sigma=(0.5, 1.0)), T.RandomErasing(), v2.RandomErasing(p=1.0, value="random"))
for t in [T.GaussianBlur(5), v2.GaussianBlur((3, 5), sigma=(0.5, 1.5)), T.RandomErasing(p=1.0),
          T.RandomErasing(p=1.0, value="random"), v2.RandomErasing(p=1.0, value=(0.1, 0.2, 0.3)),
          v2.RandomErasing(p=1.0, value="random")]:
    out = t(img)
    print(round(out.sum().item(), 4), [round(v, 5) for v in out.flatten().tolist()[:5]])
print(T.GaussianBlur(3)(u8).flatten().tolist()[:10], v2.GaussianBlur(5)(u8).flatten().tolist()[:10])
print(TF.pil_to_tensor(TF.gaussian_blur(TF.to_pil_image(u8), 3)).flatten().tolist()[:10])
