"""Downloads: one matrix as CSV with token labels, every step as JSON or NPZ with its settings."""

import io
import json
from dataclasses import asdict

import numpy as np
import pandas as pd

import attnviz

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


def all_steps_json(example):
    """JSON text: the settings, the tokens and labels, and every step as nested lists."""
    document = {
        "attnviz_version": attnviz.__version__,
        "settings": asdict(example.settings),
        "query": example.settings.to_query(),
        "tokens": example.tokens,
        "labels": example.labels,
        "steps": {name: np.asarray(M).tolist() for name, M in _steps(example).items()},
    }
    return json.dumps(document, ensure_ascii=False, allow_nan=False)


def all_steps_npz(example):
    """NPZ bytes: every step as an array, plus tokens, labels and the settings as JSON."""
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        tokens=np.array(example.tokens),
        labels=np.array(example.labels),
        settings_json=np.array(json.dumps(asdict(example.settings))),
        **_steps(example),
    )
    return buffer.getvalue()
