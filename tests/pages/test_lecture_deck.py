"""The Lecture deck page: the default lecture's link, a deck from the link to edit, and a bad
deck link said in words."""

import json
from urllib.parse import parse_qs, urlparse

from attnviz.links.course import PATHS
from attnviz.links.deck import LECTURE, parse_deck
from attnviz.links.deck_outline import outline
from attnviz.links.steps import PAGE_STEPS
from attnviz.ui.address import FALLBACK_ADDRESS, PUBLIC_URL_VARIABLE
from attnviz.ui.pages.lecture_deck import (
    EVERY_STEP,
    _table,
    step_choices,
    table_text,
    typed_page,
)
from attnviz.ui.text import md_escape
from tests.helpers import run

DECK = "app_pages/Lecture_deck.py"


def _link(at):
    return next(c.value for c in at.code)


def test_the_default_lecture_gives_one_link_that_opens_its_first_slide_in_projector_mode(
    monkeypatch,
):
    monkeypatch.delenv(PUBLIC_URL_VARIABLE, raising=False)
    at = run(DECK)
    query = parse_qs(urlparse(_link(at)).query)
    assert query["deck"] == ["lecture"] and query["slide"] == ["1"] and query["present"] == ["on"]
    # the lecture starts on Home; the link is whole, to hand out (AppTest has no browser address)
    assert _link(at).startswith(f"{FALLBACK_ADDRESS}/?")
    text = " ".join(m.value for m in at.markdown)
    assert f"The link of these {len(LECTURE)} slides:" in text
    # the help says what Next does (W1), and describes the default lecture from its slides
    assert "goes to the deck's next slide; on a slide without a step it first goes through" in text
    assert f"a 50-minute lecture of {len(LECTURE)} slides: {md_escape(outline(LECTURE))}." in text


def test_a_deck_in_the_link_is_edited_and_bad_slides_are_said(monkeypatch):
    monkeypatch.setenv(PUBLIC_URL_VARIABLE, "https://attnviz.example.edu/")
    at = run(DECK, {"deck": "Why_scale/3;Nowhere/1;Masks_and_temperature?mask=causal"})
    assert any("`Nowhere` is not a page" in w.value for w in at.warning)
    link = _link(at)
    assert link.startswith("https://attnviz.example.edu/Why_scale?") and "step=3" in link
    assert "Masks_and_temperature%3Fmask%3Dcausal" in link  # the second slide, settings kept
    at = run(DECK, {"deck": ";;"})
    assert any("no slide" in w.value for w in at.warning)
    assert not at.exception


def test_a_huge_step_in_the_deck_is_bounded_with_a_warning_not_a_traceback():
    at = run(DECK, {"deck": "Step_by_step/99999999999999999999;Why_scale/2"})
    assert any("has steps 0 to 10" in w.value for w in at.warning)
    assert "step=10" in _link(at)


def test_a_deck_page_opened_from_a_hostile_deck_link_warns_and_runs():
    hostile = "Why_scale/99999999999999999999;Nope/1;Classroom/7?question=%00;Why_scale/-1"
    for page in ("app_pages/Why_scale.py", "app_pages/Classroom.py"):
        at = run(page, {"deck": hostile, "slide": "9" * 30, "present": "on"})
        assert not at.exception
        assert any("has steps 1 to 4" in w.value for w in at.warning)  # the bound, said


def test_the_table_numbers_its_rows_as_the_link_counts_slides():
    """Row k of the table is the link's slide=k (review 4, §3: rows 0-19 against slides 1-20)."""
    table = _table(LECTURE)
    assert table.index.name == "slide" and table.index.tolist() == list(range(1, len(LECTURE) + 1))
    assert table.loc[len(LECTURE), "page"] == "Classroom"


def test_a_row_without_a_page_is_left_out_and_named():
    """A row added with the toolbar's + whose page did not take is not dropped without a word
    (review 4, §3): its number is given back, and the other rows make the deck."""
    table = _table(LECTURE[:2])
    table.loc[3] = [None, None, "mask=causal"]
    table.loc[4] = ["Why_scale", "Why scale: 3. Scaled and unscaled attention", " ?d_k=8 "]
    assert table_text(table) == ("Home;Attention_as_geometry;Why_scale/3?d_k=8", [3], [])


def test_prepare_trains_and_pins_the_watch_run_opens_the_room_and_lets_the_deck_ask(
    monkeypatch, empty_rooms
):
    """One click readies the deck: its Watch run trained and pinned, the lecturer's room
    opened and trusting the deck, so the Classroom slide asks on arrival with no other click;
    End the lecture lets the run go."""
    from attnviz.links.course import PATHS
    from attnviz.links.deck import deck_text, parse_deck
    from attnviz.links.deck_needs import slide_run
    from attnviz.serve.watch_a_head_learn import gpt_run
    from attnviz.ui.pages.classroom_shared import room_store
    from tests.helpers import as_browser, fresh_store

    fresh_store(monkeypatch)  # no run kept yet, and the pins of this test only
    as_browser(monkeypatch, "lecturer-prepares")
    deck = "Watch_a_head_learn/0?gpt_task=previous&gpt_steps=20;Classroom?question=row_sum"
    slides, _ = parse_deck(deck, PATHS)
    choice = slide_run(slides[0])
    first = {"deck": deck, "slide": "1", "present": "on"}  # the deck's first slide offers it
    watch = "app_pages/Watch_a_head_learn.py"
    assert run(watch, first).button(key="deck_prepare").label == "🎓 Lecturer: prepare the lecture"
    at = run(DECK, {"deck": deck})
    said = " ".join(c.value for c in at.caption)
    assert "train the previous run" in said and "open your room" in said
    at.button(key="deck_prepare").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert gpt_run.peek(choice, True) is not None and gpt_run.pinned_for(choice, True) > 0
    code, key = room_store().held("lecturer-prepares")  # without the App: held by the browser
    assert room_store().trusts_deck(code, key, deck_text(slides))
    assert at.button(key="deck_prepare").disabled  # nothing left to do
    assert "deck_prepare" not in {b.key for b in run(watch, first).button}  # ready: not offered
    assert any(f"Room {code} is yours" in m.value for m in at.markdown)
    query = {"deck": deck, "slide": "2", "present": "on", "question": "row_sum"}
    slide = run("app_pages/Classroom.py", query)  # the deck's slide: a new session, same browser
    assert not any(b.key == "cls_trust_deck" for b in slide.button)
    room = room_store().room(code)
    assert (room.kind, room.phase) == ("row_sum", "answering")  # asked on arrival
    at.button(key="deck_end").click().run()
    assert gpt_run.pinned_for(choice, True) is None


def test_one_slides_link_and_the_classroom_settings_help_say_what_is_true():
    """I2: one slide's link is "the link of this slide"; I3: the settings' help says that a
    Classroom slide asks on arrival once the deck may ask in the room."""
    at = run(DECK, {"deck": "Why_scale/1"})
    assert "The link of this slide:" in [m.value for m in at.markdown]
    columns = json.loads(at.dataframe[0].proto.columns)  # the table editor's columns
    assert "asks your room that question on arrival, once Prepare the lecture" in " ".join(
        columns["settings"]["help"].split()
    )


def test_the_step_column_shows_each_steps_title_as_the_bar_does():
    """The step cell names the step by its title, not the page's own index (review 5, I1: on
    Real model, step 3 is "5. Compare two sentences"); the deck read back is the same deck."""
    choices = step_choices()
    assert choices["Real model: 5. Compare two sentences"] == ("Real_model", 3)
    assert choices["Step by step: 6. Scaling"] == ("Step_by_step", 6)
    assert len(choices) == sum(last - first + 1 for first, last in PAGE_STEPS.values())
    table = _table(LECTURE)
    assert set(table["step"]) <= {EVERY_STEP, *choices}  # never "None": a step-less slide's
    assert table.loc[1, "step"] == EVERY_STEP  # Home, every step
    text, pageless, elsewhere = table_text(table)
    assert not pageless and not elsewhere
    assert parse_deck(text, PATHS)[0] == LECTURE


def test_the_page_cell_takes_a_typed_name_in_any_case_and_says_a_step_of_another_page():
    """Typing "real model" in the page cell gives Real_model (review 5: a list's cell took
    Predict_then_reveal on Enter); a name no page has is kept for the deck's reader to say;
    a step of another page is said and left out."""
    assert typed_page("real model") == typed_page(" Real_Model ") == "Real_model"
    assert typed_page("home") == "Home" and typed_page("  ") is None
    assert typed_page("Nowhere") == "Nowhere"
    table = _table(LECTURE[:1])
    table.loc[2] = ["why scale", "Real model: 5. Compare two sentences", ""]
    table.loc[3] = [None, "Real model: 5. Compare two sentences", ""]
    assert table_text(table) == (
        "Home;Why_scale;Real_model/3",
        [],
        [(2, "Real model: 5. Compare two sentences")],
    )


def test_one_slide_is_said_as_one():
    at = run(DECK, {"deck": "Why_scale/3"})
    assert "The link of this slide:" in " ".join(m.value for m in at.markdown)  # review 5, I2
