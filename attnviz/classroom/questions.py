"""A room's example and question: whether Settings can be pushed, and the Predict-then-reveal
question on them. A room stores only the settings' URL form, the question set's seed and the
question's kind: every phone and the projector compute the same numbers from them (the URL form
is read back once per server, ``serve.classroom.room_settings``: links/ is no business of here).
"""

from attnviz import lessons
from attnviz.limits import MAX_ROOM_DIM, MAX_ROOM_TEXT_CHARS, MAX_ROOM_TOKENS
from attnviz.settings import compute

OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Questions whose answer can be read off the room's A (a row's sum, row 0 under the mask, a
# masked weight, a row's largest weight): a phone shows no A while one of them is asked
ANSWER_IN_A = frozenset({"row_sum", "causal_row", "masked_weight", "low_temperature"})


def pushable_problem(settings):
    """Why ``settings`` cannot be pushed to the phones (a sentence), or None when it can."""
    if not settings.generated and len(settings.text) > MAX_ROOM_TEXT_CHARS:
        return (
            f"The sentence has {len(settings.text)} characters; a room shows at most "
            f"{MAX_ROOM_TEXT_CHARS}: shorten it in the sidebar."
        )
    n = len(settings.all_tokens)
    if n > MAX_ROOM_TOKENS or n < 1:
        return (
            f"The example has {n} tokens; a room shows 1 to {MAX_ROOM_TOKENS}, so that A fits "
            "a phone's screen: shorten the sentence (or n) in the sidebar."
        )
    dims = {"d_model": settings.d_model, "d_k": settings.d_k, "d_v": settings.d_v}
    wide = [f"{name} = {value}" for name, value in dims.items() if value > MAX_ROOM_DIM]
    if wide:
        sizes = ", ".join(wide)
        return f"{sizes}: a room takes sizes up to {MAX_ROOM_DIM}. Lower it in the sidebar."
    return None


def all_questions(settings, quiz_seed):
    """Every question of set ``quiz_seed`` that the example of ``settings`` can ask (a tuple
    of lessons.Question, at most one of each kind)."""
    example = compute(settings)
    found = lessons.quiz(
        example.result, example.labels, quiz_seed, P=example.P, max_questions=len(lessons.KINDS)
    )
    return tuple(found)


def question_of(questions, kind):
    """The question of ``kind`` among ``questions``, or None."""
    return next((q for q in questions if q.kind == kind), None)


def letter(k):
    """The letter of option ``k``: A, B, C ..."""
    return OPTION_LETTERS[k] if k < len(OPTION_LETTERS) else str(k + 1)
