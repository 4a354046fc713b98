"""attnviz.links.steps.PAGE_STEPS (the table of pages' steps) says each page's steps as the
stepper it draws counts them (most take their row's, ``lesson_steps``; Predict then reveal
counts its questions, Step by step draws its own bar): every page is run through the shell up
to its ``stepper`` call (the stepper is replaced by one that notes its range and stops the
page), so no page computes anything."""

import importlib
import pkgutil
import sys

import streamlit as st

from attnviz.links.course import PAGES
from attnviz.links.steps import PAGE_STEPS
from tests.helpers import app


def test_the_table_of_steps_is_every_pages_own(monkeypatch):
    seen = {}

    def noting(page, titles, *, first=1, next_action=None):
        seen[path] = (first, first + len(titles) - 1)
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
    for page in PAGES:
        path = page.path
        at = app(f"app_pages/{page.script}" if path else "app.py")
        at.query_params["present"] = "on"
        at.run()
        assert not at.exception, (path, [e.value for e in at.exception])
    assert seen == PAGE_STEPS
