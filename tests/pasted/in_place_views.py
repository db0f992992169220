# In-place changes of shape, as PyTorch's tutorials write them
# (tensors_deeper_tutorial's `batch_me.unsqueeze_(0)`,
# char_rnn_generation's `target_line_tensor.unsqueeze_(-1)`): the tensor
# itself changes, every name for it sees the new shape, and its version
# counter goes up by one.
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

batch_me = torch.rand(3, 226, 226, device=device)
print(batch_me.shape)
batch_me.unsqueeze_(0)
print(batch_me.shape)

x = torch.arange(6.0, device=device)
alias = x
part = x[2:]
y = x.unsqueeze_(0)
print(x.shape, y is x, alias.shape, part.shape, x._version, x.stride())
x.squeeze_()
print(x.shape, alias.shape, x._version)
m = x.view(2, 3)
m.t_()
print(m.shape, m.stride(), m.is_contiguous(), m.tolist())
m.transpose_(0, 1)
print(m.shape, m.tolist())
m.swapdims_(1, 0)
print(m.shape, m._version, x._version)


def inputTensor(line):
    tensor = torch.zeros(len(line), 1, 5, device=device)
    for li, letter in enumerate(line):
        tensor[li][0]["abcde".find(letter)] = 1
    return tensor


def targetTensor(line):
    letter_indexes = ["abcde".find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(4)
    return torch.LongTensor(letter_indexes).to(device)


def randomTrainingExample(line):
    input_line_tensor = inputTensor(line)
    target_line_tensor = targetTensor(line)
    return input_line_tensor, target_line_tensor


input_line_tensor, target_line_tensor = randomTrainingExample("abcab")
target_line_tensor.unsqueeze_(-1)
print(input_line_tensor.shape, target_line_tensor.shape, target_line_tensor[2].tolist())
criterion = torch.nn.NLLLoss()
rnn = torch.nn.Linear(5, 5).to(device)
with torch.no_grad():
    rnn.weight.copy_(torch.arange(25.0, device=device).reshape(5, 5).sin())
    rnn.bias.fill_(0.1)
loss = 0
for i in range(input_line_tensor.size(0)):
    output = torch.log_softmax(rnn(input_line_tensor[i]), dim=1)
    loss += criterion(output, target_line_tensor[i])
loss.backward()
print(f"{loss.item():.6f}", f"{rnn.weight.grad.abs().sum().item():.6f}")


def grow(t):
    t.unsqueeze_(0)
    return t.shape


z = torch.ones(2, device=device)
print(grow(z), z.shape)
w = torch.zeros(2, device=device, requires_grad=True)
try:
    w.unsqueeze_(0)
except RuntimeError as e:
    print(e)
