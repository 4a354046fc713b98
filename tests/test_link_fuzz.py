"""No link raises: every page's link readers, given any names and values (the catalogue of
tests/test_page_links.py's parameters, the shared settings, the Classroom's and the deck's
fields, each value text drawn from what attackers type), return a value and warnings. Pure
readers, no Streamlit; tests/pages/test_lecture_deck.py runs the deck pages on the worst."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.links import (
    classroom,
    deck,
    geometry,
    inside_a_chat_model,
    own_numbers,
    real_model,
    shared,
    tiny_gpt,
    work_it_out,
)
from attnviz.links.edit import EDIT_PARAM, edit_from_query
from attnviz.links.steps import PAGE_STEPS

PAGES = frozenset(PAGE_STEPS) | {"Work_it_out", "Classroom", "Lecture_deck"}

# Each reader with the names it reads: every page's link parameters
READERS = {
    "shared settings": (shared.from_query, (*shared.KNOWN_NAMES, *shared.DISPLAY_QUERY_NAMES)),
    "present": (shared.read_present, ("present",)),
    "palette": (shared.read_palette, ("palette",)),
    "geometry": (geometry.choice_from_query, geometry.QUERY_NAMES),
    "tiny GPT": (lambda q: tiny_gpt.choice_from_query(q, seed=0), tiny_gpt.QUERY_NAMES),
    "edit": (lambda q: edit_from_query(q, (6, 16)), (EDIT_PARAM,)),
    "real model": (real_model.pair_from_query, real_model.PAIR_PARAMS),
    "own numbers": (own_numbers.texts_from_query, own_numbers.FIELDS),
    "work it out": (work_it_out.choice_from_query, work_it_out.NAMES),
    "chat model": (inside_a_chat_model.choices_from_query, inside_a_chat_model.PARAMS),
    "classroom room": (classroom.read_room, classroom.PARAMS),
    "classroom joined": (classroom.read_joined, classroom.PARAMS),
    "deck": (lambda q: deck.read_deck(q, PAGES), deck.DECK_PARAMS),
}

NASTY = [
    "", " ", "0", "-0", "-1", "1e309", "nan", "inf", "-inf", "1_000", "0x10", "１２", "٣",
    "9" * 20, "9" * 5000, "-" + "9" * 40, "1.5", "1,2,3", "1;2", "on", "OFF", "lecture",
    "javascript:alert(1)", "../../etc/passwd", "a\x00b", "<script>x</script>", "**b**", "`",
    "$x$", "\u202e", "\ufeff", "🙂" * 50, "a" * 30_000, "Step_by_step/99999999999999999999",
]  # fmt: skip
TEXT = st.one_of(st.sampled_from(NASTY), st.text(max_size=60))


def slide_text():
    """A deck's slide as a link writes it, with any page, step and settings."""
    page = st.one_of(st.sampled_from(sorted(PAGES | {"Home", "Nope", "Multi-head"})), TEXT)
    step = st.one_of(
        st.just(""), st.integers(-(10**30), 10**30).map(lambda k: f"/{k}"), TEXT.map("/".__add__)
    )
    params = st.one_of(st.just(""), TEXT.map("?".__add__))
    return st.tuples(page, step, params).map("".join)


DECK = st.one_of(
    TEXT, st.lists(slide_text(), max_size=70).map(deck.SLIDE_SEP.join), st.just("lecture")
)


def query_for(names):
    value = st.one_of(TEXT, st.lists(TEXT, min_size=1, max_size=3))
    known = st.dictionaries(st.sampled_from(names), value, max_size=len(names))
    unknown = st.dictionaries(TEXT, value, max_size=2)
    deck_part = st.fixed_dictionaries({}, optional={"deck": DECK, "slide": TEXT})
    return st.tuples(known, unknown, deck_part).map(lambda parts: parts[1] | parts[0] | parts[2])


@settings(max_examples=300)
@given(st.data())
def test_no_link_raises_and_every_warning_is_text(data):
    for read, names in READERS.values():
        query = data.draw(query_for(names))
        value, warnings = read(query)[:-1], read(query)[-1]
        assert all(isinstance(w, str) and len(w) < 2000 for w in warnings), warnings
        assert read(query)[:-1] == value  # the same link reads the same


@settings(max_examples=200)
@given(DECK, TEXT)
def test_a_decks_slides_are_pages_and_steps_of_those_pages(text, position):
    slides, k, _ = deck.read_deck({"deck": text, "slide": position}, PAGES)
    assert len(slides) <= deck.MAX_DECK_SLIDES
    assert (k is None) == (not slides) and (k is None or 0 <= k < len(slides))
    for s in slides:
        assert s.page in PAGES
        first, last = PAGE_STEPS.get(s.page, (None, None))
        assert s.step is None or first <= s.step <= last
        deck.slide_query(slides, slides.index(s))  # every slide gives its link
