"""The Classroom's server side: the server's one RoomStore (Redis when ATTNVIZ_REDIS_URL is
set, else in process), a pinned ``Slot`` made on first use. No Streamlit."""

from attnviz.classroom import make_store
from attnviz.classroom.sketch import sketch_question
from attnviz.serve.kept import kept
from attnviz.serve.slots import Slot
from attnviz.serve.store import object_bytes

# size 0: the store is not counted against the cache budget (as when it was a named cache)
ROOM_STORE = Slot("attnviz.classroom.store", make_store, size=lambda _: 0)


@kept(64, size=object_bytes)
def cached_sketch_question(settings, variant, query):
    """The SketchQuestion on ``settings``' example (small, frozen), once for every session."""
    return sketch_question(settings, variant, query)
