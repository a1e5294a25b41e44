"""Recipes service (7030): a household's recipes, their import from a web page or a photo, and
their meal plans (docs/recipes.md).

The package is the example the next services copy: `app.py` gathers the routes of the modules that
declare them, `migrations.py` is the database's history, `store.py` its one reader and writer,
`model.py` the types at the boundary, and each import step is a module of its own.
"""
