"""A deck in words, for the Lecture deck page: its slides grouped by page and settings, in order.
No Streamlit.

    outline(LECTURE) == "Home (every step); Attention as geometry (every step); Step by step,
    steps 0 to 8; Step by step with edit=1,0,5, steps 1, 5 and 7; ..."
"""

from itertools import groupby
from urllib.parse import quote, urlencode

from attnviz.links.steps import PAGE_STEPS


def _steps(steps):
    """ "step 3", "steps 1 and 3", "steps 0 to 8", "steps 1, 5 and 7"."""
    if len(steps) == 1:
        return f"step {steps[0]}"
    if len(steps) > 2 and steps == list(range(steps[0], steps[-1] + 1)):
        return f"steps {steps[0]} to {steps[-1]}"
    return "steps " + ", ".join(map(str, steps[:-1])) + f" and {steps[-1]}"


def _name(slide):
    name = (slide.page or "Home").replace("_", " ")
    if slide.params:
        name += " with " + urlencode(slide.params, quote_via=quote, safe=",")
    return name


def outline(slides):
    """The slides as one sentence's parts joined by "; ": consecutive slides of one page with
    the same settings are one part, naming their steps ("every step" for a slide without one:
    Next goes through them all; just the page on a page of one screen, such as Classroom)."""
    parts = []
    for _key, group in groupby(slides, key=lambda s: (s.page, s.params)):
        group = list(group)
        name = _name(group[0])
        named = [s.step for s in group if s.step is not None]
        if len(named) < len(group):  # a slide without a step: the whole page
            first, last = PAGE_STEPS.get(group[0].page, (1, 1))
            parts.append(f"{name} (every step)" if last > first else name)  # one screen: its name
        if named:
            parts.append(f"{name}, {_steps(named)}")
    return "; ".join(parts)
