# random_() without bounds draws over the dtype's range as PyTorch's CPU
# generator does: 64 bits for int64's [0, 2^63), 32 for the others, a bit
# for bool; randint's ranges beside them.
import torch
for dt in [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.float32, torch.float64]:
    torch.manual_seed(3)
    x = torch.empty(4, dtype=dt).random_()
    print(dt, x.tolist(), "%.6f" % torch.rand(1).item())
torch.manual_seed(3)
print(torch.randint(0, 2**30, (3,)).tolist(), "%.6f" % torch.rand(1).item())
torch.manual_seed(3)
print(torch.randint(0, 2**33, (3,)).tolist(), "%.6f" % torch.rand(1).item())
torch.manual_seed(3)
print(torch.empty(4, dtype=torch.bool).random_().tolist(), "%.6f" % torch.rand(1).item())
