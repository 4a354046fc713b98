"""When a room ends, and how many rooms one store and one address hold (issue 36: rooms are
cheap to refuse, not to hold). The rules every backend applies to what it stores; no Streamlit.

A room ends at the earliest of

    its lifetime   ROOM_LIFETIME_SECONDS after it opened (``room.expires``)
    idleness       ROOM_IDLE_EMPTY_SECONDS after its last activity while nobody has joined it,
                   ROOM_IDLE_SECONDS after its last activity once someone has

Activity is a join, an answer (or a sketch) and a change of the lecturer's; a poll is not. A
backend keeps, beside the room's JSON, when the room was last active and whether anyone joined
(MemoryStore: a dict; RedisStore: two small keys), so an answer never rewrites the room, and
idleness is computed from those timestamps against the store's clock, never left to Redis's.

    as_now(room, active, joined, now)    the room as it stands at ``now``: ended by idleness,
                                         its ``expires`` moved back to that end and
                                         ``idle_minutes`` set (lifecycle.ended_reason says it)
    ends(room, active, joined)           when it ends if nothing more happens in it
    check_caps(everyone, owned, now, where)   TooManyRoomsError, in words with when the next
                                         room frees, at MAX_ROOMS or MAX_ROOMS_PER_ADDRESS
    oldest_unjoined(rooms)               the room that ends to make room when the store is
                                         full: nobody joined it, its network holds the most
    network_of(address)                  the network every per-address limit counts
    owner_of(address)                    the name under which a network's rooms are counted

A closed room and a room ended early count against no cap: only open rooms do.
"""

import hashlib
import ipaddress
import math
from collections import Counter
from dataclasses import replace

from attnviz.classroom.room import TooManyRoomsError
from attnviz.limits import (
    IPV4_NETWORK_BITS,
    IPV6_NETWORK_BITS,
    MAX_ROOMS,
    MAX_ROOMS_PER_ADDRESS,
    ROOM_IDLE_EMPTY_SECONDS,
    ROOM_IDLE_SECONDS,
    ROOM_LIFETIME_SECONDS,
)


def idle_seconds(joined):
    """How long the room may stay without activity: less while nobody has joined it."""
    return ROOM_IDLE_SECONDS if joined else ROOM_IDLE_EMPTY_SECONDS


def ends(room, active, joined):
    """When ``room`` ends if nothing more happens in it (seconds since the epoch). ``active``:
    when it was last active (None: never since it opened); ``joined``: whether anyone has."""
    return lifetime_or_idle_end(room.expires, active, joined)


def lifetime_or_idle_end(expires, active, joined):
    """``ends`` of a room whose lifetime ends at ``expires`` (all a store's index keeps)."""
    opened = expires - ROOM_LIFETIME_SECONDS
    last = opened if active is None else max(float(active), opened)
    return min(expires, last + idle_seconds(joined))


def as_now(room, active, joined, now):
    """``room`` as it stands at ``now``: when it has ended by idleness before its lifetime, the
    same room with ``expires`` at that end and ``idle_minutes`` set; else ``room`` itself."""
    end = ends(room, active, joined)
    if end < room.expires and end <= now:
        return replace(room, expires=end, idle_minutes=idle_seconds(joined) // 60)
    return room


def network_of(address):
    """The network of client ``address`` (text) that the per-address limits count: its IPv4
    /IPV4_NETWORK_BITS or IPv6 /IPV6_NETWORK_BITS ("198.51.100.0/24", "2001:db8:1:2::/64"; an
    IPv4-mapped IPv6 address as IPv4), so one client cannot count as many by changing the last
    bits of its address; text that is no address ("this machine") as it is."""
    text = str(address).strip()
    try:
        ip = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return text[:64]
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.version == 4:
        return str(ipaddress.IPv4Network((int(ip), IPV4_NETWORK_BITS), strict=False))
    return str(ipaddress.IPv6Network((int(ip), IPV6_NETWORK_BITS), strict=False))


def owner_of(address):
    """The name under which rooms opened from ``address``'s network are counted: a digest, so
    the store keeps no client address for the hours a room lasts."""
    digest = hashlib.sha256(network_of(address).encode("utf-8", "replace"))
    return digest.hexdigest()[:24]


def oldest_unjoined(rooms):
    """The code of the room that ends first when the store is full: the oldest that nobody has
    joined, of the network that holds the most open rooms (a flood's, never a lone lecturer's
    while a flood holds more), from ``rooms`` [(code, when it opened, whether anyone joined,
    its owner)]; None when every room has students (the lecturer is then refused, told when
    the next frees)."""
    rooms = list(rooms)
    held = Counter(owner for *_, owner in rooms)
    waiting = [(-held[owner], opened, code) for code, opened, joined, owner in rooms if not joined]
    return min(waiting)[2] if waiting else None


def _in_words(seconds):
    """A wait in words: "within a minute", "in about 12 minutes", "in about 3.5 hours"."""
    minutes = math.ceil(seconds / 60)
    if minutes <= 1:
        return "within a minute"
    if minutes < 90:
        return f"in about {minutes} minutes"
    return f"in about {round(seconds / 1800) / 2:g} hours"


def next_frees(rooms, now):
    """When the first of ``rooms`` (pairs (when it ends if idle, when its lifetime ends)) frees,
    in words: idle ends are only as far as known (a join or an answer puts them off), so the
    sooner certain end, its lifetime's, is said beside one."""
    soonest = min(end for end, _ in rooms)
    certain = min(lifetime for _, lifetime in rooms)
    if soonest >= certain:
        return f"the next frees {_in_words(certain - now)}"
    return (
        f"the next frees {_in_words(soonest - now)} if it stays idle, and "
        f"{_in_words(certain - now)} at the latest"
    )


def check_caps(everyone, owned, now, where="This server"):
    """Raise TooManyRoomsError when the rooms opened from the lecturer's network ``owned``
    number MAX_ROOMS_PER_ADDRESS, or the open rooms ``everyone`` MAX_ROOMS (a backend first
    ends the ``oldest_unjoined`` room, and leaves it out); each a list of (when it ends if
    idle, when its lifetime ends), which a backend may leave empty when it knows the count to
    be under its cap. ``where``: the store, in words."""
    if len(owned) >= MAX_ROOMS_PER_ADDRESS:
        raise TooManyRoomsError(
            f"{MAX_ROOMS_PER_ADDRESS} rooms opened from your network are open now, the most one "
            f"network may hold at once: {next_frees(owned, now)}. Close one, or try again then."
        )
    if len(everyone) >= MAX_ROOMS:
        raise TooManyRoomsError(
            f"{where} already has {MAX_ROOMS} open rooms, the most it keeps, and each has "
            f"students: {next_frees(everyone, now)}. Try again then."
        )
