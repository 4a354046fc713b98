"""attnviz.links.deck: a lecture deck's slides and its link form."""

from attnviz.links.deck import (
    LECTURE,
    Slide,
    deck_text,
    parse_deck,
    read_deck,
    slide,
    slide_query,
)

PAGES = {"", "Step_by_step", "Why_scale", "Masks_and_temperature", "Real_model",
         "Attention_as_geometry", "Watch_a_head_learn", "Predict_then_reveal",
         "Classroom"}  # fmt: skip


def test_a_deck_reads_back_from_its_link_form():
    slides = (
        slide("Home"),
        slide("Step_by_step", 0),
        slide("Step_by_step", 1, edit="1,0,5", tokens="a; b & c"),  # ; and & inside a setting
        slide("Why_scale", 3),
    )
    text = deck_text(slides)
    assert text.count(";") == 3  # one per slide boundary: the settings' own are encoded
    assert parse_deck(text, PAGES) == (slides, [])


def test_the_default_deck_is_the_reviews_lecture_and_has_a_short_name():
    assert deck_text(LECTURE) == "lecture"
    assert parse_deck("lecture", PAGES) == (LECTURE, [])
    pages = [s.page for s in LECTURE]
    assert pages[0] == "" and pages[-1] == "Classroom"  # the lecture ends on a class question
    assert slide("Watch_a_head_learn", 2, gpt_task="induction") in LECTURE
    steps = [s.step for s in LECTURE if s.page == "Step_by_step" and not s.params]
    assert steps == list(range(9))  # the step page, 0 to 8
    assert [s.step for s in LECTURE if dict(s.params).get("edit") == "1,0,5"] == [1, 5, 7]
    assert set(pages) <= PAGES


def test_bad_slides_are_left_out_with_a_message_and_an_empty_deck_is_said():
    slides, warnings = parse_deck("Home;Nope;Step_by_step/x;Step_by_step/-1;Why_scale/2", PAGES)
    assert slides == (Slide(""), Slide("Why_scale", 2))
    assert len(warnings) == 3 and "Nope" in warnings[0]
    slides, warnings = parse_deck(";;", PAGES)
    assert slides == () and "no slide" in warnings[0]


def test_a_slide_cannot_set_the_decks_own_parameters():
    (only,), _ = parse_deck("Why_scale/1?deck=x&slide=3&present=off&d_k=8", PAGES)
    assert only.query() == {"d_k": "8", "step": "1"}


def test_the_link_holds_the_position_and_a_bad_one_is_clamped():
    query = slide_query(LECTURE, 4)
    assert query["deck"] == "lecture" and query["slide"] == "5" and query["present"] == "on"
    assert query["step"] == "2"  # slide 5: Step by step, step 2
    slides, k, warnings = read_deck({"deck": "lecture", "slide": "99"}, PAGES)
    assert slides == LECTURE and k == len(LECTURE) - 1 and "outside" in warnings[0]
    assert read_deck({}, PAGES) == ((), None, [])


def test_a_slides_step_is_bounded_by_the_pages_own_steps_with_a_warning():
    huge = "9" * 20
    slides, warnings = parse_deck(
        f"Step_by_step/{huge};Why_scale/0;Why_scale/4;Home/2;Classroom/3", PAGES | {"Classroom"}
    )
    assert [(s.page, s.step) for s in slides] == [
        ("Step_by_step", 10), ("Why_scale", 1), ("Why_scale", 4), ("", 2), ("Classroom", None)
    ]  # fmt: skip
    assert len(warnings) == 3
    assert "Step by step has steps 0 to 10, so this slide opens on step 10" in warnings[0]
    assert "Why scale has steps 1 to 4" in warnings[1] and "has no steps" in warnings[2]
    assert huge[:20] in warnings[0]  # the link's text is quoted


def test_a_deck_cut_by_a_typed_ampersand_is_said():
    """Review 4, §3: a hand-typed deck with a raw & in a slide's settings lost every later
    slide without a word. The parser ends ``deck`` at the &; the rest is said."""
    from urllib.parse import parse_qs

    typed = "deck=Home/2;Why_scale?d_k=8&seed=7;Classroom?question=row_sum;Step_by_step/3"
    query = parse_qs(typed)
    slides, _, warnings = read_deck(query, PAGES)
    assert slides == (slide("Home", 2), slide("Why_scale", d_k="8"))
    assert len(warnings) == 1 and "`seed=7;Classroom" in warnings[0] and "%26" in warnings[0]
    # a setting's own ; is no deck's rest, nor a trailing one
    query = {"deck": ["Home/2"], "tokens": ["I came; I saw;"], "seed": ["7;"]}
    assert read_deck(query, PAGES)[2] == []


def test_a_decks_needs_are_its_watch_runs_models_and_room():
    """What Prepare the lecture makes ready: the Watch slides' runs (each once, read as the page
    reads its link: the seed the sidebar's), the models of its Real model and chat slides,
    and a room when it has a Classroom slide."""
    from attnviz.links.deck_needs import deck_needs
    from attnviz.links.tiny_gpt import default_choice

    needs = deck_needs(LECTURE)
    assert needs.runs == (default_choice("induction"),) and needs.models == ("real",)
    assert needs.classroom
    own = (
        slide("Watch_a_head_learn", 1, gpt_task="sort", gpt_steps="50", seed="3"),
        slide("Watch_a_head_learn", 2, gpt_task="sort", gpt_steps="50", seed="3"),
        slide("Inside_a_chat_model", 2),
        slide("Why_scale", 1),
    )
    needs = deck_needs(own)
    assert [(r.task, r.steps, r.seed) for r in needs.runs] == [("sort", 50, 3)]
    assert needs.models == ("chat",) and not needs.classroom


def test_a_sketch_slide_reads_its_variant_and_its_query_token():
    from attnviz.links.sketch_slide import slide_query_index, slide_variant
    from attnviz.settings import Settings

    assert slide_variant(Settings()) == ("plain", [])
    assert slide_variant(Settings(mask="causal")) == ("causal", [])
    assert slide_variant(Settings(temperature=0.2))[0] == "cold"
    assert slide_variant(Settings(scale=False))[0] == "unscaled"
    variant, warnings = slide_variant(Settings(mask="causal", scale=False))
    assert variant == "causal" and "one change at a time" in warnings[0]
    assert "T = 1 or T = 0.2" in slide_variant(Settings(temperature=3.0))[1][0]
    labels = ["the (1)", "cat", "sat", "on", "the (2)", "mat"]
    assert slide_query_index(labels, "on") == (3, [])
    assert slide_query_index(labels, "the (2)") == (4, [])
    assert slide_query_index(labels, "the") == (0, [])
    assert slide_query_index(labels, "5") == (5, [])
    index, warnings = slide_query_index(labels, "dog`*")
    assert index is None and "`query=dog'*`" in warnings[0]
