"""What the server computes once and keeps for every visitor. No Streamlit.

    store     the one store and its memory budget, single flight, ``Lookup``, ``cache_report``
    gate      the heavy-work gate: one heavy computation per core at a time, the rest queued
    kept      ``@kept``: the one way to keep a computation for every visitor
    slots     ``Slot``: one pinned value per server (the two models, the room store)
    finish    chart finishing as a pure function of (figure, projector mode, palette)
    example   ``cached_example``: the example every page draws
    <page>    a page's settings-keyed numbers and records (``real_model``: ``ModelRun`` ...)

``attnviz.ui`` draws what these return; nothing here reads a session.
"""
