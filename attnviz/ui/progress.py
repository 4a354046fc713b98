"""A download's progress on the page: huggingface_hub's tqdm bars drawn as Streamlit's."""

import io
import threading

from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from attnviz.ui.text import md_escape


def progress_tqdm(container):
    """A ``tqdm`` class whose bars draw as Streamlit progress bars inside ``container``.

    ``huggingface_hub`` creates the bars in the script's thread and updates them from its
    download threads; each update re-attaches the script's context to the updating thread, as
    Streamlit needs to draw from another thread.
    """
    from tqdm.auto import tqdm

    ctx = get_script_run_ctx()

    class StreamlitTqdm(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs.pop("name", None)  # huggingface_hub's own bars take a name; tqdm does not
            kwargs["disable"] = False  # tqdm hides itself without a terminal; this draws anyway
            kwargs["file"] = io.StringIO()  # the page shows the progress, not the server's log
            self._bar = container.empty()
            super().__init__(*args, **kwargs)

        def display(self, msg=None, pos=None):
            if ctx is not None and get_script_run_ctx(suppress_warning=True) is None:
                add_script_run_ctx(threading.current_thread(), ctx)
            total = self.total or 0
            done = min(self.n / total, 1.0) if total else 0.0
            if self.unit == "B":
                size = f"{self.format_sizeof(self.n)}B of {self.format_sizeof(total)}B"
            else:
                size = f"{self.n:g} of {total:g}"
            self._bar.progress(done, text=md_escape(f"{self.desc or 'Downloading'}: {size}"))
            return True

    return StreamlitTqdm
