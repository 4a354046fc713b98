"""One pinned value per server, made on first use: the real model, the chat model, the room store.

A ``Slot`` lives in the server's store (``serve.store``) under its own name, pinned: never
evicted to make room for another cache. Not ``st.cache_resource``: Streamlit's "Clear cache"
message, which any browser may send, would drop it for every user (the next visitor would wait
for the model to load again; the in-process room store would lose every open room). No
Streamlit: a page shows the loading (a spinner, a progress bar) through ``get``'s keywords.
"""

from attnviz.serve.store import MB, _cached_call, _peek, _register, forget, result_bytes


class Slot:
    """The server's one value made by ``make(**progress)``; ``mb`` (MB) bounds it and counts
    against the budget while it is made; ``size(value)`` is what it costs once made."""

    def __init__(self, name, make, mb=None, *, size=result_bytes):
        self.name, self.make, self.mb, self.size = name, make, mb, size
        _register(name, 1, mb, pinned=True)

    def get(self, **progress):
        """The value, made now unless this server has it (a second caller meanwhile waits for
        that one); ``progress`` (e.g. a progress bar's callbacks) goes to ``make``. An
        exception from ``make`` is raised and nothing is kept."""
        estimate = 0 if self.mb is None else self.mb * MB
        return _cached_call(
            self.name, (), lambda: self.make(**progress), estimate=estimate, size=self.size
        )

    def peek(self):
        """The value if this server has made it, else None (never makes it)."""
        return _peek(self.name, ())

    def forget(self):
        """Drop the value (tests: as if the server had just started)."""
        forget(self.name)
