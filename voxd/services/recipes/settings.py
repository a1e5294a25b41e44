"""The recipes service's settings, declared once and checked at start-up (docs/settings.md)."""

from __future__ import annotations

from voxd.kit.setting import DURATION, FLAG, WHOLE, Setting

MAX_IMAGE_BYTES = Setting("VOXD_RECIPES_MAX_IMAGE_BYTES", WHOLE, 10 * 1024 * 1024, "The largest photo "
                          "import-image takes, in bytes (the route's own cap is 20 MiB).", minimum=1024,
                          maximum=20 * 1024 * 1024)
IMPORT_TIMEOUT = Setting("VOXD_RECIPES_IMPORT_TIMEOUT", DURATION, 30.0, "How long an import waits for "
                         "the web extraction service, the OCR service and the language model.", minimum=1,
                         live=True)
STRUCTURE_WITH_MODEL = Setting("VOXD_RECIPES_STRUCTURE_WITH_MODEL", FLAG, True, "When a language model "
                               "is configured, ask it to structure pages without schema.org data and "
                               "OCR text into a recipe.")

PARSE_SECONDS = Setting("VOXD_RECIPES_PARSE_SECONDS", DURATION, 10.0, "How long reading one fetched "
                        "page (or a photo's text) may take in its worker process before it is killed "
                        "and the import answers 422 page_too_complex.", minimum=0.1, maximum=300)
PARSE_MEMORY_MB = Setting("VOXD_RECIPES_PARSE_MEMORY_MB", WHOLE, 512, "The address space, in MiB, of "
                          "the worker process that reads one page or photo text (the interpreter and "
                          "its parsers included); over it the import answers 422 page_too_complex.",
                          minimum=256, maximum=65536)
IMPORTS_IN_FLIGHT = Setting("VOXD_RECIPES_IMPORTS_IN_FLIGHT", WHOLE, 2, "Imports (from a page or a "
                            "photo) one household may have in progress at once; one more answers "
                            "429 too_many_imports.", minimum=1, maximum=100)

SETTINGS = (MAX_IMAGE_BYTES, IMPORT_TIMEOUT, STRUCTURE_WITH_MODEL, PARSE_SECONDS, PARSE_MEMORY_MB,
            IMPORTS_IN_FLIGHT)
