"""Light clean-up before recognition, each step cheap and safe on an already clean scan:
greyscale, auto-contrast (grey paper, a dim photo), deskew of small rotations (a card photographed
slightly askew: tesseract's own layout analysis copes badly past a degree or two), upscaling when the
text is small (tesseract reads best with letters about 20 to 40 pixels tall), and last a 3×3 median
filter (a photo's grain, without the loss of edges a blur would cost; "ml" was read as "mi"
without it, and sharpening instead amplified the grain into garbage)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from PIL import Image, ImageFilter, ImageOps

MAX_SKEW = 5.0  # degrees searched either way; a card turned further is a photo to take again
COARSE_STEP, FINE_STEP = 1.0, 0.1
PROFILE_SIDE = 600  # the deskew search runs on a copy this large: a few ms per angle tried
INK = 128  # darker than this (after auto-contrast) is ink
SMALL_TEXT, TARGET_TEXT, MAX_UPSCALE = 20, 32, 3.0  # line heights in pixels


@dataclass(frozen=True)
class Prepared:
    image: Image.Image
    skew_degrees: float  # the rotation applied to straighten it
    scale: float  # the upscaling applied


def prepare(image: Image.Image) -> Prepared:
    grey = ImageOps.autocontrast(image.convert("L"), cutoff=1)
    angle = skew_angle(grey)
    if abs(angle) >= FINE_STEP:
        grey = grey.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    scale = upscale_factor(grey)
    if scale > 1:
        grey = grey.resize((round(grey.width * scale), round(grey.height * scale)), Image.Resampling.LANCZOS)
    return Prepared(grey.filter(ImageFilter.MedianFilter(3)), angle, scale)  # after upscaling: thin strokes stay


def ink_of(grey: Image.Image) -> Image.Image:
    """Ink white on black, so that a row's mean says how much ink it holds."""
    return grey.point(lambda value: 255 if value < INK else 0)


def row_profile(ink: Image.Image) -> list[int]:
    """Each row's mean ink (Pillow averages every row into one pixel)."""
    return list(ink.resize((1, ink.height), Image.Resampling.BOX).getdata())


def sharpness(ink: Image.Image, angle: float) -> float:
    """How cleanly the text lines separate when turned by `angle`: aligned lines make the row
    profile peaky (rows all ink, rows all paper), so its variance is largest."""
    profile = row_profile(ink.rotate(angle, resample=Image.Resampling.NEAREST, fillcolor=0))
    mean = sum(profile) / len(profile)
    return sum((value - mean) ** 2 for value in profile) / len(profile)  # statistics.pvariance is exact, and slow


def skew_angle(grey: Image.Image) -> float:
    """The rotation (degrees, counter-clockwise) that straightens the text lines: a projection-profile
    search over ±MAX_SKEW, coarse then fine."""
    small = grey.copy()
    small.thumbnail((PROFILE_SIDE, PROFILE_SIDE))
    ink = ink_of(small)
    if not any(row_profile(ink)):
        return 0.0  # a blank page
    coarse_steps = round(MAX_SKEW / COARSE_STEP)
    coarse = max((step * COARSE_STEP for step in range(-coarse_steps, coarse_steps + 1)),
                  key=lambda angle: (sharpness(ink, angle), -abs(angle)))
    fine_steps = round(COARSE_STEP / FINE_STEP)
    fine = max((coarse + step * FINE_STEP for step in range(-fine_steps, fine_steps + 1)),
               key=lambda angle: (sharpness(ink, angle), -abs(angle)))
    return round(fine, 1)


def upscale_factor(grey: Image.Image) -> float:
    """How much to enlarge so the median text line is about TARGET_TEXT pixels tall; 1 when the
    text is already large enough (or no lines are found)."""
    profile = row_profile(ink_of(grey))
    heights, run = [], 0
    for value in profile + [0]:
        if value > 2:  # a row with some ink in it
            run += 1
        elif run:
            heights.append(run)
            run = 0
    lines = [h for h in heights if h >= 3]  # specks are not lines
    if not lines:
        return 1.0
    height = statistics.median(lines)
    if height >= SMALL_TEXT:
        return 1.0
    return min(MAX_UPSCALE, TARGET_TEXT / height)
