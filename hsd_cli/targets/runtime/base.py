"""The target adapter: one transformers VLM family's prompt, inputs, positions and markup."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING

import torch
from PIL import Image

from hsd_cli.datatypes import DraftStyle
from hsd_cli.spec.budget import PassPrices
from hsd_cli.targets.convert import display_math, tidy
from hsd_cli.targets.runtime import threads
from hsd_cli.targets.runtime.session import HFSession

if TYPE_CHECKING:
    from transformers import BatchFeature

# Qwen2-VL's smart_resize, which the Qwen-VL, HunyuanOCR, PaddleOCR-VL and GLM processors share,
# refuses an image whose long side passes 200 times its short one.
SMART_RESIZE_MAX_ASPECT = 200.0


@dataclass(frozen=True, slots=True)
class FamilySpec:
    """Per-family data: what the core needs to know about a model, as a table row."""

    model_type: str  # transformers config.model_type
    hub_ids: tuple[str, ...]  # the first is the family's default checkpoint
    page_prompt: str  # the document-parsing prompt the model was trained with
    region_prompt: str  # the plain-OCR prompt for Stage-1 region crops
    style: DraftStyle  # how this model writes tables, headings, formulas
    n_axes: int = 3  # M-RoPE position axes; 0 = plain 1D rope, position_ids [B, S]
    rope_per_row: bool = False  # batched get_rope_index numbers images across rows
    remote_code: bool = False
    published_params: str = ""  # as published, for `hsd models --sizes`
    processor_kwargs: dict = field(default_factory=dict)
    auto_class: str = "AutoModelForImageTextToText"  # transformers Auto* class that loads it
    max_pixels: int | None = None  # pages above this are downscaled before the processor
    # The processor refuses an image longer than this to its other side (Qwen2-VL's smart_resize
    # and those made from it: 200; tiling processors round a thin side to no pixel sooner); a
    # longer page (a till receipt) is padded to it, not failed.
    max_aspect: float | None = None
    kind_prompts: dict = field(default_factory=dict)  # RegionKind value -> Stage-1 prompt, if not region_prompt
    # Special tokens that carry the output's markup (DeepSeek-OCR-2 grounding tags, OTSL cells):
    # `decode` keeps them where skip_special_tokens=True would drop them.
    markup_tokens: tuple[str, ...] = ()
    # Trained on layout-element crops with a task prompt each (kind_prompts), never on whole pages:
    # the official pipelines run a layout model and assemble the page from the elements.
    element_level: bool = False

    def prompt_for(self, kind: str) -> str:
        """The Stage-1 prompt for a region of this kind."""
        return self.kind_prompts.get(kind, self.region_prompt)


class VisionTarget:
    """A loaded model + processor of one family; subclasses override markup conversion."""

    family: FamilySpec

    def __init__(self, model, processor):
        self.model = model
        self.processor = processor
        self.tokenizer = processor.tokenizer
        self.eos_ids = frozenset(_eos_ids(model))
        # What `generate(do_sample=False)` applies with the checkpoint's generation config: the
        # core applies the repetition penalty per tree node; anything else it does not model.
        self.repetition_penalty = float(model.generation_config.repetition_penalty or 1.0)
        self.greedy_processors = greedy_processors(model)
        self.boundary_ids = frozenset(i for i in range(len(self.tokenizer)) if "\n" in self.tokenizer.decode([i]))
        # What the run's verification passes took against the cost model's price: every decode
        # loop on this model adds to it and sizes its trees by it (spec/budget.PassPrices).
        self.pass_prices = PassPrices()
        # hsd's own static KV cache and step (static_session.StaticEngine); None: HFSession, eager.
        self.static_engine = None

    @property
    def device(self) -> torch.device:
        return self.model.device

    @cached_property
    def cost(self):
        """This model's forward cost against tree size on its device (measured once, cached on disk)."""
        from hsd_cli.targets.runtime.costs import cost_model

        return cost_model(self.model, self.family.n_axes, self.static_engine)

    @cached_property
    def prefill_cost(self):
        """Seconds of one image's prefill against its pixels on this device (measured once, cached)."""
        from hsd_cli.targets.runtime.costs import prefill_model

        return prefill_model(self)

    def chat_prompt(self, prompt: str) -> str:
        """The chat-formatted text for one image followed by `prompt`."""
        messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}]
        return self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def model_inputs(self, images: list[Image.Image], prompt: str, processor=None) -> BatchFeature:
        """A batch's model inputs, made on the host: the processor resizes, normalises and cuts each
        image into patches and tokenises the prompt (on a GPU host about as long as the forward)."""
        processor = processor if processor is not None else self.processor
        text = self.chat_prompt(prompt)
        images = [model_image(im, self.family) for im in images]
        return processor(
            images=images,
            text=[text] * len(images),
            padding=True,
            padding_side="left",
            return_tensors="pt",
        )

    def inputs_maker(self) -> Callable[[list[Image.Image], str], BatchFeature] | None:
        """`model_inputs` with a processor of its own, to run in a thread beside the model (a fast
        tokenizer refuses use from two threads at once); None where the processor cannot be copied."""
        try:
            processor = copy.deepcopy(self.processor)
        except Exception:  # noqa: BLE001 - a processor that cannot be copied makes the inputs inline
            return None
        return partial(self.model_inputs, processor=processor)

    def prefill(
        self, images: list[Image.Image], prompt: str, inputs: BatchFeature | None = None
    ) -> tuple[HFSession, torch.Tensor]:
        """Run the prompt + images of a batch; return the session and first logits [B, V].
        `inputs`: what `model_inputs` made of them ahead, if it was."""
        from transformers import DynamicCache

        inputs = (inputs if inputs is not None else self.model_inputs(images, prompt)).to(self.device)
        pos = self.rope_index(inputs)  # [n_axes, B, S]; [1, B, S] for plain rope
        model_pos = pos if self.family.n_axes else pos[0]  # 1D-rope models take [B, S]
        cache = DynamicCache(config=self.model.config)
        if self.device.type == "cpu":
            threads.follow(self.model)
        with torch.inference_mode():
            out = self.model(
                **inputs,
                position_ids=model_pos,
                past_key_values=cache,
                use_cache=True,
                logits_to_keep=1,
            )
        # Left padding: the last slot is the row's last prompt token, the same on every axis.
        next_pos = pos[:, :, -1].max(0).values + 1
        valid = inputs["attention_mask"].bool()
        prompts = [ids[m].tolist() for ids, m in zip(inputs["input_ids"], valid, strict=False)]
        n_axes = self.family.n_axes and pos.shape[0]
        if self.static_engine is not None and self.static_engine.fits(cache):
            return self.static_engine.session(self.model, cache, valid, next_pos, n_axes, prompts), out.logits[:, -1]
        session = HFSession(self.model, cache, valid, next_pos, n_axes, prompts)
        return session, out.logits[:, -1]

    def rope_index(self, inputs) -> torch.Tensor:
        """M-RoPE position ids [n_axes, B, S] for the prefill."""
        rows = range(inputs["input_ids"].shape[0]) if self.family.rope_per_row else [slice(None)]
        parts = []
        for r in rows:
            r = slice(r, r + 1) if isinstance(r, int) else r
            grid = inputs["image_grid_thw"][r]
            pos, _ = self.model.model.get_rope_index(
                inputs["input_ids"][r],
                mm_token_type_ids=inputs["mm_token_type_ids"][r],
                image_grid_thw=grid,
                attention_mask=inputs["attention_mask"][r],
            )
            parts.append(pos)
        return torch.cat(parts, dim=1)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def decode(self, tokens: list[int]) -> str:
        """Generated tokens -> the model's raw text: special tokens dropped, markup tokens kept."""
        return self.tokenizer.decode([t for t in tokens if t not in self._dropped_ids], skip_special_tokens=False)

    @cached_property
    def _dropped_ids(self) -> frozenset[int]:
        """What skip_special_tokens=True drops (EOS included), less the family's markup tokens."""
        tok = self.tokenizer
        special = {i for i, t in tok.added_tokens_decoder.items() if t.special} | set(tok.all_special_ids)
        keep = {tok.convert_tokens_to_ids(t) for t in self.family.markup_tokens}
        return frozenset((special | self.eos_ids) - keep)

    def to_markdown(self, text: str) -> str:
        """The model's markup -> clean Markdown; families override."""
        return text.strip() + "\n"

    def element_markdown(self, kind: str, text: str, level: int = 1) -> str:
        """One layout element's output -> Markdown, the way element-level pipelines assemble a page."""
        # The model writes an element's content only: the layout label supplies the heading mark and
        # the display-math fence (GLM-OCR's SDK and PaddleOCR's pipeline do the same).
        if kind == "equation":
            latex = text.strip().removeprefix("$$").removesuffix("$$").removeprefix("\\[").removesuffix("\\]")
            return tidy(display_math(latex))
        if kind == "title":
            return tidy("#" * max(1, level) + " " + " ".join(text.split()))
        return self.to_markdown(text)


def model_image(image: Image.Image, family: FamilySpec) -> Image.Image:
    """`image` as the family's processor takes it: within max_pixels, then padded to its
    max_aspect (padding last: downscaling after it rounds the short side down, past the limit)."""
    return fit_aspect(fit_pixels(image, family.max_pixels), family.max_aspect)


def fit_aspect(image: Image.Image, max_aspect: float | None) -> Image.Image:
    """`image` padded with white on its right or bottom to at most `max_aspect` long side to short
    (just under, as the processor's test is strict); other images as they are."""
    if max_aspect is None or max(image.size) <= max_aspect * min(image.size):
        return image
    short = int(max(image.size) / max_aspect) + 1
    size = (short, image.height) if image.width < image.height else (image.width, short)
    padded = Image.new("RGB", size, "white")
    padded.paste(image.convert("RGB"), (0, 0))
    return padded


def fit_pixels(image: Image.Image, max_pixels: int | None) -> Image.Image:
    """`image` downscaled (aspect kept) to at most `max_pixels` pixels; smaller images as they are."""
    if max_pixels is None or image.width * image.height <= max_pixels:
        return image
    scale = (max_pixels / (image.width * image.height)) ** 0.5
    size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
    return image.resize(size, Image.BICUBIC)


def greedy_processors(model) -> tuple[str, ...]:
    """Logits processors `model.generate(do_sample=False)` builds from the checkpoint's generation config."""
    config = copy.deepcopy(model.generation_config)
    config.do_sample = False  # sampling warpers (temperature, top_k, ...) do not apply to greedy
    try:
        model._prepare_special_tokens(config, True, device="cpu")
        processors = model._get_logits_processor(config, input_ids_seq_length=1, device="cpu")
    except (AttributeError, TypeError, ValueError):  # a remote-code model without GenerationMixin
        return ()
    return tuple(type(p).__name__ for p in processors)


def _eos_ids(model) -> list[int]:
    eos = model.generation_config.eos_token_id
    if eos is None:
        eos = model.config.get_text_config().eos_token_id
    return [eos] if isinstance(eos, int) else list(eos or [])
