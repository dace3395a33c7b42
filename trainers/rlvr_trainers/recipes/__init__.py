"""Bundled YAML recipes (read with ``importlib.resources``)."""
