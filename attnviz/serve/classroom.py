"""The Classroom's server side: the server's one RoomStore (Redis when ATTNVIZ_REDIS_URL is
set, else in process), a pinned ``Slot`` made on first use. No Streamlit."""

from attnviz.classroom import make_store
from attnviz.serve.slots import Slot

# size 0: the store is not counted against the cache budget (as when it was a named cache)
ROOM_STORE = Slot("attnviz.classroom.store", make_store, size=lambda _: 0)
