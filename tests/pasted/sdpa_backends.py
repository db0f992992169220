# Which kernel scaled_dot_product_attention runs on the CPU, as PyTorch
# chooses it: the fused flash kernel (one ScaledDotProductFlashAttentionForCpuBackward0
# node, saving the output and each row's log-sum-exp) where it may, the math
# path (a node per step) where it may not, and the switches that choose.
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
q = torch.randn(2, 3, 5, 8, requires_grad=True)
k = torch.randn(2, 3, 7, 8, requires_grad=True)
v = torch.randn(2, 3, 7, 8, requires_grad=True)
v4 = torch.randn(2, 3, 7, 4, requires_grad=True)

o = F.scaled_dot_product_attention(q, k, v)
print(o.grad_fn.name(), [n[0].name() for n in o.grad_fn.next_functions])
print(o[1, 2])
node = o.grad_fn
print(node._saved_query is q, node._saved_output.shape, node._saved_logsumexp.shape,
      node._saved_logsumexp.dtype)
print(torch.allclose(node._saved_logsumexp, torch.logsumexp(q @ k.mT / 8 ** 0.5, -1)))
(o * torch.arange(8.)).sum().backward()
print(q.grad[1, 2], k.grad[0, 1], v.grad[1, 0], sep="\n")

q.grad = k.grad = v.grad = None
o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(o.grad_fn.name(), o[0, 0, :2])
o.pow(2).sum().backward()
print(q.grad[0, 0], k.grad[0, 0, 6], sep="\n")

o = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(5, 7))
print(o.grad_fn.name(), o[1, 1, 4])
mask = torch.rand(2, 1, 5, 7) > 0.3
mask[0, 0, 2] = False
o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
print(o.grad_fn.name(), o[0, 0, 2], o[1, 0, 3])

o3 = F.scaled_dot_product_attention(q[0], k[0], v[0])
print(o3.grad_fn.name(), o3.grad_fn.next_functions[0][0].name(), o3[2, 4])
print(F.scaled_dot_product_attention(q[0, 0], k[0, 0], v[0, 0]).grad_fn.name())
print(F.scaled_dot_product_attention(q, k, v4).grad_fn.name())
print(F.scaled_dot_product_attention(q.transpose(2, 3), q.transpose(2, 3), q.transpose(2, 3)).grad_fn.name())
print(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).grad_fn.name())
with torch.no_grad():
    print(F.scaled_dot_product_attention(q, k, v).grad_fn)

o = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), scale=0.3)
print(o.grad_fn.name(), o[0, 0, 0], o.grad_fn._saved_logsumexp.dtype)
oh = F.scaled_dot_product_attention(q.half(), k.half(), v.half())
print(oh.grad_fn.name(), oh.dtype, oh[0, 0, 0].float().round(decimals=2))

with sdpa_kernel(SDPBackend.MATH):
    print(F.scaled_dot_product_attention(q, k, v).grad_fn.name())
with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
    print(F.scaled_dot_product_attention(q, k, v).grad_fn.name())
    print(torch.backends.cuda.math_sdp_enabled(), torch.backends.cuda.flash_sdp_enabled())
    try:
        F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    except RuntimeError as e:
        print("RuntimeError:", e)
with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
    try:
        F.scaled_dot_product_attention(q, k, v)
    except RuntimeError as e:
        print("RuntimeError:", e)
print(torch.backends.cuda.math_sdp_enabled(), torch.backends.cuda.flash_sdp_enabled(),
      torch.backends.cuda.mem_efficient_sdp_enabled(), torch.backends.cuda.cudnn_sdp_enabled())
torch.backends.cuda.enable_flash_sdp(False)
print(torch.backends.cuda.flash_sdp_enabled(), F.scaled_dot_product_attention(q, k, v).grad_fn.name())
torch.backends.cuda.enable_flash_sdp(True)
print(SDPBackend.FLASH_ATTENTION, repr(SDPBackend.EFFICIENT_ATTENTION), SDPBackend.MATH.value,
      int(SDPBackend.CUDNN_ATTENTION), list(SDPBackend.__members__))

# The math path and the fused kernel agree.
with sdpa_kernel(SDPBackend.MATH):
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(torch.allclose(ref, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-6))
