"""Region crops as rows: which regions a target verifies, their crops, and their batches
(one prompt per batch, `stage1_batch` rows at most)."""

from __future__ import annotations

from PIL import Image, ImageOps

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.methods.base import RowsRequest
from hsd_cli.spec.align import TokenDrafts
from hsd_cli.spec.stats import BatchStop
from hsd_cli.targets.runtime.base import VisionTarget

CROP_MARGIN = 8  # pixels around a region crop: glyphs often touch the detected box
MIN_CROP_SIDE = 32  # processors reject tiny or extremely thin images
MAX_ASPECT = 20.0
SKIP_KINDS = {RegionKind.FIGURE}
FURNITURE = {RegionKind.HEADER, RegionKind.FOOTER}


class CropOutOfMemory(RuntimeError):
    """A single region crop did not fit in memory (even a batch of one)."""

    def __init__(self) -> None:
        super().__init__("out of memory on a single region crop")


def crop_region(image: Image.Image, bbox: tuple[float, float, float, float]) -> Image.Image:
    """The region with a margin, padded white to a size and aspect ratio processors accept."""
    x0, y0, x1, y1 = bbox
    box = (
        max(0, int(x0) - CROP_MARGIN),
        max(0, int(y0) - CROP_MARGIN),
        min(image.width, int(x1) + CROP_MARGIN),
        min(image.height, int(y1) + CROP_MARGIN),
    )
    crop = image.crop(box)
    w = max(crop.width, MIN_CROP_SIDE, int(crop.height / MAX_ASPECT) + 1)
    h = max(crop.height, MIN_CROP_SIDE, int(crop.width / MAX_ASPECT) + 1)
    if (w, h) != crop.size:
        crop = ImageOps.pad(crop, (w, h), color="white", centering=(0, 0.5))
    return crop


def verifiable(region: Region, target: VisionTarget) -> bool:
    if region.kind in SKIP_KINDS:
        return False
    return not (target.family.style.drop_furniture and region.kind in FURNITURE)


def crop_chunks(
    target: VisionTarget, regions: list[Region], chosen: list[int], batch: int
) -> list[tuple[str, list[int]]]:
    """Regions `chosen` grouped by their kind's prompt, `batch` per chunk: (prompt, indices)."""
    by_prompt: dict[str, list[int]] = {}
    for i in chosen:
        by_prompt.setdefault(target.family.prompt_for(regions[i].kind.value), []).append(i)
    return [(p, g[s : s + batch]) for p, g in by_prompt.items() for s in range(0, len(g), batch)]


def crop_request(
    image: Image.Image,
    regions: list[Region],
    chunk: list[int],
    prompt: str,
    drafts: TokenDrafts | None,
    spec: SpecConfig,
    batch_stop: BatchStop | None = None,
    limits: tuple[int, ...] | None = None,
) -> RowsRequest:
    """The crops of regions `chunk` as one request (`limits`: each row's token budget); halved when out of memory."""
    crops = tuple(crop_region(image, regions[i].bbox) for i in chunk)
    rows = None if drafts is None else tuple(drafts)
    return RowsRequest(crops, prompt, rows, spec, batch_stop=batch_stop, split_on_oom=True, limits=limits)


def region_drafts(target: VisionTarget, regions: list[Region]) -> TokenDrafts:
    """Per region its token drafts: its text in the target's markup, and plain when that differs."""
    from hsd_cli.drafts.markup import region_markup

    style, enc = target.family.style, target.encode
    return [[enc(v) for v in dict.fromkeys(t for t in (region_markup(r, style), r.text) if t.strip())] for r in regions]
