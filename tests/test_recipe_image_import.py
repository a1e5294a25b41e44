"""Importing a recipe from a photo through `voxd serve`: the OCR service reads cards the tests draw
with Pillow, the recipes service drafts and stores them (docs/recipes.md, Import from a photo)."""

from __future__ import annotations

import httpx
import pytest

from conftest import Daemon, app_headers
from daemons import serving, serving_with_model
from households import member
from recipe_cards import PANCAKES, RecipeCard, card_image
from scripted_llm import text, tool_call

IMPORT_IMAGE = "/api/v0/recipes/import-image"
SERVICES = ["config", "auth", "logs", "ocr", "recipes"]

SOUP = RecipeCard(
    title="Spiced Lentil Soup",
    details="Serves 6. Prep 15 minutes. Cook 35 minutes.",
    ingredients=["2 tbsp olive oil", "1 large onion, chopped", "250 g red lentils", "1.5 l vegetable stock",
                 "1 tsp ground cumin"],
    steps=["Soften the onion in the oil over a low heat for ten minutes.",
           "Stir in the cumin, then the lentils and the stock.",
           "Simmer until the lentils have fallen apart, then blend half of the soup."],
    headings=("You will need", "Directions"),
)


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    """OCR and the recipes service, no language model: the rule-based draft."""
    with serving(tmp_path_factory, SERVICES) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def model_reader(tmp_path_factory):
    """The same with the language-model proxy in front of a scripted model."""
    with serving_with_model(tmp_path_factory, SERVICES) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def blind(tmp_path_factory):
    """No OCR service at all, and a small photo limit."""
    with serving(tmp_path_factory, ["config", "auth", "recipes"], VOXD_RECIPES_MAX_IMAGE_BYTES="100000") as daemon:
        yield daemon


def post_photo(daemon: Daemon, who: dict, photo: bytes, content_type: str = "image/png", multipart: bool = False,
               **params: str) -> httpx.Response:
    url = daemon.url("recipes") + IMPORT_IMAGE
    if multipart:
        return httpx.post(url, files={"file": ("card.jpg", photo, content_type)}, params=params,
                          headers=who["headers"], timeout=60)
    return httpx.post(url, content=photo, params=params, headers={**who["headers"], "Content-Type": content_type},
                      timeout=60)


def stored(daemon: Daemon, who: dict) -> list[dict]:
    return httpx.get(daemon.url("recipes") + "/api/v0/recipes", headers=who["headers"]).json()["recipes"]


def assert_drafted(recipe: dict, card: RecipeCard) -> None:
    """The card's title, every ingredient line and the number of steps, as the card wrote them."""
    assert recipe["title"] == card.title
    assert [line["text"] for line in recipe["ingredients"]] == card.ingredients
    assert len(recipe["steps"]) == len(card.steps)
    assert recipe["source_type"] == "image" and recipe["source_url"] is None


@pytest.mark.parametrize("card, degrade, form", [
    (PANCAKES, False, "png body"),
    (PANCAKES, True, "jpeg form"),
    (SOUP, False, "webp body"),
    (SOUP, True, "png form"),
])
def test_a_photographed_card_becomes_a_recipe(reader, card, degrade, form):
    cook = member(reader)
    kind = form.split()[0]
    photo = card_image(card, format=kind.upper(), degrade=degrade)
    answer = post_photo(reader, cook, photo, f"image/{kind}", multipart=form.endswith("form"))
    assert answer.status_code == 201, answer.text
    recipe = answer.json()
    assert_drafted(recipe, card)
    if not degrade:
        assert recipe["steps"] == card.steps
    servings = int(card.details.split()[1].rstrip("."))
    assert recipe["servings"] == servings
    assert recipe["ingredients"][0]["quantity"] is not None
    assert stored(reader, cook) == [recipe]


def test_a_service_imports_a_photo_for_the_household_it_names(reader):
    cook = member(reader)
    service = {"headers": app_headers(reader, "command-center")}
    answer = post_photo(reader, service, card_image(), household_id=cook["household_id"])
    assert answer.status_code == 201, answer.text
    assert [recipe["id"] for recipe in stored(reader, cook)] == [answer.json()["id"]]


def test_what_is_not_a_photo_is_refused(reader):
    cook = member(reader)
    for body, kind in ((b"{}", "application/json"), (b"GIF89a....", "image/gif")):
        answer = post_photo(reader, cook, body, kind)
        assert answer.status_code == 415, answer.text
        assert answer.json()["error"]["code"] == "unsupported_media_type"
    pdf = post_photo(reader, cook, b"%PDF-1.7 not a photo", "image/png")
    assert pdf.status_code == 415 and pdf.json()["error"]["code"] == "unsupported_image"
    empty = post_photo(reader, cook, b"", "image/png")
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "empty_image"
    wrong_part = httpx.post(reader.url("recipes") + IMPORT_IMAGE, files={"photo": ("a.png", card_image())},
                            headers=cook["headers"])
    assert wrong_part.status_code == 400 and wrong_part.json()["error"]["code"] == "image_missing"
    blank = card_image(RecipeCard(title="", ingredients=[], steps=[], headings=("", "")))
    nothing = post_photo(reader, cook, blank)
    assert nothing.status_code == 422 and nothing.json()["error"]["code"] == "no_recipe_found"
    assert stored(reader, cook) == []


def test_without_ocr_nothing_is_stored(blind):
    cook = member(blind)
    answer = post_photo(blind, cook, card_image(format="WEBP"), "image/webp")
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["code"] == "ocr_unavailable"
    too_big = post_photo(blind, cook, card_image() + b"\0" * 100_000)
    assert too_big.status_code == 413 and too_big.json()["error"]["code"] == "body_too_large"
    assert stored(blind, cook) == []


def test_the_model_structures_the_photos_text(model_reader):
    cook = member(model_reader)
    model = model_reader.model
    model.requests.clear()
    structured = {"title": "Buttermilk Pancakes", "servings": 4, "tags": ["breakfast"],
                  "ingredients": PANCAKES.ingredients, "steps": PANCAKES.steps}
    model.script[:] = [tool_call("save_recipe", structured)]
    answer = post_photo(model_reader, cook, card_image())
    assert answer.status_code == 201, answer.text
    assert answer.json()["tags"] == ["breakfast"] and answer.json()["steps"] == PANCAKES.steps
    assert "Buttermilk Pancakes" in model.requests[-1]["messages"][-1]["content"]  # the OCR text went to it


def test_the_rules_draft_when_the_model_answers_nonsense(model_reader):
    cook = member(model_reader)
    model_reader.model.script[:] = [text("Sorry, I cannot read recipes.")]
    answer = post_photo(model_reader, cook, card_image())
    assert answer.status_code == 201, answer.text
    assert_drafted(answer.json(), PANCAKES)
    assert answer.json()["tags"] == []
