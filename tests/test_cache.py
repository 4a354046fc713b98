"""The server's shared caches (attnviz/ui/cache.py)."""


def test_the_shared_caches_are_bounded_in_entries_and_share_one_budget(monkeypatch):
    import numpy as np

    from attnviz.ui import cache

    monkeypatch.setattr(cache, "MAX_SHARED_CACHE_MB", 1)
    cache.clear_shared_caches()
    calls = []

    @cache.shared_cache(max_entries=4)
    def make(k):
        calls.append(k)
        return (np.zeros(50_000),)  # 0.4 MB each: two fit in 1 MB, three do not

    @cache.shared_cache(max_entries=3)
    def small(k):
        calls.append(("small", k))
        return k

    for k in range(10):
        make(k)
        small(k)
    assert cache.shared_cache_bytes() <= 1e6
    make(9)
    assert calls.count(9) == 1  # the latest is kept: no recomputation
    make(0)
    assert calls.count(0) == 2  # the oldest went
    small(9)
    small(6)
    assert calls.count(("small", 9)) == 1 and calls.count(("small", 6)) == 2  # 3 entries kept
    cache.clear_shared_caches()
