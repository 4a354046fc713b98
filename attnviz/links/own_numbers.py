"""Your own numbers' link: the four matrices ``X``, ``W_Q``, ``W_K``, ``W_V`` (rows separated
by ``;``, entries by ``,``) and the token ``labels``. No Streamlit.

The link's matrices go into the text boxes as they are (rows on lines), so a link and a box
follow one rule (``1,,0`` is an empty entry in both) and ``attnviz.files.own_numbers`` reads
both.
"""

from attnviz.files.own_numbers import NAMES, format_matrix
from attnviz.inputs import tokenize
from attnviz.limits import MAX_TEXT_CHARS
from attnviz.links.readers import raw_value, read_text

FIELDS = (*NAMES, "labels")  # the text boxes, and the URL parameters of this page


def texts_from_query(query):
    """({field: text-box content} or None when the link has none of the matrices, warnings):
    a repeated name takes the last value, labels longer than MAX_TEXT_CHARS are cut; each
    says so. A missing matrix is an empty box (the page says it is missing)."""
    if not any(name in query for name in NAMES):
        return None, []
    texts, warnings = {}, []
    for name in NAMES:
        raw, said = raw_value(query, name)
        warnings += said
        texts[name] = (raw or "").replace(";", "\n")  # rows on lines, as typed in a box
    texts["labels"], said = read_text(query, "labels", max_chars=MAX_TEXT_CHARS)
    return texts, warnings + said


def matrices_query(found, labels):
    """{name: text} of the matrices ``found`` ({name: array}) and the ``labels`` typed (their
    tokens, when there are any): the page's link."""
    query = {name: format_matrix(found[name], row_sep=";", entry_sep=",") for name in NAMES}
    if labels.strip():
        query["labels"] = " ".join(tokenize(labels))
    return query
