"""Meal plans (issue 14 §4): a household's recipes laid out over days and meals.

generation.py chooses the recipes of a generated plan (no I/O), shopping.py merges a plan's
ingredients into one shopping list (no I/O), store.py keeps plans in the recipes database, and
routes.py is `/api/v0/meal-plans` and its shopping list, pushed onto the household's list in the
command center.
"""
