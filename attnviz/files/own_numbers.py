"""Your own X, W_Q, W_K, W_V: matrices read from text, a URL or a file, with clear errors.

For checking a worked exercise: a student types (or pastes, or uploads) the four matrices and
every step of attention is computed from them. Text holds one row per line (or rows separated
by ``;``, as in a URL), numbers separated by spaces and/or commas; or each row in brackets,
whatever its line breaks, so numpy's printouts (wide rows wrap) and Python's lists paste as
they are::

    1 0 1 0          [[1, 0, 1, 0],
    0 2 0 2           [0, 2, 0, 2],
    1 1 1 1           [1, 1, 1, 1]]

Files: an ``.npz`` holding arrays named X, W_Q, W_K, W_V, or a ``.json`` with them under
"steps" (or at the top level) as nested lists: what the step-by-step page's "every step"
downloads hold, so a download comes back as it was. Its "tokens" come along.
Sizes are capped by ``limits.MAX_OWN_N`` and ``limits.MAX_OWN_DIM``; every problem raises
``AttentionInputError`` with the matrix, the row and the entry it is about.
"""

import contextlib
import io
import json
import math
import re
import zipfile
import zlib

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.limits import MAX_OWN_DIM, MAX_OWN_FILE_BYTES, MAX_OWN_N, MAX_OWN_TEXT_CHARS

NAMES = ("X", "W_Q", "W_K", "W_V")
_ROWS = re.compile(r"[\r\n;]")  # rows written without brackets: lines, or ";" in a link
_BRACKETED_ROW = re.compile(r"\[([^\[\]]*)\]")  # [1, 2, 3]: a row, whatever its line breaks
_NUMPY_REPR = re.compile(r"array\(|,?\s*dtype=\w+|\)")  # array([[1, 2]], dtype=float32)
_ENTRIES = re.compile(r"\s*,\s*|\s+")  # one comma (spaces around it allowed), or spaces
_QUOTED = 40  # characters of a bad entry quoted in a message
# Text copied from typeset pages (PDFs, the web): minus signs and dashes as "-", no BOM
_TYPESET = str.maketrans({"\u2212": "-", "\u2013": "-", "\ufeff": None})

# A small integer exercise (3 tokens, d_model = 4, d_k = d_v = 3) that can be worked by hand:
# the example of R. Karim, "Illustrated: Self-Attention" (Towards Data Science, 2019), which
# does not divide by sqrt(d_k) (turn scaling off to get the article's numbers).
EXERCISE_SOURCE = (
    "R. Karim's example in “Illustrated: Self-Attention” (Towards Data Science, 2019); the "
    "article does not divide by √d_k, so turn scaling off in the sidebar to get its numbers"
)
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
    text = text.translate(_TYPESET)
    lines = [line.strip().strip(",").strip() for line in _row_texts(name, text)]
    rows = [_ENTRIES.split(line) for line in lines if line]
    if not rows:
        raise AttentionInputError(
            f"{name} is empty: type one row per line, numbers separated by spaces or commas"
        )
    matrix = []
    for i, entries in enumerate(rows, start=1):
        row = []
        for j, entry in enumerate(entries, start=1):
            if not entry:
                raise AttentionInputError(
                    f"{name}, row {i}, entry {j} is empty (two commas with nothing between): "
                    "write a number there, or remove a comma"
                )
            try:
                value = float(entry)
            except ValueError:
                raise AttentionInputError(
                    f"{name}, row {i}, entry {j}: {_quote(entry)} is not a number (write "
                    "numbers like 2, -0.5 or 1e-3, separated by spaces or commas)"
                ) from None
            if not np.isfinite(value):
                raise AttentionInputError(
                    f"{name}, row {i}, entry {j}: {_quote(entry)} is not a finite number: "
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


def _row_texts(name, text):
    """The text of each row: lines (or ";"-separated parts), or, when the text has brackets,
    each innermost [...] (numpy's printout wraps a wide row over several lines)."""
    if "[" not in text and "]" not in text:
        return _ROWS.split(text)
    text = _NUMPY_REPR.sub(" ", text)
    outside = " ".join(re.sub(r"[,;\[\]]", " ", _BRACKETED_ROW.sub(" ", text)).split())
    if outside:
        raise AttentionInputError(
            f"{name}: {_quote(outside)} stands outside the brackets of the rows: write each row "
            "as [numbers], or leave out the brackets and write one row per line"
        )
    # [1 2; 3 4] (MATLAB's way) holds two rows
    return [part for row in _BRACKETED_ROW.findall(text) for part in row.split(";")]


def _one_word(token):
    """A token as the labels box holds it: text without spaces (the box splits on them)."""
    return bool(token) and not any(ch.isspace() for ch in token)


def _quote(entry):
    """``entry`` quoted, cut to _QUOTED characters."""
    return repr(entry if len(entry) <= _QUOTED else entry[: _QUOTED - 1] + "…")


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


def _arrays_from_json(data):
    try:
        document = json.loads(data.decode("utf-8-sig"))  # with or without a BOM
    except UnicodeDecodeError as exc:
        raise AttentionInputError(f"the file is not UTF-8 text ({exc.reason})") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, a 5,000-digit number, [[[...
        raise AttentionInputError(f"the file is not JSON attnviz can read ({exc})") from None
    if not isinstance(document, dict):
        raise AttentionInputError("the JSON file must hold an object with X, W_Q, W_K, W_V")
    steps = document.get("steps", document)
    if not isinstance(steps, dict):
        raise AttentionInputError('the JSON file\'s "steps" must be an object')
    arrays = {name: steps[name] for name in NAMES if name in steps}
    return arrays, document.get("tokens") or steps.get("tokens")


def _npy_member(archive, name):
    """The array ``name`` of an open .npz (a zip of .npy files), read only once its header shows
    a plain array of numbers no larger than the member itself: a few bytes of zip can unpack
    to gigabytes, and a header can promise more numbers than follow."""
    info = archive.getinfo(f"{name}.npy")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise AttentionInputError(
            f"the file's {name} is compressed in a way numpy.savez never writes: save it with "
            "numpy.savez or numpy.savez_compressed"
        )
    too_large = AttentionInputError(
        f"the file's {name} unpacks to more than {MAX_OWN_FILE_BYTES:,} bytes: this page is "
        f"for matrices of up to {MAX_OWN_N} x {MAX_OWN_DIM}"
    )
    if info.file_size > MAX_OWN_FILE_BYTES:  # the size the zip claims, which may be false:
        raise too_large
    with archive.open(info) as member:  # so read no more than the limit, whatever it claims
        raw = member.read(MAX_OWN_FILE_BYTES + 1)
    if len(raw) > MAX_OWN_FILE_BYTES:
        raise too_large
    data = io.BytesIO(raw)
    version = np.lib.format.read_magic(data)
    if version not in ((1, 0), (2, 0)):
        raise AttentionInputError(f"the file's {name} is a .npy of version {version}")
    read_header = (
        np.lib.format.read_array_header_1_0
        if version == (1, 0)
        else np.lib.format.read_array_header_2_0
    )
    shape, _, dtype = read_header(data)
    if dtype.hasobject or math.prod(shape) * dtype.itemsize > info.file_size:
        raise AttentionInputError(
            f"the file's {name} is not a plain array (Python objects, or fewer numbers than "
            "its header says)"
        )
    data.seek(0)
    return np.load(data, allow_pickle=False)


def _arrays_from_npz(data):
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = {info.filename for info in archive.infolist()}
            arrays = {k: _npy_member(archive, k) for k in NAMES if f"{k}.npy" in members}
            tokens = None
            if "tokens.npy" in members:
                with contextlib.suppress(AttentionInputError):  # optional: rows numbered then
                    tokens = _npy_member(archive, "tokens").tolist()
    except AttentionInputError:
        raise
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as exc:
        raise AttentionInputError(
            f"the file could not be read as .npz ({exc}); save it with numpy.savez"
        ) from None
    except (RuntimeError, NotImplementedError) as exc:  # encrypted, or an unknown compression
        raise AttentionInputError(
            f"the .npz file uses a zip feature numpy does not write ({exc}): save it with "
            "numpy.savez"
        ) from None
    return arrays, tokens


def _as_numbers(name, value):
    """``value`` (a nested list from JSON, or an array from .npz) as a float64 matrix, or raise."""
    try:
        M = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        M = None
    if M is None or M.dtype.kind not in "iuf":  # strings, objects (ragged, huge ints), complex
        raise AttentionInputError(
            f"the file's {name} is not a matrix of numbers (real numbers, the same count in "
            "every row)"
        )
    if M.ndim != 2 or M.size == 0:
        raise AttentionInputError(
            f"the file's {name} must be a non-empty 2-D matrix (got shape {M.shape})"
        )
    M = M.astype(np.float64)
    if not np.isfinite(M).all():
        raise AttentionInputError(f"the file's {name} holds NaN or infinity")
    return check_size(name, M)


def read_file(filename, data):
    """({name: float64 matrix} for X, W_Q, W_K, W_V, tokens or None) from an uploaded file.

    ``filename`` decides the format (.npz or .json). The tokens are the file's "tokens" (as the
    step page's downloads hold them), None unless they are all words without spaces. Raises
    AttentionInputError for a file too large, of another format, unreadable, missing one of
    the four, or holding anything but a finite matrix of real numbers within the page's limits.
    """
    if len(data) > MAX_OWN_FILE_BYTES:
        raise AttentionInputError(
            f"the file has {len(data):,} bytes (at most {MAX_OWN_FILE_BYTES:,}): this page "
            f"is for matrices of up to {MAX_OWN_N} x {MAX_OWN_DIM}"
        )
    suffix = filename.lower().rsplit(".", 1)[-1] if "." in filename else ""
    if suffix == "npz":
        arrays, tokens = _arrays_from_npz(data)
    elif suffix == "json":
        arrays, tokens = _arrays_from_json(data)
    else:
        raise AttentionInputError(
            "the file is neither .npz nor .json: upload attnviz's 'every step' download "
            "or a numpy.savez file with arrays X, W_Q, W_K, W_V"
        )
    missing = [name for name in NAMES if name not in arrays]
    if missing:
        raise AttentionInputError(
            f"the file has no {', '.join(missing)}: it needs arrays named X, W_Q, W_K and W_V"
        )
    matrices = {name: _as_numbers(name, arrays[name]) for name in NAMES}
    if not (isinstance(tokens, list) and all(isinstance(t, str) and _one_word(t) for t in tokens)):
        tokens = None  # not a list of words: the rows are numbered instead
    return matrices, tokens
