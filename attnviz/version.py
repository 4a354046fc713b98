"""The package's version, its own module so a leaf (files/export.py) reads it without
importing the package's face. pyproject.toml says the same."""

__version__ = "0.1.0"
