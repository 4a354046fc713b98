"""The your-own-numbers page's inputs: four text boxes (X, W_Q, W_K, W_V), row labels, an
upload, buttons that fill them, and the page's own URL parameters.

What was typed is kept in ``st.session_state`` under ``TEXTS_KEY`` (a widget's own state is
dropped when the user visits another page), so it is there again on return, and it is never
replaced by an error: a bad entry shows a message and stays in its box to be fixed. A new
session starts from the URL (parameters ``X``, ``W_Q``, ``W_K``, ``W_V`` in the form
``1,0;0,1`` and ``labels``) or else from the small integer exercise. Widget keys start with
``attnviz_own_``.

The steps are computed once per (matrices' texts, mask, scaling, temperature) for every session
(``own_result``, in the shared cache); the page's fragments and callbacks keep that key
(``steps_key``), never the arrays.
"""

import functools
import io
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from attnviz.checks import AttentionInputError, check_projection_shapes
from attnviz.files.own_numbers import (
    EXERCISE,
    EXERCISE_SOURCE,
    EXERCISE_TOKENS,
    NAMES,
    format_matrix,
    parse_matrix,
    read_file,
)
from attnviz.inputs import generated_tokens, tokenize
from attnviz.limits import MAX_OWN_DIM, MAX_OWN_N, MAX_OWN_URL_CHARS, MAX_TEXT_CHARS
from attnviz.links.own_numbers import FIELDS, matrices_query, texts_from_query
from attnviz.serve.example import cached_example
from attnviz.serve.your_own_numbers import (
    _read,
    own_result,
)
from attnviz.ui.sidebar import SETTINGS_KEY, is_present, url_query
from attnviz.ui.text import md_escape

TEXTS_KEY = "attnviz.own_texts"  # {field: text} as last typed
MESSAGE_KEY = "attnviz.own_message"  # (kind, text) to show once, from a button or an upload
WIDGET = "attnviz_own_"
SHAPES = {
    "X": "n × d_model",
    "W_Q": "d_model × d_k",
    "W_K": "d_model × d_k",
    "W_V": "d_model × d_v",
}


def _exercise_texts():
    return {name: format_matrix(M) for name, M in EXERCISE.items()} | {"labels": EXERCISE_TOKENS}


def _fill(texts, message=None):
    """Put ``texts`` into the boxes (from a callback, before the widgets are drawn)."""
    st.session_state[TEXTS_KEY] = dict(texts)
    for field, text in texts.items():
        st.session_state[WIDGET + field] = text
    st.session_state[MESSAGE_KEY] = message


def _fill_from_sidebar():
    """The boxes get the sidebar's example, rounded; they are left alone if it cannot be
    computed or is larger than this page takes."""
    try:
        example = cached_example(st.session_state[SETTINGS_KEY])
    except AttentionInputError as exc:
        st.session_state[MESSAGE_KEY] = ("error", f"The sidebar's settings: {exc}")
        return
    r = example.result
    if r.n > MAX_OWN_N or max(r.d_model, r.d_k, r.d_v) > MAX_OWN_DIM:
        st.session_state[MESSAGE_KEY] = (
            "error",
            f"The sidebar's example has {r.n} tokens, d_model = {r.d_model}, d_k = {r.d_k} and "
            f"d_v = {r.d_v}; this page takes up to {MAX_OWN_N} tokens and {MAX_OWN_DIM} "
            "dimensions. Make them smaller in the sidebar first; your matrices are unchanged.",
        )
        return
    texts = {name: format_matrix(np.round(getattr(r, name), 2) + 0.0) for name in NAMES}  # no -0
    _fill(
        texts | {"labels": " ".join(example.tokens)},
        ("info", "Filled from the sidebar's example, each number rounded to 2 decimals."),
    )


def _fill_from_upload():
    upload = st.session_state.get(WIDGET + "file")
    if upload is None:
        return
    try:
        matrices, tokens = read_file(upload.name, upload.getvalue())
    except AttentionInputError as exc:
        st.session_state[MESSAGE_KEY] = ("error", f"{upload.name}: {exc}")
        return
    texts = {name: format_matrix(M) for name, M in matrices.items()}
    numbered = "" if tokens else " It has no tokens (words without spaces): rows are numbered."
    _fill(
        texts | {"labels": " ".join(tokens) if tokens else ""},
        ("success", f"Read X, W_Q, W_K and W_V from {upload.name}.{numbered}"),
    )


def inputs():
    """Draw the inputs; return ({field: text} as typed now)."""
    state = st.session_state
    if TEXTS_KEY not in state:
        texts, warnings = texts_from_query(url_query())
        for warning in warnings:
            st.warning(warning, icon="⚠️")
        state[TEXTS_KEY] = texts or _exercise_texts()
    for field in FIELDS:
        if WIDGET + field not in state:  # new session, or back from another page
            state[WIDGET + field] = state[TEXTS_KEY][field]

    b1, b2, b3 = st.columns([1, 1, 2])
    b1.button(
        "Small integer exercise",
        key=WIDGET + "exercise",
        on_click=_fill,
        args=(
            _exercise_texts(),
            ("info", f"The small integer exercise: 3 tokens, d_model 4. It is {EXERCISE_SOURCE}."),
        ),
        help="X 3 × 4, W_Q, W_K, W_V 4 × 3, all small integers: every step works out by hand. "
        f"It is {EXERCISE_SOURCE}.",
    )
    b2.button(
        "The sidebar's example",
        key=WIDGET + "sidebar",
        on_click=_fill_from_sidebar,
        help="X, W_Q, W_K, W_V of the sidebar's sentence and seed, rounded to 2 decimals.",
    )
    b3.file_uploader(
        "Or upload .npz / .json with X, W_Q, W_K, W_V",
        type=["npz", "json"],
        key=WIDGET + "file",
        on_change=_fill_from_upload,
        help="The step-by-step page's 'every step' downloads, or numpy.savez(f, X=..., "
        "W_Q=..., W_K=..., W_V=...).",
    )
    message = state.pop(MESSAGE_KEY, None)
    if message:  # it may quote a file name or an entry: shown as typed, never as markdown
        kind, text = message
        {"info": st.info, "success": st.success, "error": st.error}[kind](md_escape(text))

    st.caption(
        f"One row per line, numbers separated by spaces or commas; or paste what numpy or "
        f"Python prints, each row in [brackets]. Up to {MAX_OWN_N} tokens and {MAX_OWN_DIM} "
        "dimensions. Press Ctrl+Enter or click outside a box to apply it."
    )
    st.text_input(
        "Tokens (row labels, separated by spaces)",
        key=WIDGET + "labels",
        max_chars=MAX_TEXT_CHARS,
        help="One per row of X; when the count differs, the rows are numbered t1 … tn.",
    )
    c1, c2 = st.columns(2)
    for column, name in zip((c1, c2, c1, c2), NAMES, strict=True):
        column.text_area(f"{name} ({SHAPES[name]})", key=WIDGET + name, height=150)
    state[TEXTS_KEY] = {field: state[WIDGET + field] for field in FIELDS}
    return state[TEXTS_KEY]


def matrices(texts):
    """({name: matrix}, tokens) read from ``texts``; None after showing every problem found.

    The tokens are the labels box's, or t1 ... tn when their count is not X's rows."""
    found, problems = {}, []
    for name in NAMES:
        try:
            found[name] = parse_matrix(name, texts[name])
        except AttentionInputError as exc:
            problems.append(str(exc))
    if not problems:
        try:
            check_projection_shapes(*(found[name] for name in NAMES))
        except AttentionInputError as exc:
            problems.append(str(exc))
    if problems:  # they quote what was typed: shown as typed, never as markdown
        st.error("\n\n".join(md_escape(problem) for problem in problems), icon="🚫")
        return None
    n = found["X"].shape[0]
    tokens = tokenize(texts["labels"])
    if len(tokens) != n:
        if tokens:
            st.caption(f"{len(tokens)} tokens for {n} rows of X: the rows are numbered instead.")
        tokens = generated_tokens(n)
    return found, tokens


def sync_url(texts, found):
    """Write the page's parameters into the URL (``found`` read from ``texts``), or drop them
    and say so when they would make the link longer than MAX_OWN_URL_CHARS."""
    query = matrices_query(found, texts["labels"])
    current = st.query_params.to_dict()
    shared = {k: v for k, v in current.items() if k not in FIELDS}  # the sidebar's settings
    page = st.context.url or ""  # the address without its query, as the browser sent it
    link = f"{page.split('?', 1)[0]}?{urlencode(shared | query)}"
    fits = len(link) <= MAX_OWN_URL_CHARS  # the whole link, as the address bar will hold it
    for name in FIELDS:
        want = query.get(name) if fits else None
        if want is None and name in current:
            del st.query_params[name]
        elif want is not None and current.get(name) != want:
            st.query_params[name] = want
    if not fits:
        st.caption(
            f"With these matrices the page's link would be {len(link)} characters long (over "
            f"{MAX_OWN_URL_CHARS}): download them below to share them."
        )


def matrices_npz(found, tokens):
    """NPZ bytes of X, W_Q, W_K, W_V and the tokens: what the upload reads back."""
    buffer = io.BytesIO()
    np.savez(buffer, tokens=np.array(tokens), **found)
    return buffer.getvalue()


def attend_to(key):
    """The AttentionResult of ``key`` (``steps_key``): self_attention on the matrices read, with
    the sidebar's mask, scaling and temperature, from the shared cache.

    Stops the page with the core's message when a step overflows (numbers far too large).
    """
    try:
        return own_result(key)[0]
    except AttentionInputError as exc:
        st.error(str(exc), icon="🚫")
        st.stop()


def _npz_of(key):
    return matrices_npz(*_read(dict(key[0])))


def download_matrices(key):
    """A button that downloads the four matrices and the tokens as .npz (readable here again);
    ``key`` is ``steps_key``'s (the button keeps it, and makes the file on click); none in
    projector mode."""
    if is_present():
        return
    st.download_button(
        "⬇ These matrices (.npz, upload it here again)",
        data=functools.partial(_npz_of, key),
        file_name="attnviz-own-numbers.npz",
        mime="application/octet-stream",
        key="download_own",
        on_click="ignore",
    )
