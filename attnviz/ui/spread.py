"""Change one number of X and watch it spread: the picker, the undo, the link's ``edit=`` and
the sentence under each step. The numbers come from ``attnviz.lessons.spread``.

The edit is kept in ``st.session_state`` per page (not in widgets, whose state goes when the
projector's one-step view hides them) and in the URL as ``edit=i,c,value``: token i, embedding
dimension c, the new X_ic. A page draws its steps from ``spread.after`` and outlines
``spread.cells``; one edit at a time.

The picker's callbacks get ``unedited``, an ``attnviz.serve.store.Lookup`` of the AttentionResult
without the edit (from the shared cache), never X itself: a callback's arguments stay in the
session as long as it lives.
"""

import streamlit as st

from attnviz.checks import AttentionInputError
from attnviz.lessons.spread import Edit, delta, delta_line, spread_of_edit
from attnviz.limits import MAX_EDIT_VALUE
from attnviz.links.edit import EDIT_PARAM, edit_from_query, edit_text
from attnviz.ui.charts import show_matrix
from attnviz.ui.sidebar import url_query
from attnviz.ui.text import md_escape

SIDE_BY_SIDE_N = 12  # up to this many tokens, a step and its Δ are drawn side by side
STATE = "attnviz.edit"  # {page: Edit or None}
WIDGET = "attnviz_edit_"


def _edits():
    return st.session_state.setdefault(STATE, {})


def current_spread(result, labels, page, make=None):
    """The Spread of this page's edit on ``result`` (AttentionResult), or None when there is
    none (or it no longer fits X, which is said). ``make(result, edit, labels)`` computes it
    (default ``lessons.spread.spread_of_edit``; a page passes a cached one). Keeps the URL's
    ``edit=`` in step."""
    edits = _edits()
    if page not in edits:  # a new session (or first visit): the link's edit, if any
        query = url_query()
        edit, warnings = edit_from_query(query, result.X.shape)
        for warning in warnings:
            st.warning(warning, icon="⚠️")
        edits[page] = edit
    edit = edits[page]
    n, d_model = result.X.shape
    if edit is not None and not (edit.i < n and edit.c < d_model):
        st.info(  # not a caption: projector mode hides captions
            md_escape(
                f"Your change of X[{edit.i}, {edit.c}] was undone: X now has {n} rows and "
                f"{d_model} columns."
            ),
            icon="↩",
        )
        edit = edits[page] = None
    found = None
    if edit is not None and edit.value != result.X[edit.i, edit.c]:
        try:
            found = (make or spread_of_edit)(result, edit, labels)
        except AttentionInputError as exc:
            st.error(f"Your change of X[{edit.i}, {edit.c}]: {exc}. It was undone.", icon="🚫")
            edits[page] = None
    want = None if found is None else edit_text(edit)
    if want is None and EDIT_PARAM in st.query_params:
        del st.query_params[EDIT_PARAM]
    elif want is not None and st.query_params.get(EDIT_PARAM) != want:
        st.query_params[EDIT_PARAM] = want
    return found


def _picked(X):
    """The (i, c) the selectors hold, as indices into X: a selector's state can be the label
    it showed, or out of range, after X changed (a new sentence, an upload): then 0."""
    n, d_model = X.shape
    i, c = (st.session_state.get(WIDGET + name) for name in ("i", "c"))
    i = i if isinstance(i, int) and 0 <= i < n else 0
    c = c if isinstance(c, int) and 0 <= c < d_model else 0
    return i, c


def _set(page, edit, unedited=None):
    """Store ``edit`` (or None); with ``unedited`` (a Lookup of the result without the edit),
    put the picked cell's own value back in the box."""
    _edits()[page] = edit
    if unedited is not None:
        X = unedited().X
        st.session_state[WIDGET + "value"] = float(X[_picked(X)])


def _typed(page, unedited):
    X = unedited().X
    i, c = _picked(X)
    value = float(st.session_state[WIDGET + "value"])
    _set(page, None if value == X[i, c] else Edit(i, c, value))


def undo_button(page, unedited, where):
    """One click back to X as computed (``unedited``: a Lookup of the result without the
    edit); ``where`` tells the buttons of one page apart."""
    st.button(
        "↩ Undo the change",
        key=WIDGET + f"undo_{where}",
        on_click=_set,
        args=(page, None, unedited),
    )


def banner(page, found, labels, unedited):
    """Above every step while an edit is on: what was changed, and one click to undo it
    (``unedited``: a Lookup of the result without the edit)."""
    e = found.edit
    left, right = st.columns([5, 1], vertical_alignment="center")
    left.info(
        md_escape(f"You changed X[{e.i}, {e.c}] (token ")
        + f"**{md_escape(labels[e.i])}**"
        + md_escape(
            f", dimension {e.c}) from {found.before.X[e.i, e.c]:.6g} to {e.value:.6g}. Every "
            "number below is computed with it, and the cells that changed are "
        )
        + "**outlined**; beside S', A and the output, **Δ = after − before** shows how much.",
        icon="✏️",
    )
    with right:
        undo_button(page, unedited, "banner")


def edit_controls(page, unedited, labels, found):
    """The picker: token i, dimension c and the new X_ic (applied on Enter). ``unedited`` is
    a Lookup of the result without the edit; ``found`` the current Spread or None."""
    state = st.session_state
    X = unedited().X
    n, d_model = X.shape
    if found is not None:  # the boxes show the edit in force (also after a visit elsewhere)
        state[WIDGET + "i"], state[WIDGET + "c"] = found.edit.i, found.edit.c
        state[WIDGET + "value"] = float(found.edit.value)
    else:
        state[WIDGET + "i"], state[WIDGET + "c"] = _picked(X)
        state[WIDGET + "value"] = float(X[state[WIDGET + "i"], state[WIDGET + "c"]])
    st.subheader("Change one number and watch it spread")
    st.markdown(
        "Pick one entry of X, type a new value and press Enter: every step is computed again "
        "and each cell that changed is outlined, so you can see how far one number of one "
        "token reaches."
    )
    a, b, c, d = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
    a.selectbox(
        "Token i (row of X)",
        range(n),
        format_func=lambda i: labels[i],
        key=WIDGET + "i",
        on_change=_set,
        args=(page, None, unedited),
    )
    b.selectbox(
        "Dimension c (column)",
        range(d_model),
        key=WIDGET + "c",
        on_change=_set,
        args=(page, None, unedited),
    )
    c.number_input(
        "New value of X_ic",
        min_value=-MAX_EDIT_VALUE,
        max_value=MAX_EDIT_VALUE,
        step=0.5,
        format="%g",  # as typed: 1e-05 shows as 1e-05, not 0.0000
        key=WIDGET + "value",
        on_change=_typed,
        args=(page, unedited),
    )
    with d:
        if found is not None:
            undo_button(page, unedited, "picker")


def outline(found, field):
    """The cells of ``field`` to outline (bool array), or None without an edit."""
    return None if found is None else found.cells[field]


def note(found, field):
    """The sentence under a step on what the edit changed there, and why (nothing without an
    edit). Shown as text in projector mode too: it is the lesson."""
    if found is not None:
        st.markdown(f"✏️ {md_escape(found.lines[field])}")


def beside(found, n):
    """Where a step's heatmap and its Δ go: (main, side). Without an edit, (a container,
    None); with one, two columns up to SIDE_BY_SIDE_N tokens, else one place under the other."""
    if found is None:
        return st.container(), None
    return tuple(st.columns(2)) if n <= SIDE_BY_SIDE_N else (st.container(), st.container())


DELTA_AXES = {  # (row title, column title) of each step's Δ heatmap, as on the step's own
    "scaled_scores": ("query (row i)", "key (column j)"),
    "attention": ("query (row i)", "key (column j)"),
    "output": ("output of token i (row i)", "d_v dimension c"),
}


def step_matrix(found, field, M, row_labels, col_labels, *, key, delta_title, mask=None, **args):
    """A step's matrix ``M`` (the result's ``field``) drawn clickable under ``key`` (by
    ``show_matrix``, or ``args["draw"]``, e.g. ``show_attention``), the cells the edit
    ``found`` changed outlined, its Δ beside it or under it (``beside``, ``delta_view`` under
    ``key``_delta, titled ``delta_title``) and the sentence on what the edit changed there
    (``note``); returns the cell just clicked, or None. ``args`` go to the drawing."""
    draw = args.pop("draw", show_matrix)
    masked = {} if mask is None else {"mask": mask}
    main, side = beside(found, len(row_labels))
    with main:
        click = draw(
            M, row_labels, col_labels, key=key, selectable=True,
            outline=outline(found, field), **masked, **args,
        )  # fmt: skip
    if side is not None:
        with side:
            delta_view(
                found, field, row_labels, col_labels, key=f"{key}_delta", title=delta_title,
                mask=mask,
            )  # fmt: skip
    note(found, field)
    return click


def delta_view(found, field, row_labels, col_labels, *, key, title, mask=None):
    """How much the edit moved ``field``: Δ = after − before as a heatmap on a scale centred
    at 0 (masked cells grey), then the sentence naming the largest moves and why."""
    row_title, col_title = DELTA_AXES[field]
    show_matrix(
        delta(found.before, found.after, field),
        row_labels,
        col_labels,
        key=key,
        title=f"Δ {title} = after − before",
        value_name="Δ",
        kind="signed",
        mask=mask,
        row_title=row_title,
        col_title=col_title,
    )
    st.markdown(md_escape(delta_line(found, field, row_labels)))
