"""The lecturer's report of a room (store.report: every question's record, rounds.summary, and
the "I'm lost" taps per minute) as CSV and as a one-page PDF summary (typst, as the
worksheets). No student identifier is in the records, so none can be in the report.

CSV: one row per question and round (``row`` = "round"), then one per minute with "I'm lost"
taps (``row`` = "im_lost"):

    row, question, kind, asked (what the kind asks, in words: the PDF's), seed, round (1, 2,
    twin), rounds (1 or 2), right_option (a letter),
    answered, count_A ... (one per option, as many as the widest question), right_share
    (0 to 1), moves (round 2: "A>B:3 B>B:2", first answer > second: students),
    changed, moved_to_right, sure_right, sure_wrong, fairly_sure_right, fairly_sure_wrong,
    guessing_right, guessing_wrong, class_mean, true_row, median_distance, picked_largest,
    minute (since the room opened), im_lost

A sketch question ("sketch the row") has one row: ``answered`` the phones that sketched, no
option counts, and its own four columns: ``class_mean`` and ``true_row`` ("the (1) 0.2; cat
0.06; ..."), ``median_distance`` (total variation, 0 to 1) and ``picked_largest`` (the phones whose
largest weight is on one of the row's largest keys).
"""

import csv
import io

from attnviz.classroom.questions import letter
from attnviz.classroom.rounds import CONFIDENCE, moves_sentence, percent, sure_but_wrong
from attnviz.classroom.sketch import VARIANTS, read_kind
from attnviz.exercises.notation import typst_text
from attnviz.lessons.predict.make import KIND_NAMES
from attnviz.limits import MAX_REPORT_ROWS

ROUND_ORDER = ("1", "2", "twin")
ROUND_LABELS = {"1": "round 1", "2": "round 2", "twin": "twin"}
LEVEL_NAMES = tuple(name.replace(" ", "_") for name in CONFIDENCE)
SKETCH_COLUMNS = ("class_mean", "true_row", "median_distance", "picked_largest")


def weights_text(labels, weights):
    """ "the (1) 0.2; cat 0.06": each key's label and weight, keys apart by "; "."""
    return "; ".join(f"{label} {w:g}" for label, w in zip(labels, weights, strict=True))


def sketch_row(record, sketch):
    """The one CSV row of a sketch question (module docstring)."""
    return {
        "row": "round",
        "question": record["question"],
        "kind": record["kind"],
        "asked": question_name(record["kind"]),
        "seed": record["seed"],
        "round": "1",
        "rounds": record["rounds"],
        "answered": sketch["answered"],
        "class_mean": weights_text(sketch["labels"], sketch["mean"]) if sketch["answered"] else "",
        "true_row": weights_text(sketch["labels"], sketch["truth"]),
        "median_distance": "" if sketch["median_distance"] is None else sketch["median_distance"],
        "picked_largest": sketch["picked_largest"],
    }


def sketch_sentence(sketch):
    """The PDF's words for a sketch question: how many sketched, the median distance, how many
    picked the row's largest key."""
    n = sketch["answered"]
    if not n:
        return "nobody sketched"
    return (
        f"{n} sketched; median distance {sketch['median_distance']:g}; "
        f"{sketch['picked_largest']} of {n} picked the row's largest key"
    )


def _columns(width):
    counts = [f"count_{letter(k)}" for k in range(width)]
    levels = [f"{name}_{v}" for name in reversed(LEVEL_NAMES) for v in ("right", "wrong")]
    return [
        "row",
        "question",
        "kind",
        "asked",
        "seed",
        "round",
        "rounds",
        "right_option",
        "answered",
        *counts,
        "right_share",
        "moves",
        "changed",
        "moved_to_right",
        *levels,
        *SKETCH_COLUMNS,
        "minute",
        "im_lost",
    ]


def moves_text(moves):
    """ "A>B:3 B>B:2": each move (first answer > second answer: students)."""
    return " ".join(f"{letter(a)}>{letter(b)}:{n}" for a, b, n in moves)


def report_rows(records, lost_minutes):
    """(column names, rows as dicts) of the CSV (module docstring); at most MAX_REPORT_ROWS."""
    rows = []
    width = 0
    for record in records:
        if record.get("sketch"):
            rows.append(sketch_row(record, record["sketch"]))
            continue
        for name in ROUND_ORDER:
            data = record.get(name)
            if data is None:
                continue
            twin = name == "twin"
            right = record.get("twin_right" if twin else "right", -1)
            counts = data["counts"]
            width = max(width, len(counts))
            row = {
                "row": "round",
                "question": record["question"],
                "kind": record["kind"],
                "asked": question_name(record["kind"]),
                "seed": record.get("twin_seed") if twin else record["seed"],
                "round": name,
                "rounds": record["rounds"],
                "right_option": letter(right) if 0 <= right < len(counts) else "",
                "answered": data["answered"],
                "right_share": "" if data["right_share"] is None else round(data["right_share"], 4),
            }
            row |= {f"count_{letter(k)}": c for k, c in enumerate(counts)}
            for level, hits, misses in data["confidence"]:
                name_of = LEVEL_NAMES[level]
                row[f"{name_of}_right"], row[f"{name_of}_wrong"] = hits, misses
            if name == "2" and "moves" in record:
                moves = record["moves"]
                row["moves"] = moves_text(moves)
                row["changed"] = sum(n for a, b, n in moves if a != b)
                row["moved_to_right"] = sum(n for a, b, n in moves if a != b and b == right)
            rows.append(row)
    for minute, taps in sorted(lost_minutes.items()):
        rows.append({"row": "im_lost", "minute": minute, "im_lost": taps})
    return _columns(width), rows[:MAX_REPORT_ROWS]


def report_csv(records, lost_minutes):
    """The report as CSV text (module docstring)."""
    columns, rows = report_rows(records, lost_minutes)
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


# -- the one-page PDF ---------------------------------------------------------------------------
PREAMBLE = r"""
#set document(title: "attnviz classroom report", author: "attnviz")
#set page(paper: "a4", margin: (x: 1.5cm, y: 1.4cm))
#set text(size: 9pt, lang: "en")
#let muted(body) = text(fill: luma(100), size: 8pt, body)
#let bar(share, colour) = box(width: 3.2cm, height: 0.8em, fill: luma(235), baseline: 15%,
  box(width: share * 3.2cm, height: 0.8em, fill: colour))
"""
SHARE_COLOURS = {"1": "luma(160)", "2": "luma(60)", "twin": 'rgb("#7570b3")'}


def _share_cell(data, name):
    share = data["right_share"]
    if share is None:
        return "[#muted[–]]"
    return f"[#bar({share:.4f}, {SHARE_COLOURS[name]}) {typst_text(percent(share))}]"


def question_name(kind):
    """What a question of ``kind`` asked, in words: "what a row of A sums to", "sketch the row
    of query 1 (no mask, scaling on, T = 1)"; a kind this code does not know, as stored."""
    sketch = read_kind(kind)
    if sketch is not None:
        variant, query = sketch
        return f"sketch the row of query {query} ({VARIANTS[variant]})"
    return KIND_NAMES.get(kind, str(kind))


def report_source(records, lost_minutes, title):
    """The typst source of the one-page summary: per question its text (what it asked, when the
    record has none), the right share of each round as bars, who moved where, sure-but-wrong;
    then "I'm lost" per minute as bars."""
    out = [PREAMBLE, f'#text(size: 14pt, weight: "bold", {typst_text(title)[1:-1]})\n\n']
    out.append(
        "#muted["
        + typst_text(
            "Right answers per round (grey: round 1, dark: round 2, violet: the twin); the "
            "moves between the two rounds; how many were sure and wrong. No student names or "
            "ids: the room keeps none."
        )
        + "]\n\n"
    )
    cells = []
    for record in records[:MAX_REPORT_ROWS]:
        sketch = record.get("sketch")
        if sketch:
            cells += [
                f"[{record['question']}]",
                f"[{typst_text(sketch['text'])}]",
                f"[{typst_text(sketch_sentence(sketch))}]",
                "[]",
                "[]",
            ]
            continue
        shares = " ".join(
            f"#box[{typst_text(ROUND_LABELS[name])} {_share_cell(record[name], name)[1:-1]}]"
            for name in ROUND_ORDER
            if name in record
        )
        moves = record.get("moves")
        said = moves_sentence(moves, record["right"]) if moves is not None else ""
        wrong = "; ".join(
            f"{ROUND_LABELS[name]}: {sure_but_wrong(record[name]['confidence'])}"
            for name in ROUND_ORDER
            if name in record
        )
        cells += [
            f"[{record['question']}]",
            f"[{typst_text(record.get('text') or question_name(record['kind']))}]",
            f"[{shares}]",
            f"[{typst_text(said)}]",
            f"[{typst_text(wrong)}]",
        ]
    header = ["No.", "Question", "Right answers", "Who moved where", "Sure, wrong"]
    out.append(
        "#table(columns: (auto, 1.3fr, 1.2fr, 1fr, auto), stroke: 0.4pt + luma(180), inset: 4pt,\n"
        + ", ".join(f"[*{typst_text(h)}*]" for h in header)
        + (",\n" + ", ".join(cells) if cells else "")
        + ")\n\n"
    )
    if lost_minutes:
        most = max(lost_minutes.values())
        bars = " ".join(
            f'#box(width: 0.5em, height: {2.5 * n / most:.3f}cm, fill: rgb("#b2182b"))'
            for n in (lost_minutes.get(m, 0) for m in range(max(lost_minutes) + 1))
        )
        out.append(
            typst_text(f'"I\'m lost" taps per minute since the room opened (most: {most}):')
            + f"\n\n#box(height: 2.6cm, stroke: (bottom: 0.4pt))[#align(bottom)[{bars}]]\n\n"
            + "#muted["
            + typst_text(f"minutes 0 to {max(lost_minutes)}, one bar a minute")
            + "]\n"
        )
    else:
        out.append(typst_text('Nobody tapped "I\'m lost".') + "\n")
    return "".join(out)


def report_pdf(records, lost_minutes, title):
    """The one-page summary as PDF bytes (typst's own fonts, as the worksheets)."""
    from attnviz.exercises.pdf import compile_pdf

    return compile_pdf(report_source(records, lost_minutes, title))
