"""dots.ocr's model, rebuilt from transformers' own blocks (a test stand-in for the hub's remote code).

The hub's DotsOCRForCausalLM subclasses Qwen2ForCausalLM: image features from its vision tower
replace the `<|imgpad|>` embeddings, then the unchanged Qwen2 decoder runs with 1D positions. Its
tower (42 blocks of RMSNorm + SwiGLU + 2D vision rope, 2x2 patch merger) has Qwen2.5-VL's vision
shapes, so Qwen2.5-VL's vision transformer with full attention in every block stands in for it
(differences that matter only inside the prefill: the merger's LayerNorm is RMSNorm here, patches
carry 2 temporal frames instead of 1). The decoder, the prompt format and the token flow, which
decoding depends on, are dots.ocr's.
"""

import torch
from transformers import Qwen2ForCausalLM
from transformers.models.qwen2_5_vl.configuration_qwen2_5_vl import Qwen2_5_VLVisionConfig
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VisionTransformerPretrainedModel

from .configuration_dots import DotsOCRConfig


class DotsOCRForCausalLM(Qwen2ForCausalLM):
    config_class = DotsOCRConfig

    def __init__(self, config: DotsOCRConfig):
        super().__init__(config)
        vision = Qwen2_5_VLVisionConfig(**config.vision_config)
        self.vision_tower = Qwen2_5_VisionTransformerPretrainedModel._from_config(vision)
        self.post_init()

    def forward(self, input_ids=None, pixel_values=None, image_grid_thw=None, inputs_embeds=None,
                mm_token_type_ids=None, **kwargs):
        """Image features in place of the image tokens, then the Qwen2 decoder."""
        if inputs_embeds is None:
            inputs_embeds = self.model.embed_tokens(input_ids)
            if pixel_values is not None:
                features = self.vision_tower(pixel_values.to(inputs_embeds.dtype), grid_thw=image_grid_thw)
                mask = (input_ids == self.config.image_token_id)[..., None].expand_as(inputs_embeds)
                inputs_embeds = inputs_embeds.masked_scatter(mask, features.pooler_output.to(inputs_embeds.dtype))
        return super().forward(inputs_embeds=inputs_embeds, **kwargs)
