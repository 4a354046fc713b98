"""One heavy link cannot stall the class: heavy work goes through one fair queue. No Streamlit.

A heavy computation (a tiny GPT's training, a max-size example, the real model's forward pass,
the chat model's generation, a class set's PDF) runs through ``HEAVY``, the server's
``serve.fair_queue.FairGate``: a lane of ``limits.HEAVY_AT_ONCE`` slots (one core fewer than
the server has, at least one) for large work, a lane of ``HEAVY_SMALL_AT_ONCE`` for short work
(at most ``SMALL_HEAVY_SECONDS``), and a lane of ``CHAT_AT_ONCE`` for the chat model's work
(``CHAT``: each of its computations holds tens of MB while it runs, so twenty at once took a
server past 1 GB), visitors served in turn, at most ``HEAVY_PER_VISITOR`` jobs each.
Everything else (a student's change at classroom sizes, every cache hit) never waits here.
``gated(compute, what, cost, lane)`` runs through it, ``turn(what, cost, lane)`` a block.

The page's side is installed by the UI (``attnviz.ui.heavy``): ``show_waiting_with`` a notice
that draws "Waiting: k ahead of you" and, when a visitor has their share of heavy work already,
says so and stops the page; ``visitor_with`` who is asking.
"""

import threading
from contextlib import contextmanager

from attnviz.limits import (
    CHAT_AT_ONCE,
    HEAVY_AT_ONCE,
    HEAVY_PER_VISITOR,
    HEAVY_SMALL_AT_ONCE,
    SMALL_HEAVY_SECONDS,
)
from attnviz.serve.fair_queue import LARGE, SMALL, BusyError, FairGate

CHAT = "chat"  # the chat model's lane: its reading, its grid of heads, a head, a generation

HEAVY = FairGate(
    {LARGE: HEAVY_AT_ONCE, SMALL: HEAVY_SMALL_AT_ONCE, CHAT: CHAT_AT_ONCE},
    per_visitor=HEAVY_PER_VISITOR,
    small_seconds=SMALL_HEAVY_SECONDS,
)


# How a page shows a wait: ``notice(what)`` -> (``on_wait`` for ``FairGate.admit``, a callable
# that clears what it drew, ``refuse(busy)`` that tells the visitor a ``BusyError`` in the same
# place and stops the page) or (None, None, None) outside a page. Here, nothing is shown.
_NOTICE = [lambda what: (None, None, None)]
# Who is asking: ``visitor()`` -> a key, or None outside a page (a benchmark's or a test's
# thread), where each thread is a visitor of its own.
_VISITOR = [lambda: None]


def show_waiting_with(notice):
    """Let ``notice(what)`` (see ``_NOTICE``) show every wait for a heavy slot."""
    _NOTICE[0] = notice


def visitor_with(visitor):
    """Let ``visitor()`` (see ``_VISITOR``) name who asks for heavy work."""
    _VISITOR[0] = visitor


def visitor_key():
    """The visitor asking now: the installed ``visitor()``'s key, else one per thread."""
    return _VISITOR[0]() or f"no page, thread {threading.get_ident()}"


@contextmanager
def turn(what="a large computation", cost=None, lane=None):
    """Hold a slot of the lane for the ``with`` block, with the waiting notice meanwhile:
    ``gated`` for a block of a page (the chat page holds the chat lane for the rest of its run,
    serve/inside_a_chat_model.py ``chat_turn``). The arguments and refusals are ``gated``'s."""
    if isinstance(what, tuple):
        what, cost = what
    on_wait, clear, refuse = _NOTICE[0](what)
    try:
        with HEAVY.admit(visitor_key(), cost=cost, what=what, on_wait=on_wait, lane=lane):
            if clear is not None:
                clear()
            yield
    except BusyError as busy:
        if refuse is None:
            raise
        refuse(busy)
        raise
    except BaseException:
        if clear is not None:
            clear()
        raise


def gated(compute, what="a large computation", cost=None, lane=None):
    """``compute()`` once a slot of its lane is free, with the waiting notice meanwhile.

    ``what`` may be (what, cost): ``cost`` is the work's estimated seconds (None: unknown, the
    large lane); ``lane`` names a lane instead (``CHAT``). In a page, a visitor who already
    has their share of heavy work waiting or running is told so and the page stops there
    (``refuse``); outside a page ``BusyError`` goes on."""
    with turn(what, cost, lane):
        return compute()


def deferred(compute, what, cost=None):
    """A download button's ``data``: a callable that computes ``compute()`` later (on click, in
    a thread of its own, no page to draw a notice in) in this visitor's turn of the heavy
    queue. The visitor is read now, in the page's run; one who has their share of heavy work
    already gets ``BusyError`` then (Streamlit says "Failed to generate file")."""
    visitor = visitor_key()

    def in_turn():
        with HEAVY.admit(visitor, cost=cost, what=what):
            return compute()

    return in_turn
