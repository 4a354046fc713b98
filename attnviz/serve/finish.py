"""Charts kept finished for every visitor: ``kept_chart(make, args, present, palette)`` is
``charts.finish.finished(make(*args), present, palette)``, computed once per figure, projector
mode and palette in the server's store. The finishing itself is ``charts.finish`` (pure); this
module only keeps its results. No Streamlit: ``attnviz.ui.charts`` draws them (``draw``).
"""

from attnviz.charts.finish import digest, finished
from attnviz.limits import CACHE_FINISHED_CHARTS
from attnviz.serve.store import kept, object_bytes


@kept(*CACHE_FINISHED_CHARTS, size=object_bytes)
def kept_finished(make, args, inputs_digest, share, present, palette, title, *, inputs=()):
    """``finished(make(*args, *inputs), present, palette, share=share, title=title)``, once per
    figure, style and palette for every visitor: ``make`` a module-level function of the small
    keys ``args`` (Settings, numbers) and of ``inputs`` (arrays, known to the key by their
    ``digest`` alone, ``inputs_digest``; None without), whose figure depends on them alone."""
    return finished(make(*args, *inputs), present, palette, share=share, title=title)


def kept_chart(make, args, present, palette, *, share=1.0, title=None, inputs=()):
    """``make(*args, *inputs)`` finished for projector mode ``present`` and ``palette``, kept
    for every visitor (``kept_finished``): ``make`` a module-level function of the small keys
    ``args`` (Settings, numbers) and of ``inputs`` (arrays, known to the key by their digest
    alone), whose figure depends on them alone."""
    inputs = tuple(inputs)
    key_digest = digest(*inputs) if inputs else None
    return kept_finished(
        make, tuple(args), key_digest, share, present, palette, title, inputs=inputs
    )
