"""Sketches ("sketch the row") in Redis: RedisStore's primitives for sketch_store.SketchAnswers.
No Streamlit."""

from attnviz.classroom.lifecycle import kept_until
from attnviz.classroom.redis_errors import plain_errors
from attnviz.classroom.rounds import answer_slot
from attnviz.classroom.sketch_store import SET_SKETCH, SketchAnswers, levels_text, read_levels


class RedisSketches(SketchAnswers):
    """Sketches in Redis: a hash per question beside its answers (``sketches_key``), which
    ``RedisStore._update`` deletes with them when the question changes."""

    def sketches_key(self, code, question_no):
        return self._key(code, f"q{question_no}", "sketches")

    @plain_errors
    def _set_sketch(self, room, sid, levels):
        script = self.__dict__.get("_sketch_script")
        if script is None:
            script = self._sketch_script = self.r.register_script(SET_SKETCH)
        keys = [
            self._key(room.code, "answering"),
            self.sketches_key(room.code, room.question_no),
            self._key(room.code, "students"),
            self._key(room.code, "active"),
        ]
        args = [sid, answer_slot(room), levels_text(levels), int(room.expires) + 1]
        args += [repr(self.clock()), int(kept_until(room)) + 1]
        return script(keys=keys, args=args) == 1

    @plain_errors
    def _sketch_of(self, room, sid):
        value = self.r.hget(self.sketches_key(room.code, room.question_no), sid)
        return None if value is None else read_levels(value.decode(), room.n_options)

    @plain_errors
    def _sketchers(self, room):
        stored = self.r.hkeys(self.sketches_key(room.code, room.question_no))
        return {sid.decode("utf-8", "replace") for sid in stored}

    @plain_errors
    def _all_sketches(self, room):
        stored = self.r.hvals(self.sketches_key(room.code, room.question_no))
        found = (read_levels(value.decode(), room.n_options) for value in stored)
        return [levels for levels in found if levels is not None]
