"""The Step by step page: its one-line summary of the settings, and the every-step downloads.

The step matrices and the inspectors it draws are shared with Your own numbers:
``attnviz.ui.steps`` and ``attnviz.ui.inspectors``.
"""

import functools

import streamlit as st

from attnviz.export import all_steps_csv_zip, all_steps_json, all_steps_npz, step_numbers
from attnviz.limits import MAX_JSON_NUMBERS
from attnviz.ui.frame import cached_example


def settings_caption(result, settings):
    """The sizes and settings the page was computed with, in one sentence."""
    r, s = result, settings
    return (
        f"{r.n} tokens, d_model = {r.d_model}, d_k = {r.d_k}, d_v = {r.d_v}, seed {s.seed}, "
        f"mask {s.mask}, scaling {'on' if s.scale else 'off'}, T = {s.temperature:g}. Change "
        "any of them in the sidebar and every number below is recomputed. Hover a cell for its "
        "exact value."
    )


def _export(settings, kind):
    """The bytes of one download, made on click from the settings (through the shared cache):
    the button keeps the small Settings, never the example's arrays."""
    example = cached_example(settings)
    if kind == "csv":
        return all_steps_csv_zip(example)
    if kind == "npz":
        return all_steps_npz(example)
    return all_steps_json(example)


def downloads(example):
    """One export section: every step as CSV files, as NumPy .npz and, up to
    MAX_JSON_NUMBERS numbers, as JSON, each with the settings that made it."""
    st.header("Download the numbers")
    settings = example.settings
    numbers = step_numbers(example)
    buttons = [
        ("csv", "⬇ Every matrix as CSV (zip)", "attnviz-steps.zip", "application/zip"),
        ("npz", "⬇ Every step (NumPy .npz)", "attnviz-steps.npz", "application/octet-stream"),
    ]
    if numbers <= MAX_JSON_NUMBERS:
        buttons.append(
            (
                "json",
                "⬇ Every step (JSON, with the settings)",
                "attnviz-steps.json",
                "application/json",
            )
        )
    for column, (kind, label, file_name, mime) in zip(st.columns(3), buttons, strict=False):
        column.download_button(
            label,
            data=functools.partial(_export, settings, kind),
            file_name=file_name,
            mime=mime,
            key=f"download_{kind}",
            on_click="ignore",
        )
    st.caption(
        "The .npz reads back on Your own numbers; Plotly's toolbar saves any chart as a PNG."
        + (
            ""
            if numbers <= MAX_JSON_NUMBERS
            else f" JSON is offered up to {MAX_JSON_NUMBERS:,} numbers; these steps hold "
            f"{numbers:,}, so the .npz (every number, exactly) is the file to take."
        )
    )
