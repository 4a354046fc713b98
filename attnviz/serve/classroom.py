"""The Classroom's server side: the server's one RoomStore (Redis when ATTNVIZ_REDIS_URL is
set, else in process), a pinned ``Slot`` made on first use, and what every phone of a room
shares, computed once: the questions on a room's example, a sketch question, the numbers of a
reveal, the reveal's finished charts. No Streamlit."""

from attnviz.charts.finish import finished
from attnviz.classroom import make_store
from attnviz.classroom.questions import all_questions
from attnviz.classroom.sketch import sketch_question
from attnviz.limits import CACHE_ROOM_FIGURES
from attnviz.serve.slots import Slot
from attnviz.serve.store import kept, object_bytes

# size 0: the store is not counted against the cache budget (as when it was a named cache)
ROOM_STORE = Slot("attnviz.classroom.store", make_store, size=lambda _: 0)


@kept(64, size=object_bytes)
def cached_sketch_question(settings, variant, query):
    """The SketchQuestion on ``settings``' example (small, frozen), once for every session."""
    return sketch_question(settings, variant, query)


@kept(entries=64)
def cached_room_questions(settings, quiz_seed):
    """Every question of set ``quiz_seed`` on the example of ``settings`` (small, frozen)."""
    return all_questions(settings, quiz_seed)


@kept(64)
def room_summary(code, version):
    """The room's current question's numbers at ``version`` (rounds.summary): read once per
    version for every phone (a reveal asks 60 at once)."""
    return ROOM_STORE.get().rounds_summary(code)


# The reveal's charts are the same on every phone: each is made and finished (made readable,
# recoloured, described) once per projector mode and palette for all of them, from small keys
@kept(*CACHE_ROOM_FIGURES, size=object_bytes)
def finished_room_chart(make, args, share, present, colours):
    """``make(*args)``'s (fig, words) finished (``serve.finish.finished``) for projector mode
    ``present`` and palette ``colours``."""
    fig, words = make(*args)
    return finished(fig, present, colours, share=share, words=words)
