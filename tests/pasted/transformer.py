"""Attention layers as PyTorch's examples use them: word_language_model's
TransformerModel (a class derived from nn.Transformer, its encoder alone,
a causal mask written as log(tril(ones))), nn.MultiheadAttention with
padding masks, weights per head, cross-attention with kdim/vdim and
batch_first, a whole nn.Transformer with its decoder, an encoder in eval
mode running a padded batch as a nested tensor, hooks on the children,
and PyTorch's errors.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def fill(model, scale=0.3):
    # Weights from a formula, so every device starts from the same numbers.
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            k = torch.arange(p.numel(), dtype=torch.float32)
            p.copy_((torch.sin(k * 0.37 + i) * scale).reshape(p.shape))


def data(*shape, phase=0.0):
    n = 1
    for s in shape:
        n *= s
    k = torch.arange(n, dtype=torch.float32)
    return torch.cos(k * 0.23 + phase).reshape(shape).to(device)


def show(name, t, n=6):
    values = ", ".join(f"{v:.4f}" for v in t.flatten().tolist()[:n])
    print(f"{name} {list(t.shape)} [{values}]")


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    """Container module with an encoder, a recurrent or transformer module, and a decoder."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers, num_decoder_layers=1)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout, max_len=64)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


ntokens = 13
model = TransformerModel(ntokens, 8, 2, 16, 2, dropout=0.0)
print(model.encoder.layers[0])
print(model.decoder)
print(len(model.encoder.layers), model.d_model, model.nhead, model.batch_first)
fill(model)
model.to(device)
model.eval()  # no dropout (nn.Transformer's default 0.1): the same numbers on every device
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
tokens = torch.tensor([(i * 5 + 2) % ntokens for i in range(7 * 3)]).reshape(7, 3).to(device)
for step in range(4):
    inputs, targets = tokens[:-1], tokens[1:]
    optimizer.zero_grad()
    output = model(inputs)
    loss = F.nll_loss(output.view(-1, ntokens), targets.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
    print(f"step {step} loss {loss.item():.6f}")
print(output.grad_fn.name(), model.src_mask.shape)
grad = model.encoder.layers[1].self_attn.in_proj_weight.grad
print(f"in_proj_weight.grad {list(grad.shape)} norm {grad.norm().item():.6f}")

# nn.MultiheadAttention on its own: weights averaged, and per head.
attn = nn.MultiheadAttention(8, 2).to(device)
print(attn)
print([name for name, _ in attn.named_parameters()])
fill(attn)
x = data(5, 3, 8).requires_grad_()
out, weights = attn(x, x, x)
show("out", out)
show("weights", weights)
print(out.grad_fn.name(), weights.grad_fn.name(), [round(v, 4) for v in weights.sum(-1).tolist()[0]])
out.sum().backward()
show("x.grad", x.grad)
causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1).to(device)
padding = torch.tensor([[False] * 5, [False, False, False, True, True], [False] * 5]).to(device)
out, weights = attn(x, x, x, key_padding_mask=padding, attn_mask=causal, average_attn_weights=False)
show("masked out", out)
show("per head", weights[1, :, 4], n=10)
out, none = attn(x, x, x, attn_mask=causal, need_weights=False)
show("no weights", out)
print(none)

# Cross-attention with other key and value sizes, batches first.
cross = nn.MultiheadAttention(8, 4, batch_first=True, kdim=6, vdim=5).to(device)
print([name for name, _ in cross.named_parameters()], cross.head_dim)
fill(cross)
out, weights = cross(data(2, 3, 8), data(2, 4, 6, phase=1.0), data(2, 4, 5, phase=2.0))
show("cross", out)
show("cross weights", weights)

# A whole nn.Transformer: encoder and decoder, masks on both.
transformer = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                             dim_feedforward=16, dropout=0.0).to(device)
print(sum(p.numel() for p in transformer.parameters()), len(transformer.state_dict()))
fill(transformer)
src, tgt = data(5, 3, 8), data(4, 3, 8, phase=0.5)
tgt_mask = transformer.generate_square_subsequent_mask(4).to(device)
out = transformer(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=padding,
                  memory_key_padding_mask=padding)
show("transformer", out)
out.pow(2).mean().backward()
show("decoder grad", transformer.decoder.layers[1].multihead_attn.out_proj.weight.grad)

# An encoder in eval mode without grad runs a padded batch as a nested
# tensor: the padded positions come back as zeros.
layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True, activation="gelu")
encoder = nn.TransformerEncoder(layer, 2).to(device)
print(encoder.use_nested_tensor)
fill(encoder)
encoder.eval()
x = data(2, 4, 8)
pad = torch.tensor([[False, False, True, True], [False] * 4]).to(device)
with torch.no_grad():
    show("nested", encoder(x, src_key_padding_mask=pad)[0], n=12)
show("with grad", encoder(x, src_key_padding_mask=pad)[0], n=12)

# Each norm before its block.
first = nn.TransformerEncoderLayer(8, 2, 16, 0.0, norm_first=True, activation=nn.GELU()).to(device)
print(first.norm_first, first.activation)
fill(first)
show("norm_first", first(data(5, 3, 8), src_mask=causal))

# The children are called as modules: their hooks run.
seen = []
handle = encoder.layers[0].self_attn.register_forward_hook(
    lambda m, inputs, output: seen.append((type(m).__name__, len(inputs), output[1])))
encoder(x)
handle.remove()
print(seen)

for bad in [lambda: nn.MultiheadAttention(8, 3),
            lambda: attn(data(5, 3, 8), data(5, 3, 8), data(5, 3, 8), attn_mask=torch.zeros(4, 4)),
            lambda: attn(data(5, 3, 8), data(5, 3, 8), data(5, 3, 8), is_causal=True),
            lambda: transformer(src, data(4, 2, 8)),
            lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh")]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
