"""What the "Attention as geometry" page lets the user choose, and its URL form. No Streamlit.

The URL names start with ``geo_``: ``geo_keys`` and ``geo_values`` (2-D vectors, rows separated
by ``;``, entries by ``,``: ``geo_keys=2,0;0,1;-2.6,1.5``), ``geo_dk`` (the d_k of the random
pairs), and ``geo_angle`` (degrees) and ``geo_len``, where the figure's query starts. Bad values
are replaced or clamped, with a warning; ``choice_from_query`` never raises.
"""

from dataclasses import dataclass, replace

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.files.own_numbers import format_matrix, parse_matrix
from attnviz.lessons.geometry import DEFAULT_KEYS, DEFAULT_VALUES, grid_angles
from attnviz.limits import (
    GEO_ANGLES,
    GEO_LENGTHS,
    MAX_D_K,
    MAX_GEO_COORD,
    MAX_GEO_KEYS,
    MIN_GEO_KEYS,
)
from attnviz.links.readers import quoted, raw_value, read_int

DEFAULT_ANGLE = 30.0  # degrees: the query starts between k1 and k2, nearer k1
DEFAULT_D_K = 64
# Values for keys past the defaults' four, when a link gives more keys than values
EXTRA_VALUES = ((0.7, 0.7), (-0.7, -0.7))
QUERY_NAMES = ("geo_keys", "geo_values", "geo_dk", "geo_angle", "geo_len")


def start_length(keys):
    """Where the query's length starts (an index into GEO_LENGTHS) for ``keys`` ((n, 2)): the
    longest length offered that is no longer than the longest key, so that the query's arrow
    is about as long as the keys' (at 1 it is a short arrow among long ones); the shortest
    offered when every key is shorter."""
    longest = float(np.linalg.norm(np.asarray(keys, dtype=float), axis=1).max())
    fits = [k for k, length in enumerate(GEO_LENGTHS) if length <= longest * (1 + 1e-9)]
    return fits[-1] if fits else 0


@dataclass(frozen=True)
class GeometryChoice:
    """The page's keys and values (tuples of (x, y)), where the query starts (an index into
    the grid's angles and lengths; the length's default is ``start_length`` of the default
    keys: pass it for other keys) and the d_k of the random pairs. Small and hashable."""

    keys: tuple = DEFAULT_KEYS
    values: tuple = DEFAULT_VALUES
    angle: int = round(DEFAULT_ANGLE * GEO_ANGLES / 360)
    length: int = start_length(DEFAULT_KEYS)
    d_k: int = DEFAULT_D_K

    def to_query(self):
        """{URL name: text}; the query's start only when it is not the default."""
        query = {
            "geo_keys": format_matrix(self.keys, row_sep=";", entry_sep=","),
            "geo_values": format_matrix(self.values, row_sep=";", entry_sep=","),
            "geo_dk": str(self.d_k),
        }
        default = GeometryChoice()
        if self.angle != default.angle:
            query["geo_angle"] = f"{grid_angles()[self.angle]:g}"
        if self.length != start_length(self.keys):
            query["geo_len"] = f"{GEO_LENGTHS[self.length]:g}"
        return query


def pairs_tuple(M):
    """A (n, 2) array as a tuple of (x, y) floats (hashable, for GeometryChoice)."""
    return tuple((float(x), float(y)) for x, y in np.asarray(M, dtype=float))


def _vectors(name, raw, warnings):
    """(n, 2) array read from the link's ``name``, clamped; None (with a warning) if unusable.

    Read as a box reads it: a space separates two numbers (``1 2,0`` is three numbers, not
    12 and 0; ``-2 .6`` is -2 and 0.6, not -2.6), so a vector with a stray space is said."""
    try:
        M = parse_matrix(name, raw)
    except AttentionInputError as exc:
        warnings.append(f"`{name}` in the link could not be read (`{quoted(exc, 120)}`)")
        return None
    if M.shape[1] != 2:
        warnings.append(f"`{name}` in the link has {M.shape[1]} numbers per vector, not 2 (x, y)")
        return None
    if np.abs(M).max() > MAX_GEO_COORD:
        warnings.append(
            f"`{name}` in the link has entries outside -{MAX_GEO_COORD:g} to "
            f"{MAX_GEO_COORD:g}: they were clamped."
        )
        M = np.clip(M, -MAX_GEO_COORD, MAX_GEO_COORD)
    return M


def _nearest_angle(raw, warnings):
    angles = grid_angles()
    step = angles[1] - angles[0]
    try:
        degrees = float(raw)
    except ValueError:
        degrees = np.nan
    if not np.isfinite(degrees):
        warnings.append(
            f"`geo_angle={quoted(raw)}` is not a number: starting at {DEFAULT_ANGLE:g}°."
        )
        return GeometryChoice().angle
    index = round((degrees % 360) / step) % len(angles)
    if not np.isclose(degrees % 360, angles[index]) and not np.isclose(degrees % 360, 360):
        warnings.append(
            f"`geo_angle={quoted(raw)}`: the query turns in {step:g}° steps from 0° to "
            f"{angles[-1]:g}°, so it starts at {angles[index]:g}°."
        )
    return index


def _nearest_length(raw, warnings, default):
    offered = ", ".join(f"{v:g}" for v in GEO_LENGTHS)
    try:
        length = float(raw)
    except ValueError:
        length = np.nan
    if not np.isfinite(length) or length <= 0:
        warnings.append(
            f"`geo_len={quoted(raw)}` is not a length > 0: starting at "
            f"{GEO_LENGTHS[default]:g} (lengths offered: {offered})."
        )
        return default
    index = int(np.argmin(np.abs(np.log(np.array(GEO_LENGTHS)) - np.log(length))))
    if not np.isclose(length, GEO_LENGTHS[index]):
        warnings.append(
            f"`geo_len={quoted(raw)}` is not one of the lengths offered ({offered}): "
            f"starting at {GEO_LENGTHS[index]:g}."
        )
    return index


def choice_from_query(query):
    """(GeometryChoice, warnings) from the URL's query mapping; never raises."""
    warnings = []
    keys = np.array(DEFAULT_KEYS)
    if "geo_keys" in query:
        raw, said = raw_value(query, "geo_keys")
        warnings += said
        found = _vectors("geo_keys", raw, warnings)
        if found is not None and len(found) < MIN_GEO_KEYS:
            warnings.append(
                f"`geo_keys` in the link has {len(found)} keys; the page needs "
                f"{MIN_GEO_KEYS} to {MAX_GEO_KEYS}"
            )
            found = None
        if found is None:
            warnings[-1] += ": using the default keys."
        elif len(found) > MAX_GEO_KEYS:
            warnings.append(
                f"`geo_keys` in the link has {len(found)} keys (at most {MAX_GEO_KEYS}): using "
                f"the first {MAX_GEO_KEYS}."
            )
            keys = found[:MAX_GEO_KEYS]
        else:
            keys = found
    n = len(keys)
    spare = np.array(DEFAULT_VALUES + EXTRA_VALUES)
    values = spare[:n]
    if "geo_values" in query:
        raw, said = raw_value(query, "geo_values")
        warnings += said
        found = _vectors("geo_values", raw, warnings)
        if found is None:
            warnings[-1] += ": using the default values."
        else:
            if len(found) != n:
                warnings.append(
                    f"`geo_values` in the link has {len(found)} "
                    f"value{'s' * (len(found) != 1)} for {n} keys: "
                    + ("the extra ones are left out." if len(found) > n else
                       "the missing ones are default values.")
                )  # fmt: skip
            values = np.vstack([found[:n], spare[len(found) : n]])
    length = start_length(keys)
    choice = GeometryChoice(keys=pairs_tuple(keys), values=pairs_tuple(values), length=length)
    changes = {}
    for name, field, nearest in (
        ("geo_angle", "angle", _nearest_angle),
        ("geo_len", "length", lambda raw, said: _nearest_length(raw, said, length)),
    ):
        if name in query:
            raw, said = raw_value(query, name)
            warnings += said
            changes[field] = nearest(raw.strip(), warnings)
    if "geo_dk" in query:
        changes["d_k"], said = read_int(query, "geo_dk", low=1, high=MAX_D_K, default=DEFAULT_D_K)
        warnings += said
    return replace(choice, **changes), warnings
