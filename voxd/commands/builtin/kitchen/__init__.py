"""Cooking and shopping: recipes, the lists, measurements."""
