"""The steps each page shows in projector mode, by URL path: what a deck's slide may open on.

``PAGE_STEPS[path]`` is (first, last), the numbers of the first and last of the page's steps in
the table of pages (``attnviz.links.course``: most number from 1, Step by step and Watch a head
learn from 0); a page not in it has no steps. No Streamlit.
"""

from attnviz.links.course import PAGES
from attnviz.links.readers import quoted

PAGE_STEPS = {page.path: (page.first_step, page.last_step) for page in PAGES if page.steps}
# path: (the first step's number, every step's title as the page's bar says it): what the
# Lecture deck's step column shows
STEP_TITLES = {page.path: (page.first_step, page.steps) for page in PAGES if page.steps}


def step_title(page, step):
    """The title the bar of ``page`` shows on ``step`` (its own number), or None."""
    first, titles = STEP_TITLES.get(page, (1, ()))
    return titles[step - first] if first <= step < first + len(titles) else None


def bound_step(page, step, shown):
    """(the step a slide of ``page`` opens on, warnings): ``step`` (a whole number >= 0, or
    None) when the page has it; the nearest of its steps when outside them; None on a page
    without steps. ``shown`` is the slide's text, quoted in the warning."""
    if step is None:
        return None, []
    name = (page or "Home").replace("_", " ")  # as the menu writes it
    if page not in PAGE_STEPS:
        return None, [f"`{quoted(shown)}`: {name} has no steps, so the step is ignored."]
    first, last = PAGE_STEPS[page]
    if first <= step <= last:
        return step, []
    near = min(max(step, first), last)
    return near, [
        f"`{quoted(shown)}`: {name} has steps {first} to {last}, so this slide opens on "
        f"step {near}."
    ]
