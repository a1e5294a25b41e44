"""The units an ingredient line may name, in the languages recipe sites are written in, each to one
short name (so "2 EL", "2 msk" and "2 tablespoons" are all `tbsp`, and a shopping list can add them).

English, German, Dutch, French, Spanish, Portuguese, Italian, Swedish/Norwegian/Danish and Turkish.
A spelling of three letters or fewer ("c", "el", "st") counts only right after an amount: as the
first word of a line it is more likely an article or a word of the name.
"""

from __future__ import annotations

import re

UNIT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "cup": ("cups", "cup", "c", "tasse", "tassen", "kopje", "kopjes", "kop", "taza", "tazas", "xícara", "xícaras",
            "xicara", "xicaras", "chávena", "chávenas", "su bardağı", "tazza", "tazze"),
    "tbsp": ("tablespoons", "tablespoon", "tbsps", "tbsp", "tbs", "tbl", "tb", "esslöffel", "el", "essl",
             "eetlepels", "eetlepel", "cuillères à soupe", "cuillère à soupe", "cuillerées à soupe",
             "cuillerée à soupe", "c. à soupe", "c.à.s", "c. à s", "càs", "cs", "cucharadas", "cucharada", "cdas",
             "cda", "colheres de sopa", "colher de sopa", "colheres (sopa)", "colher (sopa)", "cucchiai",
             "cucchiaio", "msk", "ss", "spsk", "spiseskje", "spiseskeer", "matsked", "matskedar",
             "yemek kaşığı", "yk"),
    "tsp": ("teaspoons", "teaspoon", "tsps", "tsp", "ts", "t", "teelöffel", "tl", "theelepels", "theelepel",
            "cuillères à café", "cuillère à café", "cuillerées à café", "cuillerée à café", "c. à café",
            "c.à.c", "c. à c", "càc", "cc", "cucharaditas", "cucharadita", "cdtas", "cdta", "cdita",
            "colheres de chá", "colher de chá", "colheres (chá)", "colher (chá)", "cucchiaini", "cucchiaino",
            "tsk", "teskje", "teskeer", "tesked", "teskedar", "çay kaşığı", "tk"),
    "dessertspoon": ("dessertspoons", "dessertspoon", "dsp", "tatlı kaşığı"),
    "g": ("grams", "gram", "grammes", "gramme", "grs", "gr", "g", "gramos", "gramas", "grammi", "gramm"),
    "kg": ("kilograms", "kilogram", "kilos", "kilo", "kgs", "kg"),
    "mg": ("milligrams", "milligram", "mg"),
    "ml": ("millilitres", "millilitre", "milliliters", "milliliter", "ml"),
    "cl": ("centilitres", "centilitre", "centiliters", "centiliter", "cl"),
    "dl": ("decilitres", "decilitre", "deciliters", "deciliter", "dl"),
    "l": ("litres", "litre", "liters", "liter", "l", "litros", "litro", "lt"),
    "krm": ("kryddmått", "krm"),
    "fl oz": ("fluid ounces", "fluid ounce", "fl oz", "fl. oz"),
    "oz": ("ounces", "ounce", "oz"),
    "lb": ("pounds", "pound", "lbs", "lb"),
    "pint": ("pints", "pint", "pt"),
    "quart": ("quarts", "quart", "qt"),
    "gallon": ("gallons", "gallon", "gal"),
    "pinch": ("pinches", "pinch", "prisen", "prise", "snufjes", "snufje", "snuifje", "pincées", "pincée", "pizcas",
              "pizca", "pitadas", "pitada", "pizzico", "nypa", "knivspets", "tutam", "messerspitze", "msp"),
    "dash": ("dashes", "dash", "scheutje", "schuss", "trait"),
    "drop": ("drops", "drop", "gotas", "gota", "druppels", "tropfen"),
    "handful": ("handfuls", "handful", "handvoll", "handje", "poignée", "puñado", "avuç"),
    "clove": ("cloves", "clove", "zehen", "zehe", "teentjes", "teentje", "teen", "gousses", "gousse", "dientes",
              "diente", "dentes", "dente", "spicchi", "spicchio", "klyftor", "klyfta", "fedd", "fed", "diş"),
    "can": ("cans", "can", "dosen", "dose", "blikken", "blikje", "blik", "boîtes", "boîte", "latas", "lata",
            "burkar", "burk", "boks", "dåse", "kutu", "konserve"),
    "tin": ("tins", "tin"),
    "jar": ("jars", "jar", "glas", "pot", "bocal", "frasco", "vidro", "vasetto"),
    "packet": ("packets", "packet", "packages", "package", "packs", "pack", "pkgs", "pkg", "päckchen", "pck",
               "pk", "zakjes", "zakje", "pakje", "sachets", "sachet", "sobres", "sobre", "pacotes", "pacote",
               "paket", "pakke", "pakker", "bustina", "envelopes", "envelope"),
    "slice": ("slices", "slice", "scheiben", "scheibe", "plakken", "plakjes", "plak", "tranches", "tranche",
              "rebanadas", "rebanada", "fatias", "fatia", "fette", "fetta", "skiver", "skive", "skivor", "skiva",
              "dilim"),
    "stick": ("sticks", "stick", "stange", "stangen"),
    "bunch": ("bunches", "bunch", "bünde", "bund", "bosjes", "bosje", "bos", "bottes", "botte", "manojos", "manojo",
              "maços", "maço", "mazzetto", "knippe", "bunt", "demet"),
    "sprig": ("sprigs", "sprig", "zweige", "zweig", "takjes", "takje", "brins", "brin", "ramitas", "ramita",
              "raminhos", "raminho", "rametto", "kvist", "kvister"),
    "piece": ("pieces", "piece", "stück", "stk", "stuks", "stuk", "pièces", "pièce", "pedazos", "pedaço",
              "pezzi", "pezzo", "stykker", "stykke", "stycken", "styck", "st", "adet"),
    "stalk": ("stalks", "stalk"),
    "head": ("heads", "head", "köpfe", "kopf", "krop", "struiken", "struik"),
    "glass": ("glasses", "glass", "verres", "verre", "vasos", "vaso", "copos", "copo", "bicchieri", "bicchiere",
              "çay bardağı"),
    "tub": ("tubs", "tub", "becher", "bakje", "bakjes", "pots"),
    "bottle": ("bottles", "bottle", "flaschen", "flasche", "fles", "flessen", "bouteille", "botella", "garrafa"),
    "sheet": ("sheets", "sheet", "blatt", "blätter", "vellen", "vel", "feuilles", "feuille", "hojas", "folhas"),
    "cube": ("cubes", "cube", "würfel", "blokje", "blokjes", "cubo", "cubos"),
    "bag": ("bags", "bag", "beutel", "zak"),
    "box": ("boxes", "box"),
    "scoop": ("scoops", "scoop"),
}
UNITS = {spelling: unit for unit, spellings in UNIT_SPELLINGS.items() for spelling in spellings}
# "2 heaped tbsp": words between an amount and its unit that belong to neither the unit nor the name.
MEASURE_WORDS = r"(?:(?:heaped|heaping|level|rounded|scant|generous|good|large|small|big|gestrichene?|gehäufte?|"
MEASURE_WORDS += r"knappe?|volle?|grosse?|große?|kleine?|gestreken|afgestreken|volle|bombée?s?|rase?s?)\s+)?"
UNIT = re.compile(
    r"(?P<unit>" + "|".join(re.escape(s) for s in sorted(UNITS, key=len, reverse=True)) + r")\.?(?![\w])",
    re.IGNORECASE,
)
MEASURED_UNIT = re.compile(MEASURE_WORDS + UNIT.pattern, re.IGNORECASE)


def unit_name(spelling: str) -> str:
    """The short name of a spelling `UNIT` matched; "T" is a tablespoon, "t" a teaspoon."""
    return "tbsp" if spelling == "T" else UNITS[spelling.lower()]


def needs_amount(spelling: str) -> bool:
    """A short spelling is a unit only right after an amount ("2 el", not "El pollo")."""
    return len(spelling.replace(".", "")) <= 3
