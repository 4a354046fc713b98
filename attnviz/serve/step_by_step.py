"""Step by step's numbers, from the shared cache: the result with an edit applied and its
Spread (kept once per (settings, edit) for every visitor), and the bytes of each download. No
Streamlit: the page's fragments and callbacks keep ``Lookup(page_steps, (settings, edit))``.
"""

from attnviz.files.export import all_steps_csv_zip, all_steps_json, all_steps_npz
from attnviz.lessons.spread import spread_of_edit
from attnviz.links.shared import settings_query
from attnviz.serve.example import cached_example
from attnviz.serve.store import kept


@kept(entries=16)
def _spread(settings, edit):
    example = cached_example(settings)
    return spread_of_edit(example.result, edit, example.labels)


def cached_spread(settings):
    """How the page makes an edit's Spread: once per (settings, edit) for every session."""
    return lambda result, edit, labels: _spread(settings, edit)


def unedited(settings):
    """The AttentionResult of ``settings`` without an edit, from the shared cache."""
    return cached_example(settings).result


def page_steps(settings, edit):
    """(result, labels, found) the page's steps draw, from the shared cache: ``settings``'
    result with ``edit`` (an Edit, or None) applied, its labels, and the edit's Spread or None.

    The page's fragments and callbacks keep ``Lookup(page_steps, (settings, edit))``."""
    example = cached_example(settings)
    found = None if edit is None else _spread(settings, edit)
    return (example.result if found is None else found.after), example.labels, found


def export_bytes(settings, kind):
    """The bytes of one download, made on click from the settings (through the shared cache):
    the button keeps the small Settings, never the example's arrays."""
    example = cached_example(settings)
    if kind == "csv":
        return all_steps_csv_zip(example)
    if kind == "npz":
        return all_steps_npz(example)
    return all_steps_json(example, settings_query(settings))
