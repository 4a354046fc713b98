"""The lecturer's report (attnviz.classroom.report) of a room run through the store: the CSV read
back gives the taps made (counts per round, moves, confidence, the twin, "I'm lost" per
minute), no student id is in it or in the PDF, the PDF compiles to one page, typed text stays
text, and the rows are bounded."""

import csv
import io

import numpy as np

from attnviz import limits
from attnviz.classroom import MemoryStore
from attnviz.classroom.report import report_csv, report_pdf, report_rows, report_source
from attnviz.exercises.notation import typst_text
from attnviz.lessons.predict.make import KIND_NAMES
from attnviz.links.shared import settings_query
from attnviz.serve.classroom import example_settings
from attnviz.settings import Settings

SIDS = [f"student{k:09d}" for k in range(6)]  # ids as long as a page makes them
FIRST = [0, 1, 1, 2, 3, 0]
SECOND = [1, 1, 1, 2, 1, 0]
TWIN = [2, 2, 1, 2, 0, 2]
RIGHT, TWIN_RIGHT = 1, 2


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


def a_lesson():
    """(store, code, key) after a two-round question with a twin and a one-vote question."""
    clock = Clock()
    store = MemoryStore(clock=clock)
    store.read_example = example_settings  # as the server's (serve.classroom)
    room, key = store.open(settings_query(Settings()), "lecturer")
    code = room.code
    store.push_question(code, key, 0, "row_sum", 4, rounds=2, right=RIGHT)
    for sid in SIDS:
        store.join(code, sid)
    for sid, k in zip(SIDS, FIRST, strict=True):
        store.answer(code, sid, k)
    store.confide(code, SIDS[0], 2)  # sure and wrong in round 1
    store.end_round(code, key)
    store.discuss(code, key, 60)
    store.second_round(code, key)
    for sid, k in zip(SIDS, SECOND, strict=True):
        store.answer(code, sid, k)
    store.confide(code, SIDS[5], 2)  # sure and wrong in round 2
    store.confide(code, SIDS[1], 1)  # fairly sure and right
    store.reveal(code, key)
    store.twin(code, key, 4, 3, TWIN_RIGHT)
    for sid, k in zip(SIDS, TWIN, strict=True):
        store.answer(code, sid, k)
    store.reveal(code, key)
    store.im_lost(code, SIDS[2])
    clock.now += 150  # two minutes and a half later
    store.im_lost(code, SIDS[2])
    store.im_lost(code, SIDS[3])
    store.push_question(code, key, 0, "shape", 5, right=0)
    store.answer(code, SIDS[0], 0)
    return store, code, key


def test_the_csv_read_back_gives_the_taps():
    store, code, key = a_lesson()
    rows = list(csv.DictReader(io.StringIO(report_csv(*store.report(code, key)))))
    rounds = [r for r in rows if r["row"] == "round"]
    assert [(r["question"], r["kind"], r["round"]) for r in rounds] == [
        ("1", "row_sum", "1"),
        ("1", "row_sum", "2"),
        ("1", "row_sum", "twin"),
        ("2", "shape", "1"),
    ]
    assert [r["asked"] for r in rounds] == [KIND_NAMES["row_sum"]] * 3 + [KIND_NAMES["shape"]]
    for row, taps, n in zip(rounds, (FIRST, SECOND, TWIN), (4, 4, 3), strict=False):
        counts = [int(row[f"count_{c}"]) for c in "ABCD"[:n]]
        assert counts == np.bincount(taps, minlength=n).tolist()
        assert int(row["answered"]) == len(taps)
    one, two, twin = rounds[:3]
    assert (one["right_option"], twin["right_option"], twin["seed"]) == ("B", "C", "4")
    assert float(two["right_share"]) == round(SECOND.count(RIGHT) / len(SECOND), 4)
    assert two["moves"] == "A>A:1 A>B:1 B>B:2 C>C:1 D>B:1"
    assert (two["changed"], two["moved_to_right"]) == ("2", "2")
    assert (one["sure_wrong"], two["sure_wrong"], two["fairly_sure_right"]) == ("1", "1", "1")
    lost = [(r["minute"], r["im_lost"]) for r in rows if r["row"] == "im_lost"]
    assert lost == [("0", "1"), ("2", "2")]


def test_no_student_id_in_the_report():
    store, code, key = a_lesson()
    records, lost = store.report(code, key)
    text = report_csv(records, lost) + report_source(records, lost, "Room report")
    assert not any(sid in text for sid in SIDS)


def test_the_pdf_is_one_page_and_typed_text_stays_text():
    store, code, key = a_lesson()
    records, lost = store.report(code, key)
    records[0]["kind"] = '#set page(fill: red) ] "'  # as if a kind could be typed
    records[1]["text"] = '#set page(fill: red) ] "'  # a question's text holds typed tokens
    source = report_source(records, lost, "Report <b>")
    assert "#set page(fill: red)" not in source.replace('#"#set page(fill: red)', "")
    pdf = report_pdf(records, lost, "Report <b>")
    assert pdf.startswith(b"%PDF") and b"/Type/Pages/Count 1/" in pdf  # one page


def test_the_rows_are_bounded():
    record = {
        "question": 1,
        "kind": "row_sum",
        "seed": 0,
        "rounds": 1,
        "right": 0,
        "1": {"counts": [1, 0], "answered": 1, "right_share": 1.0, "confidence": []},
    }
    minutes = {m: 1 for m in range(limits.MAX_REPORT_ROWS + 5)}
    _, rows = report_rows([record], minutes)
    assert len(rows) == limits.MAX_REPORT_ROWS


SKETCHES = [(5, 1, 3, 0, 5, 0), (1, 1, 1, 1, 1, 1), (0, 0, 0, 5, 0, 0), (3, 0, 5, 0, 3, 0)]


def test_a_sketch_question_counts_its_sketches_in_the_report_and_the_health_panel():
    """W3: four phones sketched, so the report's row and the lecturer's health panel say 4
    answered, with the class mean, the median distance and how many picked the row's largest
    key, computed here from the same sketches (lessons.sketch as the oracle); also once the
    next question has been asked (the kept record)."""
    from attnviz.classroom.health import health
    from attnviz.classroom.sketch import VARIANTS, class_summary, sketch_kind, sketch_question

    store = MemoryStore(clock=Clock())
    store.read_example = example_settings
    room, key = store.open(settings_query(Settings()), "lecturer")
    code, kind = room.code, sketch_kind("plain", 1)
    question = sketch_question(Settings(), "plain", 1)
    store.push_question(code, key, 0, kind, question.n)
    for sid, levels in zip(SIDS, SKETCHES, strict=False):
        store.join(code, sid)
        store.answer_sketch(code, sid, levels)
    assert health(store, code).answered == len(SKETCHES)
    expected = class_summary(question, SKETCHES)
    for moved_on in (False, True):
        if moved_on:
            store.reveal(code, key)
            store.push_question(code, key, 0, "shape", 5, right=0)
        rows = list(csv.DictReader(io.StringIO(report_csv(*store.report(code, key)))))
        row = next(r for r in rows if r["kind"] == kind)
        assert int(row["answered"]) == len(SKETCHES)
        assert row["asked"] == f"sketch the row of query 1 ({VARIANTS['plain']})"  # in words
        assert float(row["median_distance"]) == round(float(np.median(expected.distances)), 4)
        assert int(row["picked_largest"]) == expected.right_largest
        means = [float(part.rsplit(" ", 1)[1]) for part in row["class_mean"].split("; ")]
        assert np.allclose(means, expected.mean, atol=1e-4)
    records, lost = store.report(code, key)
    source = report_source(records, lost, "Room report")
    assert f"{len(SKETCHES)} sketched" in source and "sketch:plain" not in source
    shape = next(r for r in records if r["kind"] == "shape")  # I11: the question, not its code
    assert shape["text"].startswith("What shape") and typst_text(shape["text"]) in source


def test_the_pdf_names_each_question_in_words_not_its_code():
    """Review 5, I11: the Kind column printed codes such as `sketch:plain:1`."""
    from attnviz.classroom.report import question_name
    from attnviz.classroom.sketch import VARIANTS, sketch_kind
    from attnviz.lessons.predict.make import KIND_NAMES, KINDS

    assert set(KIND_NAMES) == set(KINDS)
    assert question_name(sketch_kind("plain", 1)) == (
        f"sketch the row of query 1 ({VARIANTS['plain']})"
    )
    store, code, key = a_lesson()
    records, lost = store.report(code, key)
    records = [{k: v for k, v in r.items() if k != "text"} for r in records]  # no text kept:
    records.append({**records[0], "kind": sketch_kind("causal", 2), "question": 99})  # words
    source = report_source(records, lost, "Room report")
    for record in records:
        assert typst_text(question_name(record["kind"])) in source
        assert f"[{typst_text(record['kind'])}]" not in source
