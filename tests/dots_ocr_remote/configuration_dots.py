"""dots.ocr's config, shaped like the hub's configuration_dots.py: a Qwen2 config plus a vision config.

The real checkpoint (rednote-hilab/dots.ocr, config.json) has model_type "dots_ocr", a Qwen2 decoder
with plain 1D rope, `image_token_id` 151665 (`<|imgpad|>`) and a `vision_config` dict; its
generation_config.json sets eos_token_id [151643, 151673] (<|endoftext|>, <|endofassistant|>).
"""

from transformers import Qwen2Config


class DotsOCRConfig(Qwen2Config):
    model_type = "dots_ocr"

    def __init__(self, image_token_id: int = 151665, video_token_id: int = 151656, vision_config: dict | None = None,
                 **kwargs):
        self.image_token_id = image_token_id
        self.video_token_id = video_token_id
        self.vision_config = dict(vision_config or {})  # kept a plain dict: it round-trips through config.json
        super().__init__(**kwargs)
