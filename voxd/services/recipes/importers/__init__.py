"""How recipes get in without typing: from a web page (url.py: the web extraction service, then the
page's schema.org data through schema_org.py, or its HTML markup through markup.py and
page_labels.py where that data holds no full recipe, readings.py keeping the better of the two;
its text, ingredient lines and method read right by page_text.py, ingredient_lines.py and
method.py) and from a photo (image.py: the OCR service, then the rule-based draft of ../draft.py).
Either falls back on the language model (../structuring.py)."""
