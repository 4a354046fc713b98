"""A page's link: reading its parameters and writing them back. No Streamlit.

``readers`` holds the shared readers (``read_int``, ``read_float``, ``read_choice``,
``read_text``): each takes the query mapping (name -> text, or a list of texts for a repeated
parameter) and returns ``(value, warnings)``: the value to use (the default when the text is
not understood, the nearest allowed value when it is out of range) and the sentences that say
so. A page with parameters of its own gets one module here that reads them through those
readers, with its ranges from ``attnviz.limits``.
"""

from attnviz.links.readers import (
    last_value,
    quoted,
    raw_value,
    read_choice,
    read_float,
    read_int,
    read_text,
)

__all__ = [
    "last_value",
    "quoted",
    "raw_value",
    "read_choice",
    "read_float",
    "read_int",
    "read_text",
]
