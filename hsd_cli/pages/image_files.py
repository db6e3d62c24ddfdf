"""Page images (PNG, JPEG, TIFF, JPEG 2000, ...): opened with PIL, each frame read as an RGB page.

Every bad input raises `InputError` whose message names the cause (the caller adds the path).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

from PIL import Image, ImageChops, ImageOps, ImageStat, UnidentifiedImageError

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
    """RGB copy; transparent parts become the background the ink shows on, and deep greys
    (16-bit, 32-bit, float) keep their contrast."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        image = _grey8(image)
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, _backdrop(rgba))
        return Image.alpha_composite(background, rgba).convert("RGB")
    return image.convert("RGB")


def _grey8(image: Image.Image) -> Image.Image:
    """A deep grey image as 8-bit greys, by the range its values are in: 16-bit (0-65535), floats
    in 0-1, or 8-bit values held in a wider type. PIL's own convert clips them (a 16-bit page
    comes out white, a page of floats black)."""
    deep = image.convert("F")
    top = deep.getextrema()[1]
    bits16 = image.mode.startswith("I;16") or 255 < top <= 65535
    scale = 1 / 256 if bits16 else 255.0 if top <= 1.0 and image.mode == "F" else 255 / max(top, 255)
    return deep.point(lambda v: v * scale).convert("L")


def _backdrop(rgba: Image.Image) -> tuple[int, int, int, int]:
    """White under transparent parts, unless what is drawn is light (white type on a transparent
    logo or screenshot), which shows on black: on white it would vanish."""
    grey, alpha = rgba.convert("L"), rgba.getchannel("A")
    opacity = ImageStat.Stat(alpha).sum[0]
    # The drawn pixels' mean grey, each weighted by its opacity (multiply divides by 255).
    light = ImageStat.Stat(ImageChops.multiply(grey, alpha)).sum[0] / opacity if opacity else 0.0
    return (0, 0, 0, 255) if light > 0.5 else (255, 255, 255, 255)


def short(e: Exception) -> str:
    """An exception's first line, cut to 120 characters (its type's name when it says nothing)."""
    return str(e).splitlines()[0][:120] if str(e) else type(e).__name__
