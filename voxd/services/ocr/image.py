"""An uploaded image, opened by what its bytes are (Pillow sniffs them; the Content-Type is only a
hint) and held to the pixel limit before anything is decoded: Pillow reads the size from the header,
so a small file that would unpack into gigabytes (a decompression bomb) is refused with 413 first."""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from voxd.kit.errors import ApiError
from voxd.kit.images import IMAGE_TYPES, unsupported_image

FORMATS = tuple(kind.removeprefix("image/").upper() for kind in IMAGE_TYPES)  # Pillow's names: PNG, JPEG, WEBP


def opened(data: bytes, max_pixels: int) -> Image.Image:
    """The decoded image, upright (a phone's EXIF orientation applied), or 413, 415 or 400."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=FORMATS)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise too_many_pixels(None, max_pixels) from None
    except UnidentifiedImageError:
        raise unsupported_image() from None
    width, height = image.size
    if width * height > max_pixels:
        raise too_many_pixels((width, height), max_pixels)
    try:
        image.load()
    except (OSError, SyntaxError, ValueError) as error:  # truncated or corrupt data
        raise ApiError(400, "invalid_image", f"the {image.format} image cannot be decoded: {error}") from None
    ImageOps.exif_transpose(image, in_place=True)  # in place: the image keeps its format
    return image


def too_many_pixels(size: tuple[int, int] | None, max_pixels: int) -> ApiError:
    shown = f"{size[0]}×{size[1]} pixels" if size else "more pixels than Pillow will decode"
    return ApiError(413, "too_many_pixels", f"the image has {shown}; at most {max_pixels} are read",
                    {"max_pixels": max_pixels, **({"width": size[0], "height": size[1]} if size else {})})
