"""Your own X, W_Q, W_K, W_V: matrices read from text, a URL or a file, with clear errors.

For checking a worked exercise: a student types (or pastes, or uploads) the four matrices and
every step of attention is computed from them. Text holds one row per line (or rows separated
by ``;``, as in a URL), numbers separated by spaces and/or commas; brackets are ignored, so
numpy's and Python's printed lists paste as they are::

    1 0 1 0          [[1, 0, 1, 0],
    0 2 0 2           [0, 2, 0, 2],
    1 1 1 1           [1, 1, 1, 1]]

Files: an ``.npz`` holding arrays named X, W_Q, W_K, W_V, or a ``.json`` with them under
"steps" (or at the top level) as nested lists: what the step-by-step page's "every step"
downloads hold, so a download comes back as it was. Labels ("labels" or "tokens") come along.
Sizes are capped by ``limits.MAX_OWN_N`` and ``limits.MAX_OWN_DIM``; every problem raises
``AttentionInputError`` with the matrix, the row and the entry it is about.
"""

import io
import json
import re
import zipfile

import numpy as np

from attnviz.errors import AttentionInputError
from attnviz.limits import MAX_OWN_DIM, MAX_OWN_FILE_BYTES, MAX_OWN_N, MAX_OWN_TEXT_CHARS

NAMES = ("X", "W_Q", "W_K", "W_V")
_ROWS = re.compile(r"[\n;]")
_ENTRIES = re.compile(r"[,\s]+")

# A small integer exercise (3 tokens, d_model = 4, d_k = d_v = 3) that can be worked by hand.
EXERCISE = {
    "X": [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]],
    "W_Q": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]],
    "W_K": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
    "W_V": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]],
}
EXERCISE_TOKENS = "input_1 input_2 input_3"


def parse_matrix(name, text):
    """The matrix written in ``text`` -> float64 array (rows, cols). Raises AttentionInputError
    naming ``name``, the row and the entry, for anything that is not a full grid of finite
    numbers."""
    if len(text) > MAX_OWN_TEXT_CHARS:
        raise AttentionInputError(
            f"{name} has {len(text):,} characters (at most {MAX_OWN_TEXT_CHARS:,}): this page "
            f"is for matrices of up to {MAX_OWN_N} x {MAX_OWN_DIM}"
        )
    lines = [line.replace("[", " ").replace("]", " ").strip(" ,\t\r") for line in _ROWS.split(text)]
    rows = [_ENTRIES.split(line) for line in lines if line]
    if not rows:
        raise AttentionInputError(
            f"{name} is empty: type one row per line, numbers separated by spaces or commas"
        )
    matrix = []
    for i, entries in enumerate(rows, start=1):
        row = []
        for j, entry in enumerate(entries, start=1):
            try:
                value = float(entry)
            except ValueError:
                raise AttentionInputError(
                    f"{name}, row {i}, entry {j}: {entry!r} is not a number (write numbers "
                    "like 2, -0.5 or 1e-3, separated by spaces or commas)"
                ) from None
            if not np.isfinite(value):
                raise AttentionInputError(
                    f"{name}, row {i}, entry {j}: {entry!r} is not a finite number: "
                    "replace it with an ordinary number"
                )
            row.append(value)
        if i > 1 and len(row) != len(matrix[0]):
            raise AttentionInputError(
                f"{name}: row {i} has {_count(len(row))} but row 1 has "
                f"{_count(len(matrix[0]))}: every row of a matrix needs the same count"
            )
        matrix.append(row)
    return check_size(name, np.array(matrix))


def _count(k):
    return f"{k} number" if k == 1 else f"{k} numbers"


def check_size(name, M):
    """``M`` itself if it is within the page's limits, else AttentionInputError."""
    rows, cols = M.shape
    most_rows = MAX_OWN_N if name == "X" else MAX_OWN_DIM
    if rows > most_rows or cols > MAX_OWN_DIM:
        what = "tokens (rows)" if name == "X" else "rows"
        raise AttentionInputError(
            f"{name} is {rows} x {cols}; this page takes at most {most_rows} {what} and "
            f"{MAX_OWN_DIM} columns (limits.MAX_OWN_N, MAX_OWN_DIM): use a smaller exercise, or "
            "the sidebar's settings on the other pages for larger ones"
        )
    return M


def number_text(x):
    """The shortest text that reads back as exactly ``x``: 1, -0.5, 0.1, 1e-07."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def format_matrix(M, *, row_sep="\n", entry_sep=" "):
    """Text of ``M`` (rows, cols) that ``parse_matrix`` reads back as exactly ``M``.

    ``row_sep=";", entry_sep=","`` gives the URL form: ``1,0,1;0,2,0``.
    """
    return row_sep.join(entry_sep.join(number_text(x) for x in row) for row in np.asarray(M))


def check_shapes(X, W_Q, W_K, W_V):
    """Raise AttentionInputError unless the four shapes fit together (the seed's table)."""
    d_model = X.shape[1]
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        if W.shape[0] != d_model:
            raise AttentionInputError(
                f"{name} has {W.shape[0]} rows but X has d_model = {d_model} columns: X W needs "
                f"one row of {name} per column of X"
            )
    if W_Q.shape[1] != W_K.shape[1]:
        raise AttentionInputError(
            f"W_Q has {W_Q.shape[1]} columns and W_K {W_K.shape[1]}: queries and keys need the "
            "same width d_k, since S_ij = q_i . k_j"
        )


def _arrays_from_json(data):
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AttentionInputError(f"the file is not valid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise AttentionInputError("the JSON file must hold an object with X, W_Q, W_K, W_V")
    steps = document.get("steps", document)
    if not isinstance(steps, dict):
        raise AttentionInputError('the JSON file\'s "steps" must be an object')
    arrays = {name: steps[name] for name in NAMES if name in steps}
    labels = document.get("labels") or document.get("tokens")
    return arrays, labels


def _arrays_from_npz(data):
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in NAMES if name in npz.files}
            labels = next((npz[k] for k in ("labels", "tokens") if k in npz.files), None)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise AttentionInputError(
            f"the file could not be read as .npz ({exc}); save it with numpy.savez"
        ) from None
    return arrays, None if labels is None else labels.tolist()


def read_file(filename, data):
    """({name: float64 matrix} for X, W_Q, W_K, W_V, labels or None) from an uploaded file.

    ``filename`` decides the format (.npz or .json). Raises AttentionInputError for a file too
    large, of another format, unreadable, missing one of the four, or holding anything but a
    finite matrix of numbers within the page's limits.
    """
    if len(data) > MAX_OWN_FILE_BYTES:
        raise AttentionInputError(
            f"the file has {len(data):,} bytes (at most {MAX_OWN_FILE_BYTES:,}): this page "
            f"is for matrices of up to {MAX_OWN_N} x {MAX_OWN_DIM}"
        )
    suffix = filename.lower().rsplit(".", 1)[-1] if "." in filename else ""
    if suffix == "npz":
        arrays, labels = _arrays_from_npz(data)
    elif suffix == "json":
        arrays, labels = _arrays_from_json(data)
    else:
        raise AttentionInputError(
            f"{filename!r} is neither .npz nor .json: upload attnviz's 'every step' download "
            "or a numpy.savez file with arrays X, W_Q, W_K, W_V"
        )
    missing = [name for name in NAMES if name not in arrays]
    if missing:
        raise AttentionInputError(
            f"the file has no {', '.join(missing)}: it needs arrays named X, W_Q, W_K and W_V"
        )
    matrices = {}
    for name in NAMES:
        try:
            M = np.asarray(arrays[name], dtype=np.float64)
        except (TypeError, ValueError):
            raise AttentionInputError(
                f"the file's {name} is not a matrix of numbers (every row needs the same count)"
            ) from None
        if M.ndim != 2 or M.size == 0:
            raise AttentionInputError(
                f"the file's {name} must be a non-empty 2-D matrix (got shape {M.shape})"
            )
        if not np.isfinite(M).all():
            raise AttentionInputError(f"the file's {name} holds NaN or infinity")
        matrices[name] = check_size(name, M)
    if labels is not None and not (
        isinstance(labels, list) and all(isinstance(t, str) for t in labels)
    ):
        labels = None  # not a list of texts: the rows are numbered instead
    return matrices, labels
