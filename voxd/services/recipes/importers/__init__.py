"""How recipes get in without typing: from a web page (url.py: the web extraction service, then the
page's schema.org data through schema_org.py) and from a photo (image.py: the OCR service, then
the rule-based draft of ../draft.py). Either falls back on the language model (../structuring.py)."""
