"""md_escape: a token in any Markdown-rendering element shows as typed (the browser's view of the
same tokens is tests/browser/test_injection.py)."""

import re
import string

import pytest

from attnviz.inputs import visible
from attnviz.ui.text import WORD_JOINER, md_escape
from tests.helpers import run

ATTACKS = [
    "**boldtok**",
    "[linktok](http://attacker.invalid/phish)",
    "![imgtok](http://attacker.invalid/pixel.png)",
    "$x^{7}$",
    ":red[redtok]",
    "<b>x</b>",
    "<img src=x onerror=alert(1)>",
    "http://attacker.invalid/bare",
    "HTTPS://attacker.invalid",
    "www.attacker.invalid",
    "WWW.attacker.invalid",
    "me@attacker.invalid",
    "mailto:me@attacker.invalid",
    ":smile: :material/home:",
    "# heading",
    "| a | b |",
    "`code`",
    "~~gone~~",
    "_emtok_",
    "a\u202eb\u200bc",  # bidi override, zero-width space
]
# What Streamlit's Markdown (remark-gfm's literal autolinks, remark-emoji) finds in the text
# after it has read the backslash escapes, so an escape cannot protect it.
LIVE_AFTER_UNESCAPING = [
    re.compile(r"https?://", re.IGNORECASE),
    re.compile(r"www\.", re.IGNORECASE),
    re.compile(r"[-.\w+]+@[-\w]+"),
    re.compile(r":[\w+/-]+:"),
]


def unescape(md):
    """What the Markdown shows for ``md``: each backslash escape read as its character."""
    return re.sub(r"\\(.)", r"\1", md)


@pytest.mark.parametrize("text", ATTACKS)
def test_md_escape_leaves_no_markup(text):
    md = md_escape(text)
    # every ASCII punctuation mark is escaped: no emphasis, link, image, math, HTML, directive
    bare = re.sub(r"\\.", "", md)
    assert not set(bare) & set(string.punctuation), md
    shown = unescape(md)
    for pattern in LIVE_AFTER_UNESCAPING:
        assert not pattern.search(shown), (pattern.pattern, shown)
    # and the reader sees exactly what was typed (invisible characters written out)
    assert shown.replace(WORD_JOINER, "") == visible(text)


def test_the_output_inspector_table_shows_tokens_escaped():
    tokens = ["**boldtok**", "[linktok](http://attacker.invalid/x)", "$x$"]
    at = run("app_pages/Step_by_step.py", {"tokens": " ".join(tokens)})
    at.selectbox(key="attnviz_out_i").set_value(1).run()  # a cell picked: the table shows
    (table,) = [t.value for t in at.table if "key token j" in t.value.columns]
    assert list(table["key token j"]) == [md_escape(token) for token in tokens]
