"""An uploaded image, opened by what its bytes are (Pillow sniffs them; the Content-Type is only a
hint) and held to the pixel limit before anything is decoded: Pillow reads the size from the header,
so a small file that would unpack into gigabytes (a decompression bomb) is refused with 413 first."""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from voxd.kit.errors import ApiError
from voxd.kit.images import IMAGE_TYPES, image_type, unsupported_image

FORMATS = tuple(kind.removeprefix("image/").upper() for kind in IMAGE_TYPES)  # Pillow's names: PNG, JPEG, WEBP


# What Pillow raises on a file that starts like one of FORMATS but is not one: a WebP whose chunks
# are garbage (OSError "could not create decoder object"), a cut-off header ("Truncated File Read",
# "Truncated IHDR chunk"), a corrupt one (SyntaxError, EOFError).
CORRUPT = (OSError, SyntaxError, ValueError, EOFError)


def opened(data: bytes, max_pixels: int) -> Image.Image:
    """The decoded image, upright (a phone's EXIF orientation applied), or 413, 415 or 400."""
    image = header(data, max_pixels)
    width, height = image.size
    if width * height > max_pixels:
        raise too_many_pixels((width, height), max_pixels)
    try:
        image.load()
        ImageOps.exif_transpose(image, in_place=True)  # in place: the image keeps its format
    except CORRUPT as error:
        raise invalid_image(image.format, error) from None
    return image


def header(data: bytes, max_pixels: int) -> Image.Image:
    """The image with only its header read (size and format), or 413, 415 or 400."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data), formats=FORMATS)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise too_many_pixels(None, max_pixels) from None
    except UnidentifiedImageError:  # none of FORMATS
        raise unsupported_image() from None
    except CORRUPT as error:
        kind = image_type(data)
        raise invalid_image(kind.removeprefix("image/").upper() if kind else None, error) from None


def invalid_image(image_format: str | None, error: BaseException) -> ApiError:
    what = f"{image_format} image" if image_format else "image"
    return ApiError(400, "invalid_image", f"the {what} cannot be decoded: {error}")


def too_many_pixels(size: tuple[int, int] | None, max_pixels: int) -> ApiError:
    shown = f"{size[0]}×{size[1]} pixels" if size else "more pixels than Pillow will decode"
    return ApiError(413, "too_many_pixels", f"the image has {shown}; at most {max_pixels} are read",
                    {"max_pixels": max_pixels, **({"width": size[0], "height": size[1]} if size else {})})
