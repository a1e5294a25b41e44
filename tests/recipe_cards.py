"""Recipe cards rendered with Pillow, the images the OCR and image-import tests read.

A card is drawn from its source text, so a test can compare what OCR recognised with what was
written: `RecipeCard.lines()` are the lines exactly as drawn (long steps wrapped). `degraded()`
imitates a phone photo of a printed card: a small rotation, blur and noise, all seeded so a test
sees the same image every run.

The font is DejaVu Sans (Debian fonts-dejavu-core, in scripts/test's PACKAGES); without it, Pillow's
own bundled font at the same size.
"""

from __future__ import annotations

import io
import random
import textwrap
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

FONT_PATHS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
)
BOLD_PATHS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf"),
)
CARD_SIZE = (1000, 1400)
MARGIN = 60
WRAP_CHARS = 46  # fits the card's width at the body font size


@dataclass(frozen=True)
class RecipeCard:
    """A recipe as written on a card: title, an optional line of servings and times, the
    ingredients under "Ingredients" and the numbered steps under "Method"."""

    title: str
    ingredients: list[str]
    steps: list[str]
    details: str | None = None  # e.g. "Serves 4. Prep 15 minutes. Cook 40 minutes."
    headings: tuple[str, str] = ("Ingredients", "Method")

    def step_lines(self) -> list[list[str]]:
        """Each step as drawn: "1. ..." wrapped to the card's width."""
        return [textwrap.wrap(f"{n}. {step}", WRAP_CHARS) for n, step in enumerate(self.steps, 1)]

    def lines(self) -> list[str]:
        """Every line of text on the card, top to bottom, as drawn."""
        lines = [self.title]
        if self.details:
            lines.append(self.details)
        lines.append(self.headings[0])
        lines += self.ingredients
        lines.append(self.headings[1])
        for wrapped in self.step_lines():
            lines += wrapped
        return lines


PANCAKES = RecipeCard(
    title="Buttermilk Pancakes",
    details="Serves 4. Prep 10 minutes. Cook 20 minutes.",
    ingredients=[
        "200 g plain flour",
        "2 tsp baking powder",
        "1 tbsp caster sugar",
        "300 ml buttermilk",
        "2 large eggs",
        "30 g melted butter",
    ],
    steps=[
        "Whisk the flour, baking powder and sugar in a large bowl.",
        "Beat the buttermilk, eggs and butter together.",
        "Pour the wet mix into the dry and stir until just combined.",
        "Cook ladlefuls in a hot pan until golden on both sides.",
    ],
)


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in BOLD_PATHS if bold else FONT_PATHS:
        if path.exists():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


@dataclass(frozen=True)
class Layout:
    size: tuple[int, int] = CARD_SIZE
    title_size: int = 56
    body_size: int = 34
    line_gap: int = 14
    section_gap: int = 28


def render(card: RecipeCard, layout: Layout = Layout()) -> Image.Image:
    """The clean card: black text on white, greyscale."""
    image = Image.new("L", layout.size, 255)
    draw = ImageDraw.Draw(image)
    title, body, heading = font(layout.title_size, bold=True), font(layout.body_size), font(layout.body_size + 4, True)
    y = MARGIN

    def line(text: str, face, gap_after: int = layout.line_gap) -> None:
        nonlocal y
        draw.text((MARGIN, y), text, fill=0, font=face)
        top, bottom = draw.textbbox((MARGIN, y), "Hg", font=face)[1::2]
        y += bottom - top + gap_after

    line(card.title, title, layout.section_gap)
    if card.details:
        line(card.details, body, layout.section_gap)
    line(card.headings[0], heading)
    for ingredient in card.ingredients:
        line(ingredient, body)
    y += layout.section_gap
    line(card.headings[1], heading)
    for wrapped in card.step_lines():
        for text in wrapped:
            line(text, body)
    if y > layout.size[1]:
        raise ValueError(f"the card's text is {y} pixels tall; the card is {layout.size[1]}")
    return image


def degraded(image: Image.Image, rotation: float = 3.0, blur: float = 1.2, noise: float = 0.12,
             seed: int = 14) -> Image.Image:
    """A phone photo of the card: turned by `rotation` degrees, blurred, with seeded noise blended in."""
    turned = image.rotate(rotation, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    blurred = turned.filter(ImageFilter.GaussianBlur(blur))
    rng = random.Random(seed)
    grain = Image.frombytes("L", blurred.size, rng.randbytes(blurred.size[0] * blurred.size[1]))
    darker = ImageChops.multiply(blurred, Image.new("L", blurred.size, 235))  # greyish paper
    return Image.blend(darker, grain, noise)


def encoded(image: Image.Image, format: str = "PNG") -> bytes:
    """The image as a file's bytes: PNG, JPEG or WEBP."""
    buffer = io.BytesIO()
    image.convert("RGB" if format.upper() == "JPEG" else image.mode).save(buffer, format=format)
    return buffer.getvalue()


def card_image(card: RecipeCard = PANCAKES, format: str = "PNG", degrade: bool = False) -> bytes:
    """The card's image file: clean, or degraded like a photo (`degraded` defaults)."""
    image = render(card)
    return encoded(degraded(image) if degrade else image, format)
