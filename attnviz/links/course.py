"""The table of pages: one row a page, in the course's order (no Streamlit).

Everything the app says about a page that is not its lesson: its URL path, its name, its icon,
the line under its link on Home, its title and learning goal, its steps' titles, its own URL
parameters and the sidebar's settings it uses. The shell (app.py) builds ``st.navigation`` and
the menu from it and draws the frame once for the page's row; a page script
(``app_pages/<path>.py``, ``Home.py`` for Home) holds its lesson only.

The order is a student's path: intuition before algebra, the by-hand pages together, the two
trained models side by side, then the lecturer's tools apart. Links and decks name a page by its
path (``/Why_scale``), which never changes.
"""

from collections.abc import Callable
from dataclasses import dataclass

from attnviz.links.classroom import read_room
from attnviz.links.geometry import QUERY_NAMES as GEOMETRY_PARAMS
from attnviz.links.own_numbers import FIELDS as OWN_FIELDS
from attnviz.links.real_model import PAIR_PARAMS
from attnviz.links.tiny_gpt import QUERY_NAMES as GPT_PARAMS
from attnviz.links.work_it_out import NAMES as EXERCISE_PARAMS

HOME, COURSE, LECTURERS = "Home", "The course", "For lecturers"  # the menu's sections


@dataclass(frozen=True)
class Page:
    """One page.

    ``path``: its URL path ("" for Home), also its script's name. ``title``: its name in the
    browser's tab (``Why scale · attnviz``) and on its stepper's bar. ``summary``: the line
    under its link on Home. ``heading`` and ``goal``: the title and learning goal its intro
    opens with (``ui.stepper.intro``; None where the page writes its own). ``steps``: its steps'
    titles, numbered from ``first_step`` (what projector mode and a deck's slides count).
    ``page_params``: its own URL parameters, left in the address (the page writes them).
    ``uses``: the Settings fields it uses (None: all; in projector mode only these are drawn),
    and ``note`` (markdown) says so under the sidebar's header; ``sidebar``, for a page whose
    note depends on its link, gives (note, uses) from the link's query (name -> [values]).
    """

    path: str
    title: str
    summary: str
    section: str = COURSE
    icon: str = "🔎"
    heading: str | None = None
    goal: str | None = None
    steps: tuple[str, ...] = ()
    first_step: int = 1
    page_params: tuple[str, ...] = ()
    uses: tuple[str, ...] | None = None
    note: str | None = None
    sidebar: Callable | None = None

    @property
    def label(self):
        """Its link's text in the menu and on Home: the path's words ("Multi head")."""
        return self.path.replace("_", " ") or "Home"

    @property
    def script(self):
        """Its script's file name in app_pages/."""
        return f"{self.path or HOME}.py"

    @property
    def last_step(self):
        return self.first_step + len(self.steps) - 1

    def sidebar_for(self, query):
        """(note, uses) of the sidebar for the link ``query`` (name -> [values])."""
        return (self.note, self.uses) if self.sidebar is None else self.sidebar(query)


def classroom_sidebar(query):
    """The Classroom's sidebar: a phone in a room (a room's code, no lecturer's key) shows the
    room's example, so no settings widget is drawn; a lecturer's room pushes these settings."""
    code, key, _ = read_room(query)
    if code is not None and key is None:
        return "A phone in a room shows the room's example, not these settings.", ()
    return "A lecturer's room shows these settings' example on every phone (Push).", None


ONLY_ITS_OWN = "This page uses none of the sidebar's settings: "
# Inside a chat model's section 2, one head of the block: one step each in projector mode
CHAT_HEAD_STEPS = (
    "2a. Normalise: x̂ = RMSNorm(x)",
    "2b. Queries and keys, before and after RoPE",
    "2c. Values",
    "2d. Scores, scaled, masked, softmax",
    "2e. The head's output",
)

PAGES = (
    Page(
        "",
        "Home",
        "What self-attention is, the pipeline, the formula, and the course, page by page.",
        section=HOME,
        icon="🏠",
        steps=("1. Queries, keys and values", "2. The formula, live, and the course"),
    ),
    Page(
        "Attention_as_geometry",  # the intuition for q·k and for √d_k
        "Attention as geometry",
        "See a query and its keys as arrows: the weight follows the angle, a longer query is a "
        "colder softmax, and dividing by √d_k undoes the growth of q·k with dimension.",
        icon="🧭",
        heading="Attention as geometry",
        goal="why a key's weight follows its angle to the query, why a longer query is a colder "
        "softmax, and why the scores are divided by √d_k.",
        steps=("1–3. A query and its keys as arrows", "4. More dimensions: why divide by √d_k"),
        page_params=GEOMETRY_PARAMS,
        uses=(),
        note=ONLY_ITS_OWN + "its queries and keys are its own.",
    ),
    Page(
        "Step_by_step",
        "Step by step",
        "Compute attention end to end: every matrix from X to the output, live, and the "
        "arithmetic behind any cell.",
        steps=(
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
        first_step=0,
        page_params=("step", "edit"),  # step=: projector mode; edit=: X_ic
    ),
    Page(
        "Work_it_out",  # practise right after the algebra
        "Work it out",
        "Compute attention by hand, one number at a time, and have each checked as you type; "
        "print the exercise as a worksheet with its answer key, or one for every student.",
        icon="✏️",
        steps=("The exercise, its key and the worksheets",),  # a deck's bar
        page_params=EXERCISE_PARAMS,
        uses=(),
        note=ONLY_ITS_OWN + "each exercise comes from its own level and seed.",
    ),
    Page(
        "Your_own_numbers",  # and check an exercise of one's own
        "Your own numbers",
        "Check a hand-worked exercise: type, paste or upload X and the weights, and see every "
        "step computed from them.",
        icon="✍️",
        heading="Your own numbers",
        goal="check a hand-worked exercise: type your own X and weights and see every step "
        "computed from them.",
        steps=("1. Your matrices", "2. X", "3. Q, K and V", "4. S, S' and A", "5. The output"),
        page_params=(*OWN_FIELDS, "edit"),
        uses=("mask", "scale", "temperature"),
        note="This page uses only the **mask**, **scaling** and **temperature**: X and the "
        "weights are yours (the button \"The sidebar's example\" copies the sidebar's X and "
        "weights into the boxes).",
    ),
    Page(
        "Why_scale",
        "Why scale",
        "Why divide by √d_k? The variance of q·k, saturated softmax rows and the vanishing "
        "gradient, measured.",
        heading="Why divide by √d_k?",
        goal="why the scores are divided by √d_k: without it, the softmax saturates and stops "
        "learning as d_k grows.",
        steps=(
            "1. The variance of q·k grows like d_k",
            "2. Large scores saturate the softmax",
            "3. Scaled and unscaled attention",
            "4. A saturated softmax stops learning",
        ),
    ),
    Page(
        "Masks_and_temperature",
        "Masks and temperature",
        "How a mask hides keys (−∞ before the softmax) and how a temperature sharpens or "
        "flattens each row.",
        heading="Masks and temperature",
        goal="how a mask hides keys from a query (−∞ before the softmax) and how a temperature "
        "sharpens or flattens each row.",
        steps=("1. Masks: which keys a query may see", "2. Temperature: how sharp each row is"),
    ),
    Page(
        "Positions",
        "Positions",
        "Does attention know word order? Without positions or a causal mask it cannot; "
        "sinusoidal, learned or rotary positions give it.",
        heading="Positions: does attention know word order?",
        goal="why attention without positions (and without a causal mask) cannot tell word "
        "order, and three ways to give it: sinusoidal, learned and rotary positions.",
        steps=(
            "1. Without positions: the same rows, reordered",
            "2. With sinusoidal positions: the symmetry breaks",
            "3. Other ways to give positions: learned and rotary",
        ),
    ),
    Page(
        "Multi_head",
        "Multi-head",
        "Why several heads: each attends by its own rule; build one by hand and watch it work.",
        heading="Multi-head attention",
        goal="why several heads run side by side, and how their outputs are joined by W_O.",
        steps=(
            "1. Every head, and one built by hand",
            "2. Why several heads help",
            "3. Concatenate, then project with W_O",
            "4. Open one head, step by step",
        ),
    ),
    Page(
        "Predict_then_reveal",  # a checkpoint
        "Predict then reveal",
        "Predict, then reveal: questions to reason out on the current settings, checked by "
        "the numbers.",
        icon="❓",
        heading="Predict, then reveal",
        goal="to predict, by reasoning, what attention does before the numbers show it.",
        # one question a step (as many as the settings allow, lessons.MAX_QUESTIONS at most),
        # then the sketch: the page counts its own (the most are here, for a deck's slides)
        steps=(*(f"Question {k}" for k in range(1, 6)), "Sketch a row"),
    ),
    Page(
        "Real_model",  # a trained encoder
        "Real model",
        "A trained Transformer, head by head: the same formula with learned weights, 72 heads.",
        heading="A real model: all-MiniLM-L6-v2, head by head",
        goal="that a trained model runs the very same formula, and what its learned heads "
        "attend to.",
        steps=(
            "1. Word pieces",
            "2–4. One head, step by step",
            "5. Compare two sentences",
            "6. Each layer at a glance",
        ),
        page_params=PAIR_PARAMS,  # section 6's two sentences
        uses=("text", "generated", "n"),
        note="This page uses only the **sentence**: the model's sizes and weights are its own.",
    ),
    Page(
        "Inside_a_chat_model",  # a trained decoder
        "Inside a chat model",
        "Inside a chat model: SmolLM2-135M-Instruct predicting, generating, and every head open.",
        icon="💬",
        steps=(  # a decoder lecture's order: the block, one head in it, the output, generation
            "1. The prompt, as tokens",
            *CHAT_HEAD_STEPS,  # 2a to 2e: one head of the block, step by step
            "3. The next token",
            "4. Generate, token by token",
            "5. Every head at a glance",
        ),
        page_params=("prompt", "temperature", "top_k", "pick", "generate", "layer", "head"),
        uses=(),
        note="This page uses only its own prompt: the model's sizes and weights are its own.",
    ),
    Page(
        "Watch_a_head_learn",  # training
        "Watch a head learn",
        "Watch a head learn: train a tiny GPT in the page and see its attention heads take shape.",
        icon="🏋️",
        heading="Watch a head learn: a tiny GPT, trained here",
        goal="how training turns random heads into heads with a rule, such as looking at the "
        "previous token.",
        steps=(
            "0. The task, and training",
            "1. The loss",
            "2. Every head, checkpoint by checkpoint",
            "3. Why scale, measured",
            "4. Generate",
        ),
        first_step=0,
        page_params=GPT_PARAMS,
        uses=("seed",),
        note="This page uses only the **seed**: the task and the model's sizes are chosen on "
        "the page.",
    ),
    Page(
        "Tiled_attention",  # going further
        "Tiled attention",
        "Going further: tiled attention gives softmax(S')V without ever holding the n × n matrix.",
        heading="Going further: memory-efficient (tiled) attention",
        goal="how attention can give exactly softmax(S')V without ever holding the n × n "
        "matrix S'.",
        steps=(
            "1. The online softmax",
            "2. Step through the blocks",
            "3. The same output as the full computation",
            "4. Memory as n grows",
        ),
    ),
    Page(
        "Lecture_deck",
        "Lecture deck",
        "A lecture deck: pages and steps in order, one link, and a clicker's Next follows it "
        "across pages.",
        section=LECTURERS,
        icon="🎞️",
        steps=("The slides and their link",),  # in a deck, the bar with Next and Previous
        page_params=("deck", "slide"),
        uses=(),
        note=ONLY_ITS_OWN + "each slide carries its own.",
    ),
    Page(
        "Classroom",
        "Classroom",
        "Classroom: a live class quiz, answered on phones, the class's answers on the projector.",
        section=LECTURERS,
        icon="🙋",
        # key=: the lecturer's link, which the page reads and takes out of the address
        page_params=("room", "joined", "question", "rounds", "query", "key"),
        sidebar=classroom_sidebar,
    ),
)
BY_PATH = {page.path: page for page in PAGES}
PATHS = frozenset(BY_PATH)  # every page's URL path, "" for Home
