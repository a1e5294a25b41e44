"""The recipes service's settings, declared once and checked at start-up (docs/settings.md)."""

from __future__ import annotations

from voxd.kit.setting import DURATION, FLAG, WHOLE, Setting

MAX_IMAGE_BYTES = Setting("VOXD_RECIPES_MAX_IMAGE_BYTES", WHOLE, 10 * 1024 * 1024, "The largest photo "
                          "import-image takes, in bytes (the route's own cap is 20 MiB).", minimum=1024,
                          maximum=20 * 1024 * 1024)
IMPORT_TIMEOUT = Setting("VOXD_RECIPES_IMPORT_TIMEOUT", DURATION, 30.0, "How long an import waits for "
                         "the web extraction service, the OCR service and the language model.", minimum=1)
STRUCTURE_WITH_MODEL = Setting("VOXD_RECIPES_STRUCTURE_WITH_MODEL", FLAG, True, "When a language model "
                               "is configured, ask it to structure pages without schema.org data and "
                               "OCR text into a recipe.")

SETTINGS = (MAX_IMAGE_BYTES, IMPORT_TIMEOUT, STRUCTURE_WITH_MODEL)
