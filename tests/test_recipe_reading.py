"""The rules that read a recipe page's lines (docs/recipes.md, Reading a page): amounts and units
as sites write them, in the languages they are written in; ingredient lists split and grouped;
steps without labels, with their sections; bracketed amounts scaled. Fast: no daemon."""

from __future__ import annotations

import json

import pytest

from voxd.services.recipes.importers.ingredient_lines import ingredient_lines
from voxd.services.recipes.importers.method import method
from voxd.services.recipes.importers.page_labels import duration_minutes
from voxd.services.recipes.importers.page_text import repaired, title_of
from voxd.services.recipes.importers.schema_org import read_page
from voxd.services.recipes.ingredients import ingredient, read_ingredient
from voxd.services.recipes.model import QuantityRange, Section
from voxd.services.recipes.scaling import scaled_line

# Every vulgar fraction Unicode has for cooking, alone, after a whole number, and the fraction slash.
FRACTIONS = [
    ("½ cup milk", 0.5), ("⅓ cup sugar", 0.333), ("⅔ cup oats", 0.667), ("¼ tsp salt", 0.25),
    ("¾ cup flour", 0.75), ("⅕ tsp saffron", 0.2), ("⅖ cup stock", 0.4), ("⅗ cup cream", 0.6),
    ("⅘ cup water", 0.8), ("⅙ tsp cloves", 0.167), ("⅚ cup rice", 0.833), ("⅛ tsp nutmeg", 0.125),
    ("⅜ cup honey", 0.375), ("⅝ cup yoghurt", 0.625), ("⅞ cup buttermilk", 0.875),
    ("1¾ cups flour", 1.75), ("2 ⅓ cups water", 2.333), ("1-½ cups milk", 1.5), ("3⅛ oz chocolate", 3.125),
    ("1⁄3 cup sugar", 0.333), ("1 1⁄2 tsp salt", 1.5), ("2⁄3 cup oil", 0.667), ("3 3⁄4 cups stock", 3.75),
]


@pytest.mark.parametrize(("line", "quantity"), FRACTIONS)
def test_every_fraction_is_read_as_its_value(line, quantity):
    assert read_ingredient(line).quantity == pytest.approx(quantity, abs=0.001)


@pytest.mark.parametrize(("line", "quantity", "unit", "name"), [
    ("1-1/2 cups all-purpose flour", 1.5, "cup", "all-purpose flour"),
    ("2-3/4 cups chicken stock", 2.75, "cup", "chicken stock"),
    ("1/2-3/4 cup sugar", QuantityRange(0.5, 0.75), "cup", "sugar"),
    ("1-2 cloves garlic, crushed", QuantityRange(1, 2), "clove", "garlic"),
    ("2 à 3 gousses d'ail", QuantityRange(2, 3), "clove", "ail"),
    ("ravioli 500gr", 500, "g", "ravioli"),
    ("Spaghetti 400 g", 400, "g", "spaghetti"),
    ("1 medium zucchini (about 200 g (7 oz)), grated", 1, None, "medium zucchini"),
    ("2 heaped tbsp cocoa powder", 2, "tbsp", "cocoa powder"),
    ("Shallots - 2", 2, None, "shallots"), ("Russet potatoes, 3-5", QuantityRange(3, 5), None, "russet potatoes"),
    ("Salt, 1 tsp", 1, "tsp", "salt"), ("Zest of 1 orange", 1, None, "orange"),
    ("Optional: 2 drops red food colouring", 2, "drop", "red food colouring"),
    ("1 cup (227 g)sour cream", 1, "cup", "sour cream"), ("3 - slices of bread", 3, "slice", "bread"),
    ("1 colher (sopa) de azeite", 1, "tbsp", "azeite"),
    ("1 T butter", 1, "tbsp", "butter"),
    ("1 t baking soda", 1, "tsp", "baking soda"),
    # German
    ("2 EL Olivenöl", 2, "tbsp", "olivenöl"), ("1 TL Zucker", 1, "tsp", "zucker"),
    ("1 Prise Salz", 1, "pinch", "salz"), ("1 Bund Schnittlauch", 1, "bunch", "schnittlauch"),
    ("2 Zehen Knoblauch", 2, "clove", "knoblauch"), ("1 Dose Kichererbsen", 1, "can", "kichererbsen"),
    ("1 Päckchen Backpulver", 1, "packet", "backpulver"), ("ca. 300 ml Sahne", 300, "ml", "sahne"),
    # Dutch
    ("2 el bloem", 2, "tbsp", "bloem"), ("1 tl kaneel", 1, "tsp", "kaneel"), ("1 snufje zout", 1, "pinch", "zout"),
    ("3 teentjes knoflook", 3, "clove", "knoflook"), ("1 takje rozemarijn", 1, "sprig", "rozemarijn"),
    # French
    ("3 cuillères à soupe d'huile d'olive", 3, "tbsp", "huile d'olive"),
    ("1 c. à café de cumin", 1, "tsp", "cumin"), ("1 pincée de sel", 1, "pinch", "sel"),
    # Spanish and Portuguese
    ("2 cucharadas de aceite", 2, "tbsp", "aceite"), ("1 cucharadita de comino", 1, "tsp", "comino"),
    ("1 colher de sopa de manteiga", 1, "tbsp", "manteiga"), ("2 xícaras de farinha", 2, "cup", "farinha"),
    ("1 pitada de sal", 1, "pinch", "sal"), ("4 dientes de ajo", 4, "clove", "ajo"),
    # Swedish, Norwegian, Danish
    ("2 msk smör", 2, "tbsp", "smör"), ("1 tsk salt", 1, "tsp", "salt"), ("3 dl mjölk", 3, "dl", "mjölk"),
    ("1 krm kanel", 1, "krm", "kanel"), ("2 fedd hvitløk", 2, "clove", "hvitløk"), ("1 spsk sukker", 1, "tbsp", "sukker"),
    # Turkish
    ("1 yemek kaşığı tereyağı", 1, "tbsp", "tereyağı"), ("2 su bardağı un", 2, "cup", "un"),
    ("1 çay kaşığı tuz", 1, "tsp", "tuz"), ("3 diş sarımsak", 3, "clove", "sarımsak"),
])
def test_amounts_units_and_names_as_sites_write_them(line, quantity, unit, name):
    reading = read_ingredient(line)
    assert (reading.quantity, reading.unit, reading.name) == (quantity, unit, name)


@pytest.mark.parametrize(("line", "doubled"), [
    ("1 lb (450 g) beef mince", "2 lb (900 g) beef mince"),
    ("1-1/2 cups (190 g) plain flour", "3 cups (380 g) plain flour"),
    ("1 cup (about 240 ml) milk", "2 cup (about 480 ml) milk"),
    ("1 (400 g) can chopped tomatoes", "2 (400 g) can chopped tomatoes"),  # the size of each can
    ("2 cans (14 oz each) chickpeas", "4 cans (14 oz each) chickpeas"),
])
def test_bracketed_amounts_are_scaled_with_the_line(line, doubled):
    assert scaled_line(ingredient(line), 2).text == doubled


@pytest.mark.parametrize(("lines", "texts", "groups"), [
    (["2 cups flour 1 tsp baking soda 3 large eggs 200 g butter, melted"],
     ["2 cups flour", "1 tsp baking soda", "3 large eggs", "200 g butter, melted"], [None] * 4),
    (["For the salad:", "1 head lettuce", "2 tomatoes", "For the dressing:", "3 tbsp olive oil", "1 tbsp vinegar"],
     ["1 head lettuce", "2 tomatoes", "3 tbsp olive oil", "1 tbsp vinegar"],
     ["For the salad", "For the salad", "For the dressing", "For the dressing"]),
    (["1Â¼ cups sugar", "Â½ tsp salt", "2 cafÃ© cups"], ["1¼ cups sugar", "½ tsp salt", "2 café cups"], [None] * 3),
    (["1 cup plus 1 tablespoon / 235 g olive oil", "½ pound salami, sliced ⅛\" thick and cut into ¼\" ribbons"],
     ["1 cup plus 1 tablespoon / 235 g olive oil", "½ pound salami, sliced ⅛\" thick and cut into ¼\" ribbons"],
     [None] * 2),
    (["1 onion, chopped", "2 cloves garlic", "Salt and pepper"], ["1 onion, chopped", "2 cloves garlic",
                                                                   "Salt and pepper"], [None] * 3),
    (["Sauce", "2 tbsp soy sauce", "Fish sauce", "1 tsp sugar", "Mixed salad leaves"],
     ["2 tbsp soy sauce", "Fish sauce", "1 tsp sugar", "Mixed salad leaves"], ["Sauce"] * 4),
    (["1 kg squid", "Yoghurt and Ouzo Dressing", "1 tbsp ouzo"], ["1 kg squid", "1 tbsp ouzo"],
     [None, "Yoghurt and Ouzo Dressing"]),
    (["500.0 g Kichererbsen", "2.0 Ei", "0.5 Bund Petersilie", "2 - eggs", "1.05 kg flour"],
     ["500 g Kichererbsen", "2 Ei", "0.5 Bund Petersilie", "2 eggs", "1.05 kg flour"], [None] * 5),
])
def test_ingredient_lists_are_split_grouped_and_repaired(lines, texts, groups):
    found = ingredient_lines(lines)
    assert [line.text for line in found] == texts
    assert [line.group for line in found] == groups


@pytest.mark.parametrize(("raw", "steps", "sections"), [
    (["Step 1", "Heat the oven to 180C.", "Step 2", "Mix the flour and sugar."],
     ["Heat the oven to 180C.", "Mix the flour and sugar."], []),
    (["Step 1: Heat the oven.", "2. Grease a tin."], ["Heat the oven.", "Grease a tin."], []),
    (["1. Boil the pasta. 2. Fry the garlic in oil. 3. Toss together and serve."],
     ["Boil the pasta.", "Fry the garlic in oil.", "Toss together and serve."], []),
    (["For the sauce:", "Melt the butter.", "Whisk in the flour.", "For the pasta:", "Boil the pasta."],
     ["Melt the butter.", "Whisk in the flour.", "Boil the pasta."],
     [Section("For the sauce", 0), Section("For the pasta", 2)]),
    (["[{", "Step 1", "Chop the onions."], ["Chop the onions."], []),
    (['{"@type": "HowToStep", "text": "Chop the onions."}', "Fry them gently."],
     ["Chop the onions.", "Fry them gently."], []),
    (["Preheat the oven to 200C. Roast for 40 minutes, turning once."],
     ["Preheat the oven to 200C. Roast for 40 minutes, turning once."], []),
])
def test_steps_lose_labels_keep_sections_and_split_numbered_runs(raw, steps, sections):
    assert method(raw) == (steps, sections)


@pytest.mark.parametrize(("title", "site", "clean"), [
    ("Classic Lasagne Recipe - (4.8/5)", None, "Classic Lasagne Recipe"),
    ("Lemon Drizzle Cake | Bakes", "Bakes", "Lemon Drizzle Cake"),
    ("CrÃ¨me brÃ»lÃ©e", None, "Crème brûlée"),
    ("The recipe", None, "The recipe"),
])
def test_titles_lose_the_sites_decorations(title, site, clean):
    assert title_of(title, site) == clean


def test_correct_text_is_left_as_it_is():
    for text in ("Crème fraîche, 2 EL", "Smörgåsbord med ärtor", "Kısır için 1 su bardağı bulgur", "½ tsp"):
        assert repaired(text) == text


# Pages whose schema.org data holds no full recipe: the recipe as their HTML marks it up (importers/markup.py).
def card(body: str, head: str = "") -> str:
    return f"<html><head><title>Soup night | My blog</title>{head}</head><body>{body}</body></html>"


PLUGIN_CARD = card("""
<h1>Pea and mint soup</h1>
<div class="recipe-card"><div class="wprm-recipe-ingredient-group"><h4 class="wprm-recipe-group-name">Soup</h4>
<ul><li class="wprm-recipe-ingredient"><span class="amount">500</span> <span class="unit">g</span> frozen peas</li>
<li class="wprm-recipe-ingredient">1 onion, chopped</li></ul></div>
<ul class="wprm-recipe-instructions"><li class="wprm-recipe-instruction">Soften the onion in butter.</li>
<li class="wprm-recipe-instruction">Add the peas and stock, simmer 10 minutes.</li></ul>
<p>Prep Time: 10 mins</p><p>Cook Time</p><p>20 minutes</p><p>Serves 4</p></div>
<script>document.write("<li class='ingredient'>not a line</li>")</script>""")


@pytest.mark.parametrize(("page", "title", "ingredients", "steps"), [
    (PLUGIN_CARD, "Pea and mint soup", ["500 g frozen peas", "1 onion, chopped"],
     ["Soften the onion in butter.", "Add the peas and stock, simmer 10 minutes."]),
    (card('<div itemscope itemtype="https://schema.org/Recipe"><h2 itemprop="name">Flatbreads</h2>'
          '<span itemprop="recipeIngredient">300 g flour</span><span itemprop="recipeIngredient">1 tsp salt</span>'
          '<div itemprop="recipeInstructions"><p>Mix to a dough.</p><p>Cook in a dry pan.</p></div></div>'),
     "Flatbreads", ["300 g flour", "1 tsp salt"], ["Mix to a dough.", "Cook in a dry pan."]),
    (card('<article class="h-recipe"><h1 class="p-name">Fruit salad</h1><ul><li class="p-ingredient">2 apples</li>'
          '<li class="p-ingredient">1 orange</li></ul><div class="e-instructions"><ol><li>Chop the fruit.</li>'
          '<li>Toss with the juice.</li></ol></div></article>'),
     "Fruit salad", ["2 apples", "1 orange"], ["Chop the fruit.", "Toss with the juice."]),
    (card("<h1>Pfannkuchen</h1><h2>Zutaten</h2><ul><li>250 g Mehl</li><li>3 Eier</li></ul>"
          "<h2>Zubereitung</h2><p>Alles zu einem Teig verrühren.</p><p>In der Pfanne backen.</p><h2>Kommentare</h2>"
          "<p>Lecker!</p>", '<meta property="og:title" content="Pfannkuchen">'),
     "Pfannkuchen", ["250 g Mehl", "3 Eier"], ["Alles zu einem Teig verrühren.", "In der Pfanne backen."]),
    # An amount beside its line's paragraph is part of the line; blocks of one line each are one list.
    (card('<h1>Pancakes</h1><div class="recipe-ingredients">'
          '<div class="ingredients__item"><span class="qty">250 g</span><p>flour</p></div>'
          '<div class="ingredients__item"><span class="qty">3</span><p>eggs</p></div>'
          '<div class="ingredients__item"><p>Salt</p></div></div>'
          '<h2>Method</h2><p>Whisk everything together.</p><p>Fry in butter.</p>'),
     "Pancakes", ["250 g flour", "3 eggs", "Salt"], ["Whisk everything together.", "Fry in butter."]),
    (card('<h1>Omelette</h1><ul>' + "".join(
        f'<li class="item-label"><div class="ingredient-block"><div>{amount}</div><div><p>{name}</p></div></div></li>'
        for amount, name in (("2", "eggs"), ("1 tbsp", "butter"), ("½ tsp", "salt")))
          + '</ul><h2>Method</h2><p>Beat the eggs.</p><p>Cook in the butter.</p>'),
     "Omelette", ["2 eggs", "1 tbsp butter", "½ tsp salt"], ["Beat the eggs.", "Cook in the butter."]),
    # Headings as pages write them: a sign before, a mark after, a curly quote, "How to make <dish>".
    (card("<h1>Brisket chili</h1><h2>🛒 What You’ll Need</h2><ul><li>2 lbs beef brisket</li><li>1 onion, diced</li>"
          "</ul><h2>How to Make Brisket Chili</h2><h3>Step 1: Brown</h3><p>Brown the beef.</p>"
          "<p>Simmer for 8 hours.</p><h2>Comments</h2><p>Yum</p>"),
     "Brisket chili", ["2 lbs beef brisket", "1 onion, diced"], ["Brown the beef.", "Simmer for 8 hours."]),
    # A bold heading with its text in its own paragraph; a list after it is not its lines.
    (card("<h1>Pannenkoeken</h1><p>Benodigdheden:</p><ul><li>2 eieren</li><li>250 ml melk</li></ul>"
          "<p><strong>Bereidingswijze:<br></strong>Klop de eieren met de melk.<br>Bak de pannenkoeken.</p>"
          "<ul><li>Ontbijt</li></ul>"),
     "Pannenkoeken", ["2 eieren", "250 ml melk"], ["Klop de eieren met de melk.", "Bak de pannenkoeken."]),
    # A lower heading of several lines is lines; a units switch is no list of lines.
    (card("<h1>Butter chicken</h1><h3>Ingredients*</h3><ul class='tabs'><li>US</li><li>METRIC</li></ul>"
          "<h5>• 2 tablespoons olive oil<br>• 50g butter<br>• 1.6kg chicken thighs</h5>"
          "<h3>Method</h3><p>Brown the chicken.</p><p>Simmer in the sauce.</p>"),
     "Butter chicken", ["2 tablespoons olive oil", "50g butter", "1.6kg chicken thighs"],
     ["Brown the chicken.", "Simmer in the sauce."]),
    (card("<h1>鸡蛋糕</h1><p>分量：30 个</p><p>材料：</p><ul><li>4 个 蛋</li><li>125 克 细砂糖</li></ul><p>做法：</p>"
          "<p>把烤炉预热至200°C。</p><p>把蛋和糖打发。</p>"),
     "鸡蛋糕", ["4 个 蛋", "125 克 细砂糖"], ["把烤炉预热至200°C。", "把蛋和糖打发。"]),
])
def test_a_recipe_is_read_from_its_markup_when_the_page_has_no_schema_org_recipe(page, title, ingredients, steps):
    """recipe-scrapers reads the microdata itself; the rest only the markup reader does."""
    found = read_page(page, "http://example.test/soup")
    assert found is not None and found.missing == ()
    assert found.recipe.title == title
    assert [line.text for line in found.recipe.ingredients] == ingredients
    assert found.recipe.steps == steps


@pytest.mark.parametrize(("text", "servings"), [("分量：30 个", 30), ("4 porce", 4), ("2 - 4 porcje", 2)])
def test_servings_in_more_languages(text, servings):
    page = card(f"<h1>Dish</h1><p>{text}</p><h2>Ingredients</h2><ul><li>2 eggs</li><li>1 tsp salt</li></ul>"
                "<h2>Method</h2><p>Beat the eggs.</p><p>Season.</p>")
    assert read_page(page, "http://example.test/dish").recipe.servings == servings


def test_servings_and_times_are_read_from_their_labels_and_the_group_heading_is_not_a_line():
    recipe = read_page(PLUGIN_CARD, "http://example.test/soup").recipe
    assert (recipe.servings, recipe.prep_time_minutes, recipe.cook_time_minutes, recipe.total_time_minutes) == \
        (4, 10, 20, 30)
    assert "Soup" not in [line.text for line in recipe.ingredients]


@pytest.mark.parametrize(("text", "minutes"), [
    ("PT1H20M", 80), ("1 hour 20 mins", 80), ("1 h 05", 65), ("45", 45), ("2 Stunden", 120), ("30 minutos", 30),
    ("3 dakika", 3), ("soon", None), (None, None),
])
def test_durations_as_pages_write_them(text, minutes):
    assert duration_minutes(text) == minutes


def test_a_schema_org_recipe_without_steps_takes_them_from_the_markup_and_keeps_its_own_fields():
    data = json.dumps({"@context": "https://schema.org", "@type": "Recipe", "name": "Tomato tart",
                       "recipeIngredient": ["1 sheet puff pastry", "4 tomatoes"], "recipeYield": "6"})
    page = card('<h1>Best tart ever</h1><ol class="recipe-directions"><li>Lay the tomatoes on the pastry.</li>'
                '<li>Bake for 25 minutes.</li></ol>', f'<script type="application/ld+json">{data}</script>')
    found = read_page(page, "http://example.test/tart")
    assert found is not None and found.missing == () and found.read_by == "SchemaScraper and markup"
    assert (found.recipe.title, found.recipe.servings) == ("Tomato tart", 6)
    assert [line.text for line in found.recipe.ingredients] == ["1 sheet puff pastry", "4 tomatoes"]
    assert found.recipe.steps == ["Lay the tomatoes on the pastry.", "Bake for 25 minutes."]


def test_a_class_names_the_method_by_a_word_of_its_own():
    page = card('<h1>Cauliflower</h1><h3>Ingredients</h3><ul><li>1 cauliflower</li><li>2 tbsp oil</li></ul>'
                '<div class="group-udostepnij"><p>Did you like this recipe? Share it with 3 friends!</p></div>'
                '<h3>Method</h3><p>Roast the cauliflower.</p><p>Serve hot.</p>')
    assert read_page(page, "http://example.test/dish").recipe.steps == ["Roast the cauliflower.", "Serve hot."]


@pytest.mark.parametrize("page", [
    card("<h1>About us</h1><p>We love food.</p>"),
    card('<h1>Shop</h1><ul class="ingredients-switch"><li>US</li><li>Metric</li></ul>'
         '<ul class="share-method"><li>Facebook</li><li>Email</li></ul>'),
    "", "<<<>>>", card("<div>" * 5000 + "deep" + "</div>" * 5000),
])
def test_a_page_without_a_recipe_in_its_markup_gives_none_or_an_incomplete_one(page):
    found = read_page(page, "http://example.test/none")
    assert found is None or found.missing


def json_ld_page(body: str = "", **recipe: object) -> str:
    data = json.dumps({"@context": "https://schema.org", "@type": "Recipe", "name": "Tomato tart", **recipe})
    return card(body, f'<script type="application/ld+json">{data}</script>')


def test_a_schema_org_line_holding_several_lines_is_split_at_its_line_breaks():
    page = json_ld_page(recipeIngredient=["1 sheet puff pastry\n4 tomatoes", "Salt and pepper", "2 \r\nbay leaves"],
                        recipeInstructions=["Bake for 25 minutes."])
    recipe = read_page(page, "http://example.test/tart").recipe
    assert [line.text for line in recipe.ingredients] == ["1 sheet puff pastry", "4 tomatoes", "Salt and pepper",
                                                          "2 bay leaves"]


def test_a_nonsense_total_time_is_the_preparation_and_cooking_times_added():
    page = json_ld_page(recipeIngredient=["4 tomatoes"], recipeInstructions=["Bake."], prepTime="PT40M",
                        cookTime="PT20M", totalTime="PT-476070H19M32S")
    assert read_page(page, "http://example.test/tart").recipe.total_time_minutes == 60


@pytest.mark.parametrize(("facts", "servings", "total"), [
    ('<p><em>Serves 2 | Total time: 15 minutes | Gluten free</em></p>', 2, 15),
    ('<ul><li><span class="icon icon-serves"></span><span> 4 </span></li></ul>', 4, None),
    ('<div class="meta"><div class="meta-item tijd">25 min</div><div class="archive-time">90 min</div></div>',
     None, 25),
    ('<div class="preparation_time">5 λεπτά</div><div class="cooking_time">15 λεπτά</div>', None, 20),
    ('<div><span>Préparation</span><span>20 min</span></div><div><span>Cuisson</span><span>45 min</span></div>',
     None, 65),
    ('<p>Preparación</p><p>10 m</p><p>Cocinado</p><p>30 m</p>', None, 40),
])
def test_servings_and_times_labelled_in_one_text_by_an_icon_or_by_a_class_word(facts, servings, total):
    page = card(f"<h1>Dish</h1>{facts}<h2>Ingredients</h2><ul><li>2 eggs</li><li>1 tsp salt</li></ul>"
                "<h2>Method</h2><p>Beat the eggs.</p><p>Season.</p>")
    recipe = read_page(page, "http://example.test/dish").recipe
    assert (recipe.servings, recipe.total_time_minutes) == (servings, total)


def test_the_pages_own_line_breaks_are_kept_where_its_schema_org_data_ran_the_lines_together():
    page = json_ld_page('<ul class="ingredients"><li>2 eggs</li><li>1 onion</li><li>salt and pepper</li></ul>',
                        recipeIngredient=["2 eggs 1 onion salt and pepper"], recipeInstructions=["Fry."])
    recipe = read_page(page, "http://example.test/eggs").recipe
    assert [line.text for line in recipe.ingredients] == ["2 eggs", "1 onion", "salt and pepper"]


def test_a_time_in_seconds_that_is_no_whole_number_of_minutes_is_minutes():
    page = json_ld_page(recipeIngredient=["4 tomatoes"], recipeInstructions=["Bake."], prepTime="PT45S",
                        cookTime="PT900S")
    recipe = read_page(page, "http://example.test/tart").recipe
    assert (recipe.prep_time_minutes, recipe.cook_time_minutes, recipe.total_time_minutes) == (45, 15, 60)


def test_a_time_labelled_only_time_is_the_total_time():
    page = card("<h1>Tacos</h1><div><span>Time</span><span>30 minutes</span></div><h2>Ingredients</h2>"
                "<ul><li>8 tortillas</li><li>1 lb beef</li></ul><h2>Method</h2><p>Brown the beef.</p><p>Fill.</p>")
    assert read_page(page, "http://example.test/tacos").recipe.total_time_minutes == 30
