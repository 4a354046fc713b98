"""The store's side of peer instruction: the rounds' steps, a student's answers of every round,
the confidence tap, "I'm lost", "Look at the projector" and the lecturer's report.

``PeerRules`` is mixed into RoomStore (the rules, over a backend's primitives, the methods that
start with ``_``); ``MemoryPeer`` gives the in-process store's primitives, ``peer_redis``
Redis's. The same contract tests run against both (tests/test_classroom_rounds_store.py).

    store.end_round / discuss / second_round / twin / blank(code, key, ...)   the lecturer
    store.step(code, key, name)             the next step by name (rounds.next_step: a clicker)
    store.my_answers(code, sid)             {round_no: answer} of the current question
    store.closed_answers(code)              {round_no: {sid: answer}} of its closed rounds
    store.confide(code, sid, level), store.my_confidence(code, sid)
    store.im_lost(code, sid), store.lost_count(code, key)
    store.rounds_summary(code)              the current question's numbers (rounds.summary)
    store.report(code, key)                 every question's numbers and the "I'm lost" minutes
"""

import json

from attnviz.classroom import rounds
from attnviz.classroom.questions import all_questions, question_of
from attnviz.classroom.room import NotAnsweringError, RoomError, check_sid
from attnviz.classroom.sketch import is_sketch
from attnviz.classroom.sketch import record as sketch_record
from attnviz.limits import (
    LOST_COOLDOWN_SECONDS,
    LOST_WINDOW_SECONDS,
    MAX_ANSWERS_PER_MINUTE,
    MAX_LOST_MINUTES,
    MAX_REPORT_RECORD_CHARS,
    MAX_ROUNDS_PER_QUESTION,
)

ROUND_NUMBERS = tuple(range(1, MAX_ROUNDS_PER_QUESTION + 1))


class PeerRules:
    """The rules of rounds (mixed into RoomStore, which gives ``room``, ``_change``, ``limit``,
    and ``clock``)."""

    # How a room's stored example (``Room.settings``) reads back as Settings: the link reader
    # is not this layer's, so the server gives it (serve.classroom); None: a question's record
    # keeps its counts only (no text, no sketch numbers)
    read_example = None

    # -- what a backend gives ---------------------------------------------------------------
    def _round_answers(self, room, round_no):  # {sid: answer} of round_no of the question
        raise NotImplementedError

    def _set_confidence(self, room, sid, level):  # False unless sid answered this round
        raise NotImplementedError

    def _confidences(self, room, round_no):  # {sid: level}
        raise NotImplementedError

    def _confidence_of(self, room, round_no, sid):  # sid's level in round_no, or None
        return self._confidences(room, round_no).get(sid)

    def _lost(self, room, sid, now):  # count the tap unless sid's last is in the cooldown
        raise NotImplementedError

    def _lost_since(self, room, since):  # students whose last tap is at or after since
        raise NotImplementedError

    def _lost_minutes(self, room):  # {minute since the room opened: taps counted}
        raise NotImplementedError

    def _put_record(self, room, question_no, text):  # keep a question's record (JSON)
        raise NotImplementedError

    def _records(self, room):  # {question_no: text}
        raise NotImplementedError

    # -- the lecturer's steps ----------------------------------------------------------------
    def end_round(self, code, key):
        """Lock the round's answers; nothing about them is shown yet."""
        return self._change(code, key, rounds.ended_round)

    def discuss(self, code, key, seconds=0):
        """ "Discuss with your neighbour", with a soft countdown of ``seconds`` (0: none)."""
        now = self.clock()
        return self._change(code, key, lambda r: rounds.discussing(r, seconds, now))

    def second_round(self, code, key):
        """Round 2 of the question takes answers."""
        return self._change(code, key, rounds.second_round)

    def twin(self, code, key, twin_seed, n_options, right, example_seed=-1):
        """The twin question (the same kind on question set ``twin_seed``, on the room's
        sentence with weights' seed ``example_seed``; -1: the room's example), one round."""
        if not 2 <= int(n_options) <= 64:
            raise RoomError("A question has 2 to 64 options.")
        return self._change(
            code, key, lambda r: rounds.twin(r, twin_seed, n_options, right, example_seed)
        )

    def blank(self, code, key, on):
        """Blank the phones ("Look at the projector") or show them the room again."""
        return self._change(code, key, lambda r: rounds.blanked(r, on))

    def step(self, code, key, name, *args):
        """The lecturer's step ``name`` (one of rounds.next_step's), with its ``args``."""
        steps = {
            "end_round": self.end_round,
            "discuss": self.discuss,
            "second_round": self.second_round,
            "reveal": self.reveal,
            "twin": self.twin,
        }
        if name not in steps:
            raise RoomError(f"{name!r} is no step of a question's rounds.")
        return steps[name](code, key, *args)

    # -- a student ---------------------------------------------------------------------------
    def my_answers(self, code, sid):
        """{round_no: answer} that session ``sid`` gave to the current question, every round."""
        room = self.room(code)
        sid = check_sid(sid)
        if room.kind is None:
            return {}
        found = {}
        for r in ROUND_NUMBERS[: room.peer.round_no]:
            answer = self._round_answers(room, r).get(sid)
            if answer is not None:
                found[r] = answer
        return found

    def closed_answers(self, code, room=None):
        """{round_no: {sid: answer}} of the current question's rounds that take no more
        answers: every round before the current one, and the current one unless it is
        answering. No student can change them until the room's version changes (a round
        opens and closes with a change of the lecturer's), so a server reads them once per
        room version for all its phones (serve.classroom.closed_answers)."""
        room = room or self.room(code)
        if room.kind is None or is_sketch(room.kind):
            return {}
        last = room.peer.round_no - (room.phase == "answering")
        return {r: self._round_answers(room, r) for r in ROUND_NUMBERS[:last]}

    def confide(self, code, sid, level):
        """Session ``sid``'s confidence in its answer of this round: ``level`` an index of
        rounds.CONFIDENCE; until the round's answers are revealed, a new tap replaces it."""
        sid = check_sid(sid)
        self.limit(f"answer:{sid}", MAX_ANSWERS_PER_MINUTE, "answers")
        room = self.room(code)
        if room.kind is None or room.phase not in ("answering", "locked"):
            raise NotAnsweringError("There is no answer to be sure of right now.")
        if not isinstance(level, int) or not 0 <= level < len(rounds.CONFIDENCE):
            raise RoomError("How sure you are is one of: " + ", ".join(rounds.CONFIDENCE) + ".")
        if not self._set_confidence(room, sid, level):
            raise NotAnsweringError("Answer first, then say how sure you are.")

    def my_confidence(self, code, sid):
        """Session ``sid``'s confidence tap of the current round, or None."""
        room = self.room(code)
        return self._confidence_of(room, room.peer.round_no, check_sid(sid))

    def im_lost(self, code, sid):
        """Session ``sid`` taps "I'm lost": counted once per LOST_COOLDOWN_SECONDS. True when
        this tap was counted."""
        sid = check_sid(sid)
        self.limit(f"answer:{sid}", MAX_ANSWERS_PER_MINUTE, "answers")
        room = self.room(code)
        if room.closed:
            raise NotAnsweringError(f"Room {room.code} is closed: the lecturer has ended it.")
        return self._lost(room, sid, self.clock())

    # -- the lecturer's numbers ---------------------------------------------------------------
    def _lecturers(self, code, key):
        room = self.room(code)
        if not room.key_matches(key):
            raise RoomError(f"Only the lecturer of room {room.code} sees this.")
        return room

    def lost_count(self, code, key):
        """How many students tapped "I'm lost" in the last LOST_WINDOW_SECONDS (the
        lecturer's view only)."""
        room = self._lecturers(code, key)
        return self._lost_since(room, self.clock() - LOST_WINDOW_SECONDS)

    def rounds_summary(self, code, room=None):
        """The current question's numbers (rounds.summary), or None before a question."""
        room = room or self.room(code)
        if room.kind is None:
            return None
        taken = {}
        for r in ROUND_NUMBERS[: room.peer.round_no]:
            if r == 2 and room.peer.rounds != 2:
                continue
            taken[r] = (self._round_answers(room, r), self._confidences(room, r))
        out = rounds.summary(room, taken)
        if self.read_example is None:  # no reader given: the counts only
            return out
        settings = self.read_example(room.settings)
        if is_sketch(room.kind):  # its answers are sketches: their numbers (W3)
            out["sketch"] = sketch_record(settings, room.kind, self.sketches(room.code))
        else:  # the question as the class read it, for the report
            found = question_of(all_questions(settings, room.quiz_seed), room.kind)
            out["text"] = None if found is None else found.text
        return out

    def keep_record(self, room):
        """Keep the current question's numbers for the report (before the room moves on)."""
        if room.kind is None or room.question_no < 1:
            return
        text = json.dumps(self.rounds_summary(room.code, room), separators=(",", ":"))
        if len(text) > MAX_REPORT_RECORD_CHARS:  # only with a very large class and many options
            data = json.loads(text)
            data.pop("moves", None)
            text = json.dumps(data, separators=(",", ":"))
        self._put_record(room, room.question_no, text)

    def report(self, code, key):
        """(every question's numbers, oldest first, the current one included; {minute since
        the room opened: "I'm lost" taps}) for the lecturer's download."""
        room = self._lecturers(code, key)
        kept = {}
        for number, text in self._records(room).items():
            try:
                kept[int(number)] = json.loads(text)
            except (TypeError, ValueError):
                continue  # a damaged record is left out, never trusted
        current = self.rounds_summary(room.code, room)
        if current is not None:
            kept[room.question_no] = current
        return [kept[n] for n in sorted(kept)], dict(sorted(self._lost_minutes(room).items()))


def lost_minute(room, now):
    """The minute since ``room`` opened that ``now`` falls in (0, 1, ...), bounded."""
    return min(max(0, int((now - room.opened) // 60)), MAX_LOST_MINUTES)


class MemoryPeer:
    """The in-process store's primitives for rounds (mixed into memory_store.MemoryStore: its
    ``_lock`` and ``_rooms`` {code: Kept}, whose ``answers``, ``confidence``, ``lost_at``,
    ``lost_min`` and ``report`` these read and write)."""

    def _round_answers(self, room, round_no):
        return self._of_round("answers", room, round_no)

    def _of_round(self, table, room, round_no):
        """A copy of what per-round ``table`` ("answers", "confidence") holds for round
        ``round_no`` of ``room``'s question: {sid: value}."""
        with self._lock:
            kept = self._rooms.get(room.code)
            by_round = {} if kept is None else kept.of_question(table, room.question_no)
            return dict(by_round.get(round_no, {}))

    def _set_confidence(self, room, sid, level):
        r = room.peer.round_no
        with self._lock:
            kept = self._rooms.get(room.code)
            if kept is None or sid not in kept.of_question("answers", room.question_no).get(r, {}):
                return False
            levels = kept.of_question("confidence", room.question_no)
            levels.setdefault(r, {})[sid] = level
            kept.confidence = (room.question_no, levels)
            return True

    def _confidences(self, room, round_no):
        return self._of_round("confidence", room, round_no)

    def _lost(self, room, sid, now):
        with self._lock:
            kept = self._rooms.get(room.code)
            if kept is None or sid not in kept.students:
                raise NotAnsweringError("Join the room first.")
            last = kept.lost_at.get(sid)
            if last is not None and now - last < LOST_COOLDOWN_SECONDS:
                return False
            kept.lost_at[sid] = now
            minute = lost_minute(room, now)
            kept.lost_min[minute] = kept.lost_min.get(minute, 0) + 1
            return True

    def _lost_since(self, room, since):
        with self._lock:
            kept = self._rooms.get(room.code)
            return 0 if kept is None else sum(1 for t in kept.lost_at.values() if t >= since)

    def _lost_minutes(self, room):
        with self._lock:
            kept = self._rooms.get(room.code)
            return {} if kept is None else dict(kept.lost_min)

    def _put_record(self, room, question_no, text):
        with self._lock:
            kept = self._rooms.get(room.code)
            if kept is not None:
                kept.report[question_no] = text

    def _records(self, room):
        with self._lock:
            kept = self._rooms.get(room.code)
            return {} if kept is None else dict(kept.report)
