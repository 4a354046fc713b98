"""The steps each page shows in projector mode, by URL path: what a deck's slide may open on.

``PAGE_STEPS[path]`` is (first, last), the numbers the page's own ``stepper`` counts (most
number from 1, Step by step and Watch a head learn from 0); a page not in it has no steps.
tests/pages/test_page_steps.py runs every page up to its stepper and holds this table to it,
so a page that gains or loses a step fails that test until the table says so. No Streamlit.
"""

from attnviz.links.readers import quoted

PAGE_STEPS = {
    "": (1, 2),  # Home
    "Step_by_step": (0, 10),
    "Your_own_numbers": (1, 5),
    "Why_scale": (1, 4),
    "Masks_and_temperature": (1, 2),
    "Positions": (1, 3),
    "Multi_head": (1, 4),
    "Real_model": (1, 4),
    "Watch_a_head_learn": (0, 4),
    "Predict_then_reveal": (1, 6),
    "Attention_as_geometry": (1, 2),
    "Inside_a_chat_model": (1, 9),
    "Tiled_attention": (1, 4),
    "Work_it_out": (1, 1),
    "Lecture_deck": (1, 1),
}


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
