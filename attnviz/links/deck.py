"""A lecture deck: an ordered list of slides (a page, its settings, its step) that Next follows
across pages, and its link form ``deck=...``. No Streamlit.

A slide is written ``Page/step?settings``: the page's URL path (``Home`` for the home page),
then optionally ``/`` and the step the page opens on, then optionally ``?`` and the slide's
own link parameters as a query string (``edit=1,0,5``, ``mask=causal``). Slides are joined by
``;`` (the settings are percent-encoded, so a ``;`` in them never splits a slide):

    deck=Home;Attention_as_geometry;Step_by_step/0;Step_by_step/1?edit=1,0,5;Why_scale/1

``deck=lecture`` is the default deck, ``LECTURE``: a 50-minute lecture. ``slide=k`` (1 to the
deck's length) is where in the deck the link is.
"""

from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlencode

from attnviz.limits import MAX_DECK_CHARS, MAX_DECK_SLIDES
from attnviz.links.readers import last_value, quoted, raw_value, read_int
from attnviz.links.steps import bound_step

SLIDE_SEP = ";"
DECK_PARAMS = ("deck", "slide")  # what the deck adds to a page's link
LECTURE_NAME = "lecture"
# What a slide may set besides its page and step: the shared settings and the pages' own
# parameters (a deck cannot carry projector mode off, nor another deck)
NOT_IN_A_SLIDE = ("deck", "slide", "step", "present")


@dataclass(frozen=True)
class Slide:
    """One screen of a lecture: ``page`` (its URL path, "" for Home), ``step`` (the step it
    opens on, None for a page without steps) and ``params`` (its own link parameters, as
    (name, value) pairs in order)."""

    page: str
    step: int | None = None
    params: tuple = field(default=())

    def query(self):
        """The slide's link parameters (without the deck's own)."""
        query = dict(self.params)
        if self.step is not None:
            query["step"] = str(self.step)
        return query

    def text(self):
        """The slide written as in a deck link: ``Page/step?settings``."""
        out = self.page or "Home"
        if self.step is not None:
            out += f"/{self.step}"
        if self.params:
            out += "?" + urlencode(self.params, quote_via=quote, safe=",")
        return out


def slide(page, step=None, **params):
    """A Slide of ``page`` at ``step`` with its link parameters ``params``."""
    return Slide("" if page == "Home" else page, step, tuple(params.items()))


# The 50-minute lecture: Home and the geometry of q·k, each through all its steps; the step page
# from the worked example to the output; one number of X changed, seen in S and A; why scale;
# the causal mask; the real model's two sentences; a tiny GPT learning induction and its heads
# over training; the Predict questions (all of them); a question to the class.
LECTURE = (
    slide("Home"),
    slide("Attention_as_geometry"),
    *(slide("Step_by_step", k) for k in range(9)),
    *(slide("Step_by_step", k, edit="1,0,5") for k in (1, 5, 7)),
    slide("Why_scale", 1),
    slide("Why_scale", 3),
    slide("Masks_and_temperature", 1, mask="causal"),
    slide("Real_model", 3),  # its section 5: two sentences compared head by head
    slide("Watch_a_head_learn", 0, gpt_task="induction"),
    slide("Watch_a_head_learn", 2, gpt_task="induction"),  # the heads over training
    slide("Predict_then_reveal"),
    slide("Classroom", question="row_sum"),
)


def deck_text(slides):
    """The ``deck=`` value of ``slides``: ``lecture`` for the default deck."""
    slides = tuple(slides)
    if slides == LECTURE:
        return LECTURE_NAME
    return SLIDE_SEP.join(s.text() for s in slides)


def parse_slide(text, pages):
    """(Slide or None, warnings) from one slide's text; ``pages`` are the URL paths there are
    ("" for Home). A step outside the page's steps (``attnviz.links.steps``) becomes the
    nearest of them, with a warning."""
    head, _, settings = text.strip().partition("?")
    page, _, step_text = head.partition("/")
    page = page.strip()
    name = "" if page in ("", "Home") else page
    if name not in pages:
        return None, [f"`{quoted(page)}` is not a page of attnviz: that slide is left out."]
    step = None
    if step_text.strip():
        try:
            step = int(step_text)
        except ValueError:
            return None, [f"`{quoted(text)}`: the step after / is not a whole number: left out."]
        if step < 0:
            return None, [f"`{quoted(text)}`: a step cannot be negative: left out."]
    step, warnings = bound_step(name, step, text)  # within the page's own steps
    params = tuple((k, v) for k, v in parse_qsl(settings) if k not in NOT_IN_A_SLIDE)
    return Slide(name, step, params), warnings


def parse_deck(text, pages):
    """(the slides, warnings) of a ``deck=`` value: ``lecture`` or slides joined by ``;``.

    A slide that names no page of ``pages`` or has a bad step is left out with a warning; at
    most MAX_DECK_SLIDES slides and MAX_DECK_CHARS characters are read. An empty deck is ()."""
    text = text.strip()
    if text.lower() == LECTURE_NAME:
        return LECTURE, []
    warnings = []
    if len(text) > MAX_DECK_CHARS:
        warnings.append(
            f"The deck in the link is {len(text)} characters long: only its first "
            f"{MAX_DECK_CHARS} are read."
        )
        text = text[:MAX_DECK_CHARS]
    slides = []
    for part in text.split(SLIDE_SEP):
        if not part.strip():
            continue
        found, said = parse_slide(part, pages)
        warnings += said
        if found is not None:
            slides.append(found)
    if len(slides) > MAX_DECK_SLIDES:
        warnings.append(
            f"The deck has {len(slides)} slides: only the first {MAX_DECK_SLIDES} are used."
        )
        slides = slides[:MAX_DECK_SLIDES]
    if not slides:
        warnings.append("The deck in the link has no slide attnviz can show: it is ignored.")
    return tuple(slides), warnings


def cut_deck_warnings(query, pages):
    """Warnings for a deck cut short by an ``&`` typed inside a slide's settings: the link's
    parser ends ``deck`` there, and the rest (``ex_seed=7;Classroom?...``) becomes a parameter
    of its own whose value goes on with slides of ``pages``."""
    warnings = []
    for name, value in query.items():
        if name == "deck":
            continue
        text = str(last_value(value))
        named = [part.strip().partition("?")[0].partition("/")[0] for part in text.split(SLIDE_SEP)]
        if any(page and ("" if page == "Home" else page) in pages for page in named[1:]):
            warnings.append(
                f"`{quoted(name)}={quoted(text)}` in the link looks like the rest of the deck: "
                "an & inside a slide's settings ends the deck there. In a deck link write it "
                "as %26 (the Lecture deck page's link does)."
            )
    return warnings


def read_deck(query, pages):
    """(slides, position, warnings) from a link's ``deck`` and ``slide`` (1 to the number of
    slides; position is 0-based); ((), None, []) without a deck."""
    raw, warnings = raw_value(query, "deck")
    if raw is None:
        return (), None, warnings
    slides, said = parse_deck(raw, pages)
    warnings += said + cut_deck_warnings(query, pages)
    if not slides:
        return (), None, warnings
    k, said = read_int(query, "slide", low=1, high=len(slides), default=1)
    return slides, k - 1, warnings + said


def slide_query(slides, position, present=True):
    """The link parameters that open slide ``position`` of ``slides``: its own, the deck, its
    position, and projector mode."""
    query = slides[position].query()
    query |= {"deck": deck_text(slides), "slide": str(position + 1)}
    if present:
        query["present"] = "on"
    return query
