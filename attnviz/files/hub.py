"""The Hugging Face Hub: the last place the real model's and the chat model's loaders look for
their files, after a path, an environment variable and a package."""

from pathlib import Path


def download(model_id, files, tried, *, tqdm_class=None):
    """Download ``files`` (names or patterns) of ``model_id`` into the Hub's cache and return
    the folder; files already in the cache are not downloaded again. None when it fails, with
    why appended to ``tried`` (the loader's list of the places it tried).

    ``tqdm_class``: a ``tqdm.auto.tqdm`` subclass that ``huggingface_hub`` updates with the bytes
    downloaded, so a page can show progress.
    """
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(model_id, allow_patterns=list(files), tqdm_class=tqdm_class)
    except ImportError as exc:
        tried.append(f"the Hugging Face Hub: {exc.name or 'a library it needs'} is not installed")
    except Exception as exc:  # no network, rate limit, disk full: all end the same way
        tried.append(f"the Hugging Face Hub: {type(exc).__name__}: {exc}")
    else:
        return Path(folder)
    return None
