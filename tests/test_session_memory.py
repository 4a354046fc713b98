"""A session keeps settings, never arrays: every page at its limits (it works: no error, its
charts drawn and under 2 MB), then everything its session holds walked for numpy arrays (and
bytes).

Streamlit keeps a session for ``server.disconnectedSessionTTL`` (120 s) after its tab closes,
and with it: its ``st.session_state`` and widgets' state (with every callback's args and
kwargs), its fragments (each stored with the arguments it was called with, in the session's
``MemoryFragmentStorage``) and its download buttons' callables (the runtime's media file
manager). What those reach, walked with ``gc.get_referents``, must hold no array over
``MAX_ARRAY_BYTES`` and at most ``MAX_SESSION_BYTES`` in all: results live once per server in
``attnviz.serve``, and a session holds the keys to them. The walk does not enter imported
modules (a callback's module-level globals are the server's, not the session's), but it does
enter a page script's own globals, which a lambda defined in the script keeps alive.
"""

import gc
import sys
import types

import numpy as np
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from attnviz.limits import MAX_D_K, MAX_D_MODEL, MAX_D_V, MAX_OWN_DIM, MAX_OWN_N, MAX_TOKENS
from tests.helpers import ALL_SCRIPTS, CHARTLESS, REAL_MODEL_PAGE, app

MAX_ARRAY_BYTES = 64 * 1024  # one array: a 64 x 64 float64 matrix the user typed is 32 KB
MAX_SESSION_BYTES = 1 << 20  # everything a session holds, in all

AT_LIMITS = {  # d_model etc. at the app's maxima, MAX_TOKENS generated tokens
    "n": str(MAX_TOKENS),
    "d_model": str(MAX_D_MODEL),
    "d_k": str(MAX_D_K),
    "d_v": str(MAX_D_V),
}
LONG_TEXT = " ".join(["the quick brown fox jumps over the lazy dog"] * 20)  # > 128 pieces


def own_matrix(rows, cols, seed):
    values = np.random.default_rng(seed).integers(-9, 10, (rows, cols))
    return ";".join(",".join(str(v) for v in row) for row in values)


OWN = {  # the largest matrices Your own numbers takes, through its link
    "X": own_matrix(MAX_OWN_N, MAX_OWN_DIM, 0),
    "W_Q": own_matrix(MAX_OWN_DIM, MAX_OWN_DIM, 1),
    "W_K": own_matrix(MAX_OWN_DIM, MAX_OWN_DIM, 2),
    "W_V": own_matrix(MAX_OWN_DIM, MAX_OWN_DIM, 3),
    "edit": "1,0,2.5",
}

OWN_LINKS = {  # a page's own link at its limits; every other page gets AT_LIMITS
    "app_pages/Step_by_step.py": AT_LIMITS | {"edit": "1,0,2.5"},
    "app_pages/Your_own_numbers.py": OWN,
    REAL_MODEL_PAGE: {"tokens": LONG_TEXT, "model_a": LONG_TEXT, "model_b": LONG_TEXT},
}
TINY_GPT = "app_pages/Watch_a_head_learn.py"  # trained in its own test below
PAGES = {page: OWN_LINKS.get(page, AT_LIMITS) for page in ALL_SCRIPTS}
MB = 1024 * 1024
# A page's charts, as sent to the browser, at its limits. The Real model's limit is its 128 word
# pieces, not n: its grid of 72 heads alone is 1.96 MB there (2.17 MB in all, measured at
# c5c35d3; at n = 512 the page sends 0.2 MB), so it gets 2.5 MB.
MAX_CHART_BYTES = {REAL_MODEL_PAGE: 5 * MB // 2}


def _module_dicts():
    """The globals of every imported module but ``__main__``: while a page runs, that is the
    page script itself (Streamlit runs each script as ``__main__``, in a new namespace per run),
    whose variables a lambda defined in it keeps alive."""
    return {
        id(vars(m))
        for name, m in list(sys.modules.items())
        if hasattr(m, "__dict__") and name != "__main__"
    }


def held_arrays(roots):
    """{id: (bytes, path)} of every numpy array (by its memory: a view counts its base) and
    bytes object reachable from ``roots`` ({name: object}), without entering modules, classes
    or imported modules' globals; ``path`` says how it was reached, for the failure message."""
    modules = _module_dicts()
    seen, found = set(), {}
    todo = [(obj, name) for name, obj in roots.items()]
    while todo:
        obj, path = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (types.ModuleType, type)) or id(obj) in modules:
            continue
        if isinstance(obj, np.ndarray):
            base = obj
            while isinstance(base.base, np.ndarray):
                base = base.base
            found.setdefault(id(base), (base.nbytes, path))
            continue
        if isinstance(obj, (bytes, bytearray)):
            found[id(obj)] = (len(obj), path)
            continue
        where = f"{path} > {type(obj).__name__}"
        todo.extend((child, where) for child in gc.get_referents(obj))
    return found


@pytest.fixture
def media_managers(monkeypatch):
    """The media file managers AppTest makes (one per run): download buttons' callables."""
    made = []

    class Recorded(MediaFileManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr("streamlit.testing.v1.app_test.MediaFileManager", Recorded)
    return made


def assert_holds_no_arrays(at, media_managers):
    roots = {
        "session_state": at._session_state,
        "fragments": at._fragment_storage,
        "downloads": [m._deferred_callables for m in media_managers],
    }
    found = held_arrays(roots)
    big = sorted((size, path) for size, path in found.values() if size > MAX_ARRAY_BYTES)
    total = sum(size for size, _ in found.values())
    assert not big, f"arrays over {MAX_ARRAY_BYTES} bytes held by the session: {big[-3:]}"
    assert total <= MAX_SESSION_BYTES, f"the session holds {total} bytes of arrays"


def open_page(page, query):
    at = app(page)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_works_at_its_limits_and_its_session_holds_no_arrays(page, media_managers):
    at = open_page(page, PAGES[page])  # no exception
    assert not at.error, [e.value for e in at.error]
    assert at.get("plotly_chart") or page in CHARTLESS  # the quiz (until answered), the deck...
    sent = sum(len(el.proto.spec) for el in at.get("plotly_chart"))
    bound = MAX_CHART_BYTES.get(page, 2 * MB)
    assert sent < bound, f"{page} sends {sent} bytes of chart data at its limits"
    assert_holds_no_arrays(at, media_managers)


def test_a_tiny_gpt_session_holds_no_trained_run(media_managers):
    """The trained run (its parameters, every checkpoint) is the server's, not the session's:
    the Sample buttons and the prompt keep the choice."""
    at = open_page(TINY_GPT, {"gpt_steps": "20", "gpt_dmodel": "48"})
    at.button(key="gpt_train").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.button(key="gpt_sample_1")  # generation is drawn: the run is trained
    assert_holds_no_arrays(at, media_managers)


def test_the_walk_finds_what_a_session_holds():
    """The walk sees an array behind a callback's args, a closure and a script's globals."""
    big = np.zeros(MAX_ARRAY_BYTES // 8 + 1)
    namespace = {"__name__": "__main__", "r": big}
    in_script = eval("lambda: r", namespace)  # a lambda a page script defines
    closure = (lambda x: lambda: x)(big[::2])  # a view: its base is counted

    def sizes(root):
        return [size for size, _ in held_arrays({"root": root}).values()]

    assert sizes({"args": (1, big)}) == [big.nbytes]
    assert sizes(closure) == [big.nbytes]
    assert sizes(in_script) == [big.nbytes]
    assert sizes(np.zeros) == []  # a module's own objects are the server's


def test_the_walk_sees_a_callbacks_args_and_a_fragments_arguments(media_managers):
    """Through AppTest's own session: what a button's args, a fragment's arguments and a
    download button's callable keep is found (each array once, by its memory)."""
    at = AppTest.from_string(
        "import numpy as np, streamlit as st\n"
        "a, b, c = np.zeros(20_000), np.ones(30_000), np.full(40_000, 2.0)\n"
        "st.button('x', on_click=print, args=(a[:3],))\n"
        "st.fragment(lambda M: st.write(M.shape))(b)\n"
        "st.download_button('d', data=lambda: c.tobytes(), file_name='c')\n"
    )
    at.run()
    assert not at.exception
    roots = {
        "session_state": at._session_state,
        "fragments": at._fragment_storage,
        "downloads": [m._deferred_callables for m in media_managers],
    }
    assert sorted(size for size, _ in held_arrays(roots).values()) == [160_000, 240_000, 320_000]
