"""OCR service (7031): text from a photo of a recipe card, for the recipes service's image import."""
