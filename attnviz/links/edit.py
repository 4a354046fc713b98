"""The link's one edit of X: ``edit=i,c,value`` (token i, embedding dimension c, the new X_ic),
on the pages that change one number and watch it spread. No Streamlit.
"""

import numpy as np

from attnviz.lessons.spread import Edit
from attnviz.limits import MAX_EDIT_VALUE
from attnviz.links.readers import quoted, raw_value, short_float

EDIT_PARAM = "edit"  # the URL parameter: edit=i,c,value


def edit_text(edit):
    """The link's text of ``edit``: "i,c,value", the value in the fewest digits that read back."""
    return f"{edit.i},{edit.c},{short_float(edit.value)}"


def edit_from_query(query, shape):
    """(Edit or None, warnings) from the link's ``edit`` for an X of ``shape`` (n, d_model); a
    repeated ``edit`` takes the last and says so."""
    raw, warnings = raw_value(query, EDIT_PARAM)
    if raw is None:
        return None, warnings
    edit, warning = parse_edit(raw, shape)
    return edit, warnings + ([warning] if warning else [])


def parse_edit(raw, shape):
    """(Edit or None, warning or None) from the link's ``edit=i,c,value`` for an X of
    ``shape`` (n, d_model)."""
    n, d_model = shape
    parts = str(raw).split(",")
    try:
        i, c, value = int(parts[0]), int(parts[1]), float(parts[2])
        if len(parts) != 3:
            raise ValueError
    except (ValueError, IndexError):
        return None, (
            f"`edit={quoted(raw)}` in the link is not token,dimension,value (e.g. `edit=1,0,2.5`): "
            "X is shown as computed."
        )
    if not (0 <= i < n and 0 <= c < d_model):
        return None, (
            f"`edit={quoted(raw)}` in the link names X[{i}, {c}], but X has {n} rows and "
            f"{d_model} columns: X is shown as computed."
        )
    if not (np.isfinite(value) and abs(value) <= MAX_EDIT_VALUE):
        return None, (
            f"`edit={quoted(raw)}` in the link: the new value must be a number from "
            f"{-MAX_EDIT_VALUE:g} to {MAX_EDIT_VALUE:g}. X is shown as computed."
        )
    return Edit(i, c, value), None
