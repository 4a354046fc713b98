"""A room's "sketch the row" answers: one sketch (levels, ``lessons.sketch``) per student per
question, kept like the option answers (one per session, replaced until the reveal, only while
the question takes answers, gone when the question changes or the room ends).

``SketchAnswers`` holds the rules, on top of any RoomStore; a backend gives three primitives:
``MemorySketches`` (the in-process store) and ``RedisSketches`` (a hash per question,
``room:{code}:q{n}:sketches``, sid -> "0,5,1,2", set by one Lua script). A sketch is at most
MAX_ROOM_TOKENS small ints: a room holds at most MAX_ROOM_STUDENTS of them a question.
"""

from attnviz.classroom.room import NotAnsweringError, RoomError, answers_closed, check_sid
from attnviz.classroom.sketch import is_sketch
from attnviz.lessons.sketch import SketchError, check_levels

SET_SKETCH = """
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return -1 end
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 0 then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('EXPIREAT', KEYS[2], ARGV[4])
redis.call('SET', KEYS[4], ARGV[5], 'EXAT', ARGV[6])
return 1
"""  # KEYS: answering, sketches, students, active (bounds.py); ARGV: sid, answer slot
#     (rounds.answer_slot), levels, expires, now, the record's end (lifecycle.kept_until)


def levels_text(levels):
    return ",".join(str(int(v)) for v in levels)


def read_levels(text, n):
    """The levels stored as ``levels_text``, or None when damaged (never trusted or raised)."""
    try:
        return check_levels(str(text).split(","), n)
    except SketchError:
        return None


class SketchAnswers:
    """The rules of sketch answers (a mixin of RoomStore: it uses ``room``, ``_students_room``)."""

    def _set_sketch(self, room, sid, levels):  # False unless room.question_no takes answers
        raise NotImplementedError

    def _sketch_of(self, room, sid):
        raise NotImplementedError

    def _all_sketches(self, room):  # the stored levels of every student (any order)
        raise NotImplementedError

    def answer_sketch(self, code, sid, levels):
        """Session ``sid``'s sketch of the current "sketch the row" question: ``levels`` (n,)
        ints 0..SKETCH_LEVELS, n the row's keys; a new sketch replaces the last, until the
        reveal. Counted with the option answers against MAX_ANSWERS_PER_MINUTE."""
        sid, room = self._students_room(code, sid)
        if not is_sketch(room.kind) or room.phase != "answering":
            raise NotAnsweringError("There is no row to sketch right now.")
        try:
            levels = check_levels(levels, room.n_options)
        except SketchError as exc:
            raise RoomError(str(exc)) from None
        if not any(levels):
            raise RoomError("Every bar is at 0: raise at least one bar (a row of A sums to 1).")
        if not self._set_sketch(room, sid, levels):
            raise answers_closed("sketches")

    def my_sketch(self, code, sid):
        """Session ``sid``'s sketch (a tuple of levels) of the current question, or None."""
        room = self.room(code)
        return self._sketch_of(room, check_sid(sid)) if is_sketch(room.kind) else None

    def sketches(self, code):
        """Every student's sketch of the current question, sorted (anonymous: no session ids,
        and the same order on every replica): a tuple of tuples of levels."""
        room = self.room(code)
        return tuple(sorted(self._all_sketches(room))) if is_sketch(room.kind) else ()


class MemorySketches(SketchAnswers):
    """Sketches in the MemoryStore's process, under its lock: each room's ``Kept.sketches``
    (question_no, {sid: levels}) (memory_store.py), dropped when its room ends."""

    def _set_sketch(self, room, sid, levels):
        with self._lock:
            kept = self._rooms.get(room.code)
            if kept is None or not kept.takes(room, sid):
                return False
            sketches = kept.of_question("sketches", room.question_no)
            sketches[sid] = tuple(levels)
            kept.sketches = (room.question_no, sketches)
            self._touched(kept, joined=True)
            return True

    def _question_sketches(self, room):
        kept = self._rooms.get(room.code)
        return {} if kept is None else kept.of_question("sketches", room.question_no)

    def _sketch_of(self, room, sid):
        with self._lock:
            return self._question_sketches(room).get(sid)

    def _all_sketches(self, room):
        with self._lock:
            return list(self._question_sketches(room).values())

    def _sketchers(self, room):
        with self._lock:
            return set(self._question_sketches(room))
