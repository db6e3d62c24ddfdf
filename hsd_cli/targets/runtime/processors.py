"""Load a target's processor (image processor + tokenizer) from a directory or a hub id."""

from __future__ import annotations

from transformers import (
    AutoProcessor,
    DeepseekOcr2Processor,
    Glm46VProcessor,
    HunYuanVLProcessor,
    LightOnOcrProcessor,
    PaddleOCRVLProcessor,
    PretrainedConfig,
    ProcessorMixin,
    Qwen2_5_VLProcessor,
    Qwen2VLProcessor,
    Qwen3VLProcessor,
)

from hsd_cli.errors import ModelNotFoundError


def _without_video(processor_cls: type[ProcessorMixin]) -> type[ProcessorMixin]:
    """The Qwen processor class minus its video processor."""

    # Without torchvision the Qwen processors fail to build their video processor, both in the
    # constructor and in from_pretrained ("Can't load video processor"); we only feed images.
    class _ImageOnly(processor_cls):
        @classmethod
        def get_attributes(cls):
            return ["image_processor", "tokenizer"]

    # save_pretrained writes the class name as processor_class; keep it the real one.
    _ImageOnly.__name__ = _ImageOnly.__qualname__ = processor_cls.__name__
    return _ImageOnly


class DotsVLProcessor(_without_video(Qwen2_5_VLProcessor)):
    """dots.ocr's processor: Qwen2.5-VL's with `<|imgpad|>` as the image token, no video."""

    # The hub's remote DotsVLProcessor is this subclass (image_token "<|imgpad|>", id 151665, where the
    # tokenizer names none); loading it needs a video processor, i.e. torchvision, which we avoid.
    def __init__(self, image_processor=None, tokenizer=None, chat_template=None, **kwargs):
        super().__init__(image_processor, tokenizer, chat_template=chat_template, **kwargs)
        if not hasattr(tokenizer, "image_token"):
            self.image_token = "<|imgpad|>"
            self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)


DotsVLProcessor.__name__ = DotsVLProcessor.__qualname__ = "DotsVLProcessor"

# Explicit classes: AutoProcessor on a Qwen dir silently returns just the tokenizer (the
# image-only subclass is not registered), so every family we know is loaded by name.
PROCESSOR_CLASSES: dict[str, type[ProcessorMixin]] = {
    "qwen2_vl": _without_video(Qwen2VLProcessor),
    "qwen2_5_vl": _without_video(Qwen2_5_VLProcessor),
    "qwen3_vl": _without_video(Qwen3VLProcessor),
    "hunyuan_vl": HunYuanVLProcessor,
    "paddleocr_vl": PaddleOCRVLProcessor,
    "glm_ocr": _without_video(Glm46VProcessor),  # GLM-OCR checkpoints name Glm46VProcessor
    "lighton_ocr": LightOnOcrProcessor,
    "deepseek_ocr2": DeepseekOcr2Processor,
    "dots_ocr": DotsVLProcessor,
}  # anything else goes through AutoProcessor


def model_type_of(path_or_id: str) -> str:
    """The transformers model_type in config.json of a model directory or hub id."""
    # get_config_dict is AutoConfig's reader without building the class, so remote-code
    # checkpoints (dots.ocr) need no trust_remote_code just to be identified.
    try:
        config, _ = PretrainedConfig.get_config_dict(path_or_id)
    except (OSError, ValueError) as exc:
        raise ModelNotFoundError(f"cannot read the model config of {path_or_id!r}: {exc}") from exc
    if "model_type" not in config:
        raise ModelNotFoundError(f"config.json of {path_or_id!r} names no model_type")
    return config["model_type"]


def load_processor(path_or_id: str, model_type: str, **kw) -> ProcessorMixin:
    """The processor of `path_or_id` for a model of `model_type`; kw go to from_pretrained."""
    cls = PROCESSOR_CLASSES.get(model_type, AutoProcessor)
    try:
        processor = cls.from_pretrained(path_or_id, **kw)
    except OSError as exc:
        raise ModelNotFoundError(f"cannot load the processor of {path_or_id!r}: {exc}") from exc
    if not hasattr(processor, "image_processor"):
        # AutoProcessor falls back to a bare tokenizer when no processor class is found.
        raise ModelNotFoundError(f"{path_or_id!r} has no image processor (got {type(processor).__name__})")
    return processor
