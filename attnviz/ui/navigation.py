"""The app's pages, found in pages/: each page's label and what it teaches (its docstring)."""

import ast
import functools
from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parents[2] / "pages"


@functools.cache  # pages/ does not change while the server runs: parse it once
def lesson_pages():
    """[(path relative to the app, label, one-line description)] for every file in pages/."""
    found = []
    for path in sorted(PAGES_DIR.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        label = path.stem.split("_", 1)[-1].replace("_", " ")
        found.append((f"pages/{path.name}", label, doc.split("\n", 1)[0]))
    return tuple(found)
