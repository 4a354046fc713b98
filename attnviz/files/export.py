"""Downloads: every step of an Example as CSV files (a zip), NPZ or JSON, with its settings.

Each takes the Example, so a page can produce it on click from the settings alone (through the
shared cache): a session keeps its settings, never the arrays of a download.
"""

import io
import json
import zipfile
from dataclasses import asdict

import numpy as np
import pandas as pd

from attnviz.limits import MAX_JSON_NUMBERS
from attnviz.version import __version__

STEPS = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled_scores", "attention", "output")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet may run a cell starting so


def spreadsheet_text(label):
    """``label`` safe in a CSV cell: text a spreadsheet would read as a formula (it starts with
    = + - @, a tab or a carriage return, OWASP's list) gets a leading apostrophe, so
    ``=HYPERLINK(...)`` shows as typed instead of running. Only labels pass here, never numbers.
    """
    label = str(label)
    return "'" + label if label.startswith(FORMULA_STARTS) else label


def matrix_csv(M, row_labels, col_labels):
    """CSV text of ``M`` (rows, cols) with a header of column labels and a column of row labels.

    The numbers are written in full (17 significant digits); labels are made spreadsheet-safe.
    """
    rows = [spreadsheet_text(label) for label in row_labels]
    cols = [spreadsheet_text(label) for label in col_labels]
    frame = pd.DataFrame(np.asarray(M), index=rows, columns=cols)
    frame.index.name = ""
    # RFC 4180 line ends: a label holding a carriage return is quoted too, so it stays one cell
    return frame.to_csv(float_format="%.17g", lineterminator="\r\n")


def _steps(example):
    result = example.result
    steps = {name: getattr(result, name) for name in STEPS}
    if result.mask is not None:
        steps["mask"] = result.mask
    return steps


def step_numbers(example):
    """How many numbers every step of ``example`` holds together (what the JSON would write)."""
    return sum(np.size(M) for M in _steps(example).values())


def all_steps_csv_zip(example):
    """ZIP bytes: one CSV per step (``attnviz-Q.csv`` ...), rows and columns labelled."""
    r, labels = example.result, example.labels
    dims = {"X": r.d_model, "W_Q": r.d_k, "W_K": r.d_k, "W_V": r.d_v, "Q": r.d_k, "K": r.d_k}
    dims |= {"V": r.d_v, "output": r.d_v}
    model_rows = [str(d) for d in range(r.d_model)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, M in _steps(example).items():
            rows = model_rows if name.startswith("W_") else labels
            cols = [str(c) for c in range(dims[name])] if name in dims else labels
            archive.writestr(f"attnviz-{name}.csv", matrix_csv(M, rows, cols))
    return buffer.getvalue()


def all_steps_json(example, query):
    """JSON text: the settings, their link form ``query`` ({name: str}, from
    ``links.shared.settings_query``), the tokens and labels, and every step as nested lists.

    Raises ValueError past MAX_JSON_NUMBERS numbers: JSON that large takes seconds of the
    server's time to write (58 MB at the limits); the NPZ holds every number instead.
    """
    if step_numbers(example) > MAX_JSON_NUMBERS:
        raise ValueError(
            f"{step_numbers(example)} numbers are too many for JSON (at most "
            f"{MAX_JSON_NUMBERS}): download the .npz"
        )
    document = {
        "attnviz_version": __version__,
        "settings": asdict(example.settings),
        "query": query,
        "tokens": example.tokens,
        "labels": example.labels,
        "steps": {name: np.asarray(M).tolist() for name, M in _steps(example).items()},
    }
    return json.dumps(document, ensure_ascii=False, allow_nan=False)


def all_steps_npz(example):
    """NPZ bytes: every step as an array, plus tokens, labels and the settings as JSON.

    Not compressed: random floats barely compress, and compressing 23 MB at the limits took
    2.5 s of the server's time against 0.09 s to write them as they are.
    """
    buffer = io.BytesIO()
    np.savez(
        buffer,
        tokens=np.array(example.tokens),
        labels=np.array(example.labels),
        settings_json=np.array(json.dumps(asdict(example.settings))),
        **_steps(example),
    )
    return buffer.getvalue()
