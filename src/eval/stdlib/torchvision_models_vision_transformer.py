"""`torchvision.models.vision_transformer`: where torchvision defines its
Vision Transformers (the same classes and builders as `torchvision.models`)."""

from torchvision.models import (
    VisionTransformer, Encoder, EncoderBlock, MLPBlock,
    vit_b_16, vit_b_32, vit_l_16, vit_l_32,
    ViT_B_16_Weights, ViT_B_32_Weights, ViT_L_16_Weights, ViT_L_32_Weights,
)
