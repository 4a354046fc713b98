"""What a lecture deck needs from the server before the lecture: the tiny GPT's runs its Watch a
head learn slides show, the models its Real model and Inside a chat model slides load, and
whether it has Classroom slides (a room). "Prepare the lecture" (``ui.lecture_prepare``) makes
them ready. No Streamlit.
"""

from dataclasses import dataclass

from attnviz.links.shared import from_query
from attnviz.links.tiny_gpt import choice_from_query

WATCH_PAGE = "Watch_a_head_learn"
MODEL_PAGES = {"Real_model": "real", "Inside_a_chat_model": "chat"}  # page -> the model it loads
CLASSROOM_PAGE = "Classroom"


@dataclass(frozen=True)
class DeckNeeds:
    """``runs``: the RunChoices of the Watch slides (each trained with scaling, as the page's
    Train button does), in deck order, each once; ``models``: "real" and/or "chat";
    ``classroom``: the deck has a Classroom slide."""

    runs: tuple = ()
    models: tuple = ()
    classroom: bool = False


def slide_run(slide):
    """The RunChoice a Watch slide shows: its ``gpt_`` parameters and the sidebar's seed in
    its settings, read as the page reads them (bad values as the page would clamp them)."""
    query = {name: [value] for name, value in slide.params}
    seed = from_query(query)[0].seed
    return choice_from_query(query, seed)[0]


def deck_needs(slides):
    """The DeckNeeds of ``slides`` (a tuple of deck.Slide)."""
    runs = []
    for s in slides:
        if s.page == WATCH_PAGE and (run := slide_run(s)) not in runs:
            runs.append(run)
    models = tuple(dict.fromkeys(MODEL_PAGES[s.page] for s in slides if s.page in MODEL_PAGES))
    classroom = any(s.page == CLASSROOM_PAGE for s in slides)
    return DeckNeeds(tuple(runs), models, classroom)
