"""Matrices typed, pasted, linked or uploaded on Your own numbers (attnviz.files.own_numbers)."""

import io
import json
import re
import struct
import tomllib
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attnviz
from attnviz.checks import AttentionInputError, check_projection_shapes
from attnviz.files import own_numbers
from attnviz.files.export import all_steps_json, all_steps_npz
from attnviz.files.own_numbers import format_matrix, parse_matrix, read_file
from attnviz.limits import MAX_OWN_DIM, MAX_OWN_FILE_BYTES, MAX_OWN_N, MAX_OWN_TEXT_CHARS
from attnviz.links.shared import settings_query
from tests.helpers import ROOT

ROWS_1_2 = np.array([[1.0, -0.5, 3e-3], [2.0, 0.0, 4.0]])


@pytest.mark.parametrize(
    "text",
    [
        "1 -0.5 3e-3\n2 0 4",
        "1, -0.5, 0.003\n2, 0, 4\n",
        "\n  1,-0.5,  0.003 \n\n 2 0 4  \n",
        "[[1, -0.5, 0.003],\n [2, 0, 4]]",  # a Python list
        "[[ 1.    -0.5    0.003]\n [ 2.     0.     4.   ]]",  # numpy's printout
        "1,-0.5,0.003;2,0,4",  # the URL form
        "1\t-0.5\t0.003\r\n2\t0\t4",  # pasted from a spreadsheet on Windows
        "1 -0.5 0.003\r2 0 4",  # old Mac line breaks
        "[[1, -0.5, 0.003], [2, 0, 4]]",  # a Python list printed on one line
        "1 \u22120.5 0.003\n2 0 4",  # the minus sign of a PDF
        "\u00a01 -0.5 0.003\u00a0\n2\u20030 4\v",  # other spaces, from web pages and PDFs
        "[1 -0.5 0.003; 2 0 4]",  # MATLAB's way
    ],
)
def test_every_usual_way_of_writing_a_matrix_reads_the_same(text):
    np.testing.assert_array_equal(parse_matrix("X", text), ROWS_1_2)


@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, max_side=8),
        elements=st.floats(allow_nan=False, allow_infinity=False, width=64),
    )
)
def test_written_matrices_read_back_exactly(M):
    np.testing.assert_array_equal(parse_matrix("X", format_matrix(M)), M)
    url = format_matrix(M, row_sep=";", entry_sep=",")
    assert " " not in url and "\n" not in url
    np.testing.assert_array_equal(parse_matrix("X", url), M)


def test_numpy_printouts_of_wide_matrices_paste_whole():
    M = np.random.default_rng(0).standard_normal((5, 40)).round(3)
    assert "\n  " in str(M)  # numpy wraps each row over several lines
    for text in (str(M), repr(M), repr(M.astype(np.float32)), str(M.tolist())):
        np.testing.assert_array_equal(parse_matrix("X", text), M)


def test_numbers_outside_the_brackets_are_an_error_not_dropped():
    with pytest.raises(AttentionInputError, match="'1 2' stands outside the brackets"):
        parse_matrix("X", "1 2 [3]")


def test_numbers_are_written_short():
    assert format_matrix(np.array([[1.0, 0.1], [-2.5, 1e-7]])) == "1 0.1\n-2.5 1e-07"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "W_Q is empty: type one row per line"),
        ("  \n [ ] \n", "W_Q is empty"),
        ("1 2\n3 x", "W_Q, row 2, entry 2: 'x' is not a number"),
        ("1 2\n3 nan", "W_Q, row 2, entry 2: 'nan' is not a finite number"),
        ("1e999 2", "W_Q, row 1, entry 1: '1e999' is not a finite number"),
        ("1 2 3\n4 5", "W_Q: row 2 has 2 numbers but row 1 has 3 numbers: every row"),
        ("1\n2 3", "W_Q: row 2 has 2 numbers but row 1 has 1 number:"),
        ("1,,2\n3,,4", "W_Q, row 1, entry 2 is empty (two commas with nothing between)"),
        ("1 " + "9" * 100 + "z", "W_Q, row 1, entry 2: '" + "9" * 39 + "…' is not a number"),
    ],
)
def test_bad_text_says_which_matrix_row_and_entry(text, message):
    with pytest.raises(AttentionInputError, match="^" + re.escape(message)):
        parse_matrix("W_Q", text)


def test_limits_are_named_in_the_message():
    too_many_rows = "\n".join(["1"] * (MAX_OWN_N + 1))
    with pytest.raises(AttentionInputError, match=f"at most {MAX_OWN_N} tokens"):
        parse_matrix("X", too_many_rows)
    parse_matrix("X", "\n".join(["1"] * MAX_OWN_N))  # the limit itself is fine
    too_wide = " ".join(["1"] * (MAX_OWN_DIM + 1))
    with pytest.raises(AttentionInputError, match=f"{MAX_OWN_DIM} columns"):
        parse_matrix("W_V", too_wide)
    with pytest.raises(AttentionInputError, match=f"at most {MAX_OWN_TEXT_CHARS:,}"):
        parse_matrix("X", "1 " * MAX_OWN_TEXT_CHARS)


def test_shapes_must_fit_together():
    X, W = np.ones((3, 4)), np.ones((4, 2))
    check_projection_shapes(X, W, W, np.ones((4, 5)))  # d_v may differ from d_k
    with pytest.raises(AttentionInputError, match="W_K has 3 rows but X has d_model = 4"):
        check_projection_shapes(X, W, np.ones((3, 2)), W)
    with pytest.raises(AttentionInputError, match="W_Q has 2 columns and W_K 3"):
        check_projection_shapes(X, W, np.ones((4, 3)), W)


def test_the_exercise_works_out_by_hand():
    X, W_Q, W_K, W_V = (np.array(own_numbers.EXERCISE[name], float) for name in own_numbers.NAMES)
    r = attnviz.self_attention(X, W_Q, W_K, W_V)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    assert Q.tolist() == [[1, 0, 2], [2, 2, 2], [2, 1, 3]]  # by hand: row 1 = x1 W_Q
    S = Q @ K.T
    assert S.tolist() == [[2, 4, 4], [4, 16, 12], [4, 12, 10]]
    E = np.exp(S / np.sqrt(3))
    np.testing.assert_allclose(r.attention, E / E.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(r.output, r.attention @ V, rtol=1e-12)


def example():
    return attnviz.compute(attnviz.Settings(text="to be or not", d_model=5, d_k=3, d_v=2))


@pytest.mark.parametrize(
    ("filename", "data"),
    [
        ("steps.npz", lambda e: all_steps_npz(e)),
        ("steps.json", lambda e: all_steps_json(e, settings_query(e.settings)).encode()),
    ],
)
def test_the_step_pages_downloads_come_back_exactly(filename, data):
    e = example()
    matrices, labels = read_file(filename, data(e))
    for name in own_numbers.NAMES:
        np.testing.assert_array_equal(matrices[name], getattr(e.result, name))
    assert labels == e.labels


def test_a_plain_savez_and_a_plain_json_object_are_read():
    buffer = io.BytesIO()
    np.savez(buffer, X=np.eye(2), W_Q=np.ones((2, 1)), W_K=np.ones((2, 1)), W_V=np.eye(2))
    matrices, labels = read_file("mine.NPZ", buffer.getvalue())
    assert matrices["X"].tolist() == [[1, 0], [0, 1]] and labels is None
    doc = {"X": [[1, 2]], "W_Q": [[1], [0]], "W_K": [[0], [1]], "W_V": [[1], [1]]}
    matrices, labels = read_file("mine.json", json.dumps(doc).encode())
    assert matrices["W_V"].tolist() == [[1], [1]] and labels is None


def _npz(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


GOOD = {"X": np.eye(2), "W_Q": np.ones((2, 1)), "W_K": np.ones((2, 1)), "W_V": np.eye(2)}


@pytest.mark.parametrize(
    ("filename", "data", "message"),
    [
        ("m.csv", b"1,2", "the file is neither .npz nor .json"),
        ("m.npz", b"not a zip file", "could not be read as .npz"),
        ("m.json", b"\xff\xfe", "not UTF-8 text"),
        ("m.json", b'{"X": [[1]]', "not JSON attnviz can read"),
        ("m.json", b"[1, 2]", "must hold an object"),
        ("m.json", b'{"steps": 3}', '"steps" must be an object'),
        ("m.npz", _npz(X=np.eye(2), W_Q=np.ones((2, 1))), "the file has no W_K, W_V"),
        ("m.npz", _npz(**GOOD | {"X": np.ones(3)}), "X must be a non-empty 2-D matrix"),
        ("m.npz", _npz(**GOOD | {"W_V": np.array([[1, np.nan]])}), "W_V holds NaN"),
        ("m.npz", _npz(**GOOD | {"X": np.array([["a"]])}), "X is not a matrix of numbers"),
        ("m.npz", _npz(**GOOD | {"X": np.array([[1 + 5j]])}), "X is not a matrix of numbers"),
        ("m.npz", _npz(**GOOD | {"X": np.zeros((1, 2), "datetime64[D]")}), "not a matrix"),
        ("m.npz", _npz(**GOOD | {"X": np.array([[None]], dtype=object)}), "not a plain array"),
        ("m.json", b'{"X": [[1], [2, 3]], "W_Q": [], "W_K": [], "W_V": []}', "not a matrix"),
        ("m.npz", _npz(**GOOD | {"X": np.ones((MAX_OWN_N + 1, 2))}), f"at most {MAX_OWN_N}"),
        ("m.npz", b"0" * (MAX_OWN_FILE_BYTES + 1), f"at most {MAX_OWN_FILE_BYTES:,}"),
    ],
)
def test_bad_files_get_a_clear_message(filename, data, message):
    with pytest.raises(AttentionInputError, match=re.escape(message)):
        read_file(filename, data)


def test_tokens_that_are_not_words_are_dropped():
    bad = (
        np.array([1, 2]),
        np.array(["a", None], dtype=object),
        np.array([b"a"]),
        np.array(["New York", "b"]),  # the labels box would split it in two
    )
    for tokens in bad:
        matrices, got = read_file("m.npz", _npz(**GOOD, tokens=tokens))
        assert got is None and set(matrices) == set(own_numbers.NAMES)


def test_repeated_tokens_come_back_as_tokens_not_as_labels():
    e = attnviz.compute(attnviz.Settings(text="the cat the dog"))
    json_bytes = all_steps_json(e, settings_query(e.settings)).encode()
    for filename, data in (("s.npz", all_steps_npz(e)), ("s.json", json_bytes)):
        assert read_file(filename, data)[1] == ["the", "cat", "the", "dog"]


def _zip(compression=zipfile.ZIP_DEFLATED, **members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(f"{name}.npy", data)
    return buffer.getvalue()


def _npy(M):
    buffer = io.BytesIO()
    np.save(buffer, M)
    return buffer.getvalue()


def _header_only(shape):
    buffer = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + bytes(16)


def test_a_small_file_that_unpacks_to_a_huge_one_is_refused_before_it_is_unpacked():
    W = {name: _npy(GOOD[name]) for name in ("W_Q", "W_K", "W_V")}
    bomb = _zip(X=_npy(np.zeros((1, 10_000_000))), **W)  # 80 MB
    assert len(bomb) < 100_000
    tracemalloc.start()
    with pytest.raises(AttentionInputError, match="X unpacks to more than 4,194,304 bytes"):
        read_file("bomb.npz", bomb)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < MAX_OWN_FILE_BYTES
    with pytest.raises(AttentionInputError, match="fewer numbers than its header says"):
        read_file("liar.npz", _zip(X=_header_only((10**7, 10**7)), **W))


def test_a_zip_that_lies_about_a_members_size_is_read_no_further_than_the_limit():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("X.npy", "w", force_zip64=True) as member:
            member.write(_npy(np.zeros((1, 1)))[:128])
            for _ in range(64):
                member.write(bytes(1 << 20))  # 64 MB of zeros
        for name in ("W_Q", "W_K", "W_V"):
            archive.writestr(f"{name}.npy", _npy(GOOD[name]))
    data = bytearray(buffer.getvalue())
    entry = data.find(b"PK\x01\x02")  # X.npy's central directory entry, written first
    struct.pack_into("<I", data, entry + 24, 1000)  # claims 1000 bytes unpacked
    tracemalloc.start()
    with pytest.raises(AttentionInputError):
        read_file("liar.npz", bytes(data))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 3 * MAX_OWN_FILE_BYTES


def test_zip_features_numpy_never_writes_are_refused_clearly():
    data = _npz(**GOOD)
    directory = data.find(b"PK\x01\x02")  # the first central directory entry
    changed = bytearray(data)
    changed[directory + 8] |= 1  # the "encrypted" flag
    with pytest.raises(AttentionInputError, match="zip feature numpy does not write"):
        read_file("m.npz", bytes(changed))
    W = {name: _npy(GOOD[name]) for name in ("W_Q", "W_K", "W_V")}
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):  # no cap on what they unpack
        with pytest.raises(AttentionInputError, match=r"compressed in a way numpy\.savez never"):
            read_file("m.npz", _zip(method, X=_npy(np.eye(2)), **W))
    changed = bytearray(data)
    changed[directory + 10] = 99  # an unknown compression method
    with pytest.raises(AttentionInputError, match=r"compressed in a way numpy\.savez never"):
        read_file("m.npz", bytes(changed))


GOOD_JSON = {name: M.tolist() for name, M in GOOD.items()}


def _json_with_x(x_text):
    """The good matrices, with X written as ``x_text`` (json.dumps would not write it)."""
    weights = json.dumps({name: GOOD_JSON[name] for name in ("W_Q", "W_K", "W_V")})
    return '{"X": ' + x_text + ", " + weights[1:]


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        # 5,000 levels of [[[...: the json of Python 3.11 and 3.12 stops at the recursion limit;
        # 3.13's counts against a separate, higher C limit and reads them, then numpy refuses an
        # array of 5,000 dimensions. Either is a clear message.
        (
            _json_with_x("[" * 5000 + "]" * 5000),
            ["not JSON attnviz can read", "X is not a matrix of numbers"],
        ),
        # 1,000,000 levels (2 MB, within the upload limit): a recursion error on every Python
        (_json_with_x("[" * 10**6 + "]" * 10**6), ["not JSON attnviz can read"]),
        ('{"X": [[1' + "0" * 5000 + "]]}", ["not JSON attnviz can read"]),  # int digits limit
        (json.dumps(GOOD_JSON | {"X": [[10**400]]}), ["X is not a matrix of numbers"]),
        (json.dumps(GOOD_JSON | {"X": [["1"]]}), ["X is not a matrix of numbers"]),
    ],
)
def test_json_that_would_crash_a_reader_gets_a_message(text, messages):
    with pytest.raises(AttentionInputError, match="|".join(map(re.escape, messages))):
        read_file("m.json", text.encode())


def test_a_json_file_with_a_byte_order_mark_is_read():
    document = b"\xef\xbb\xbf" + json.dumps(GOOD_JSON).encode()
    assert read_file("m.json", document)[0]["X"].tolist() == [[1, 0], [0, 1]]


def test_streamlits_upload_limit_is_the_packages():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] << 20 == MAX_OWN_FILE_BYTES


def test_projection_cells_add_up_with_and_without_a_bias():
    from attnviz.lessons.cell_arithmetic import projection_cell

    E = own_numbers.EXERCISE
    X, W_Q, W_K, W_V = (np.array(E[name], float) for name in own_numbers.NAMES)
    r = attnviz.self_attention(X, W_Q, W_K, W_V)
    cell = projection_cell(r, "Q", 2, 2)  # x_3 . column 3 of W_Q = 1 + 0 + 1 + 1, by hand
    assert cell.terms.tolist() == [1, 0, 1, 1] and cell.value == 3 and cell.bias is None
    b_V = np.array([0.5, -1.0, 2.0])
    r = attnviz.self_attention(X, W_Q, W_K, W_V, b_V=b_V)
    cell = projection_cell(r, "V", 1, 2)
    assert cell.bias == 2.0 and cell.value == cell.terms.sum() + 2.0 == r.V[1, 2]
