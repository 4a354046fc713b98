"""The course's order, as the app's own menu and Home list it (no Streamlit): intuition before
algebra, the by-hand pages together, the two trained models side by side, then the lecturer's
tools apart. The pages' files keep their numbers (pages/N_Name.py: links and decks name a page
by its path, Name); this order is the menu's.
"""

# Page paths (pages/N_<path>.py), a student's path through the course
COURSE = (
    "Attention_as_geometry",  # the intuition for q·k and for √d_k
    "Step_by_step",
    "Work_it_out",  # practise right after the algebra
    "Your_own_numbers",  # and check an exercise of one's own
    "Why_scale",
    "Masks_and_temperature",
    "Positions",
    "Multi_head",
    "Predict_then_reveal",  # a checkpoint
    "Real_model",  # a trained encoder
    "Inside_a_chat_model",  # a trained decoder
    "Watch_a_head_learn",  # training
    "Tiled_attention",  # going further
)
LECTURER_TOOLS = ("Lecture_deck", "Classroom")  # for the lecturer, listed apart


def course_rank(path):
    """Where the page ``path`` comes in the menu: the course in order, then the lecturer's
    tools, then any page not listed (by its file's number, which the caller sorts on next)."""
    order = COURSE + LECTURER_TOOLS
    return order.index(path) if path in order else len(order)


def is_lecturer_tool(path):
    return path in LECTURER_TOOLS
