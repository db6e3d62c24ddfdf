"""Page images (PNG, JPEG, TIFF, JPEG 2000, ...): opened with PIL, each frame read as an RGB page.

Every bad input raises `InputError` whose message names the cause (the caller adds the path).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from hsd_cli.errors import InputError

MAX_PIXELS = 60_000_000  # a page above this is rendered or scaled down to it, to spare memory
# What PIL opens that hsd reads as pages (pages/inputs.IMAGE_EXTENSIONS: what a folder walk takes).
IMAGE_FORMATS = {"PNG", "JPEG", "MPO", "TIFF", "WEBP", "BMP", "GIF", "JPEG2000", "PPM"}


def open_image(path: Path) -> Image.Image:
    """The image file, opened lazily (frames are read by `frame`)."""
    try:
        with warnings.catch_warnings():  # PIL warns above 89 MP; such images are scaled down (_fitted)
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(path)
    except UnidentifiedImageError:
        raise InputError("not a document: neither a PDF nor a supported image") from None
    except Image.DecompressionBombError:  # PIL refuses twice its warning size unread
        raise InputError(f"image too large (over {2 * Image.MAX_IMAGE_PIXELS // 10**6} MP)") from None
    except OSError as e:
        raise InputError(f"corrupted image ({short(e)})") from None
    if image.format not in IMAGE_FORMATS:
        image.close()
        raise InputError(f"unsupported image format {image.format}")
    return image


def frame(image: Image.Image, index: int, dpi: int) -> tuple[Image.Image, int]:
    """Frame `index` as an upright RGB page, and its dpi (the file's own, else `dpi`)."""
    try:
        image.seek(index)
        page, scale = _fitted(_to_rgb(ImageOps.exif_transpose(image)))
    except Exception as e:
        raise InputError(f"page {index + 1} has corrupted image data ({short(e)})") from None
    own_dpi = float(image.info.get("dpi", (dpi, dpi))[0]) or dpi
    return page, max(1, round(own_dpi * scale))


def _fitted(image: Image.Image) -> tuple[Image.Image, float]:
    """`image` scaled down to MAX_PIXELS where it is larger (a large sheet scanned at 600 dpi),
    as a PDF page renders at a lower dpi (render.fitting_dpi); the factor it was scaled by."""
    pixels = image.width * image.height
    if pixels <= MAX_PIXELS:
        return image, 1.0
    k = math.sqrt(MAX_PIXELS / pixels)
    size = (max(1, int(image.width * k)), max(1, int(image.height * k)))
    return image.resize(size, Image.Resampling.LANCZOS), k


def _to_rgb(image: Image.Image) -> Image.Image:
    """RGB copy; transparent parts become white (not black) and 16-bit greys keep contrast."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        image = image.convert("I").point(lambda v: v / 256).convert("L")
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")


def short(e: Exception) -> str:
    """An exception's first line, cut to 120 characters (its type's name when it says nothing)."""
    return str(e).splitlines()[0][:120] if str(e) else type(e).__name__
