"""The steps each page shows in projector mode, by URL path: what a deck's slide may open on.

``PAGE_STEPS[path]`` is (first, last), the numbers the page's own ``stepper`` counts (most
number from 1, Step by step and Watch a head learn from 0); a page not in it has no steps.
``STEP_TITLES[path]`` is (first, titles): what the Lecture deck's step column shows.
tests/pages/test_page_steps.py runs every page up to its stepper and holds this table to it,
so a page that gains or loses a step, or renames one, fails that test until the table says so.
No Streamlit.
"""

from attnviz.links.readers import quoted

STEP_TITLES = {  # path: (the first step's number, every step's title as the page's bar says it)
    "": (1, ("1. Queries, keys and values", "2. The formula, live, and the course")),  # Home
    "Step_by_step": (
        0,
        (
            "0. By hand: two tokens",
            "1. Input embedding X",
            "2. Query (Q)",
            "3. Key (K)",
            "4. Value (V)",
            "5. Attention score S",
            "6. Scaling",
            "7. Softmax attention matrix A",
            "8. Attention output",
            "9. Complete self-attention formula",
            "10. Matrix dimensions",
        ),
    ),
    "Your_own_numbers": (
        1,
        ("1. Your matrices", "2. X", "3. Q, K and V", "4. S, S' and A", "5. The output"),
    ),
    "Why_scale": (
        1,
        (
            "1. The variance of q·k grows like d_k",
            "2. Large scores saturate the softmax",
            "3. Scaled and unscaled attention",
            "4. A saturated softmax stops learning",
        ),
    ),
    "Masks_and_temperature": (
        1,
        ("1. Masks: which keys a query may see", "2. Temperature: how sharp each row is"),
    ),
    "Positions": (
        1,
        (
            "1. Without positions: the same rows, reordered",
            "2. With sinusoidal positions: the symmetry breaks",
            "3. Other ways to give positions: learned and rotary",
        ),
    ),
    "Multi_head": (
        1,
        (
            "1. Every head, and one built by hand",
            "2. Why several heads help",
            "3. Concatenate, then project with W_O",
            "4. Open one head, step by step",
        ),
    ),
    "Real_model": (
        1,
        (
            "1. Word pieces",
            "2–4. One head, step by step",
            "5. Compare two sentences",
            "6. Each layer at a glance",
        ),
    ),
    "Watch_a_head_learn": (
        0,
        (
            "0. The task, and training",
            "1. The loss",
            "2. Every head, checkpoint by checkpoint",
            "3. Why scale, measured",
            "4. Generate",
        ),
    ),
    "Predict_then_reveal": (
        1,
        ("Question 1", "Question 2", "Question 3", "Question 4", "Question 5", "Sketch a row"),
    ),
    "Attention_as_geometry": (
        1,
        ("1–3. A query and its keys as arrows", "4. More dimensions: why divide by √d_k"),
    ),
    "Inside_a_chat_model": (
        1,
        (
            "1. The prompt, as tokens",
            "2a. Normalise: x̂ = RMSNorm(x)",
            "2b. Queries and keys, before and after RoPE",
            "2c. Values",
            "2d. Scores, scaled, masked, softmax",
            "2e. The head's output",
            "3. The next token",
            "4. Generate, token by token",
            "5. Every head at a glance",
        ),
    ),
    "Tiled_attention": (
        1,
        (
            "1. The online softmax",
            "2. Step through the blocks",
            "3. The same output as the full computation",
            "4. Memory as n grows",
        ),
    ),
    "Work_it_out": (1, ("The exercise, its key and the worksheets",)),
    "Lecture_deck": (1, ("The slides and their link",)),
}
PAGE_STEPS = {
    path: (first, first + len(titles) - 1) for path, (first, titles) in STEP_TITLES.items()
}


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
