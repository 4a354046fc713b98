"""What a prepared lecture keeps past the server's usual rules: the chat model past its idle
time (``keep_for``), until the lecture ends (``keep_for(0)``). The tiny GPT's pinned runs:
tests/test_cache.py; the Prepare button: tests/pages/test_lecture_deck.py."""

from attnviz.limits import CHAT_IDLE_SECONDS
from attnviz.serve import inside_a_chat_model as serve
from tests.helpers import fresh_store, serve_chat_model


def test_a_prepared_lecture_keeps_the_chat_model_past_its_idle_time(monkeypatch):
    fresh_store(monkeypatch)
    monkeypatch.setattr(serve, "_KEPT_UNTIL", [0.0])
    monkeypatch.setattr(serve, "_idle_watch", lambda: None)  # no thread: the test calls it
    model = object()  # stands for the loaded model: release_if_idle only drops it
    serve_chat_model(model)
    serve.note_use()
    serve.keep_for(3 * CHAT_IDLE_SECONDS)
    idle = serve._LAST_USE[0] + CHAT_IDLE_SECONDS
    assert not serve.release_if_idle(now=idle) and serve.CHAT_MODEL.peek() is model
    serve.keep_for(0)  # the lecture ended: idle again means released
    assert serve.release_if_idle(now=idle) and serve.CHAT_MODEL.peek() is None
