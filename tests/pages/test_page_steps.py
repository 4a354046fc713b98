"""attnviz.links.steps.STEP_TITLES (and PAGE_STEPS) says each page's steps as its own stepper
counts and names them: every page is run up to its ``stepper`` call (the stepper is replaced by
one that notes its titles and stops the page), so no page computes anything."""

import importlib
import pkgutil
import sys
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from attnviz.links.steps import PAGE_STEPS, STEP_TITLES
from tests.helpers import ALL_SCRIPTS, ROOT


def test_the_table_of_steps_is_every_pages_own(monkeypatch):
    seen = {}

    def noting(page, titles, *, first=1, next_action=None):
        seen[path] = (first, tuple(titles))
        st.stop()

    # every module that holds the stepper by name (a page's module, imported once per worker,
    # keeps what it imported): patched here and put back after, never left with ``noting``
    import attnviz.ui.pages
    from attnviz.ui import stepper as module

    for found in pkgutil.iter_modules(attnviz.ui.pages.__path__):
        importlib.import_module(f"attnviz.ui.pages.{found.name}")
    real = module.stepper
    for held in list(sys.modules.values()):
        if getattr(held, "stepper", None) is real:
            monkeypatch.setattr(held, "stepper", noting)
    for script in ALL_SCRIPTS:
        path = "" if script == "app.py" else Path(script).stem.split("_", 1)[1]
        at = AppTest.from_file(str(ROOT / script), default_timeout=60)
        at.query_params["present"] = "on"
        at.run()
        assert not at.exception, (script, [e.value for e in at.exception])
    assert seen == STEP_TITLES
    assert {p: (f, f + len(t) - 1) for p, (f, t) in seen.items()} == PAGE_STEPS
