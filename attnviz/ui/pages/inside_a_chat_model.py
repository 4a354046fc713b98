"""Inside a chat model: SmolLM2 loaded once per server, the prompt, the next token, generation.

A session keeps only its choices (the widgets' values: the prompt, temperature, top-k, the
pick, the number of tokens generated, the head); the model's runs live in the shared cache
keyed by them. The heads' grid and one head step by step are in ``inside_a_chat_model_heads``.
"""

import numpy as np
import streamlit as st

from attnviz.causal_lm.sampling import next_token_probabilities, top
from attnviz.causal_lm.storage import storage_counts, storage_sentence
from attnviz.charts.llama_block import block_figure
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.charts.token_bars import probability_bars
from attnviz.inputs import is_blank
from attnviz.limits import (
    MAX_CHAT_TEMPERATURE,
    MAX_CHAT_TOKENS,
    MAX_CHAT_TOP_K,
    MAX_TEXT_CHARS,
    MIN_CHAT_TEMPERATURE,
)
from attnviz.links.inside_a_chat_model import ChatChoices, choices_from_query
from attnviz.serve.inside_a_chat_model import (
    CHAT_MODEL,
    bars_finished,
    display_tokens,
    note_use,
)
from attnviz.serve.store import clear_shared_caches
from attnviz.ui.charts import draw
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present, palette
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

KEYS = {  # ChatChoices field -> widget key
    "prompt": "chat_prompt",
    "temperature": "chat_temperature",
    "top_k": "chat_top_k",
    "pick": "chat_pick",
    "generate": "chat_generate",
    "layer": "chat_layer",
    "head": "chat_head",
}
STEP_KEY = "chat_step"  # which generated token is opened (1 = the first)
WARNINGS_KEY = "chat_link_warnings"
TOP_SHOWN = 10


def forget_chat_model():
    """Drop the loaded model and its runs (tests: as if the server had just started)."""
    clear_shared_caches()


def chat_model():
    """The model, loaded once per server with a progress bar (a second visitor meanwhile waits
    for that load); stops the page with the fix if it cannot be loaded (the other pages do not
    need it). Released after CHAT_IDLE_SECONDS unused
    (``attnviz.serve.inside_a_chat_model.release_if_idle``)."""
    from attnviz.causal_lm import MODEL_ID, CausalLMLoadError
    from attnviz.ui.progress import progress_tqdm

    note_use()
    model = CHAT_MODEL.peek()
    if model is not None:
        return model
    box = st.empty()
    bar = box.progress(0.0, text=f"Loading {MODEL_ID} (once per server)…")

    def progress(done, total):
        bar.progress(done / total, text=f"Reading the weights: tensor {done} of {total}")

    try:
        model = CHAT_MODEL.get(progress=progress, tqdm_class=progress_tqdm(box.container()))
    except CausalLMLoadError as exc:
        box.empty()
        st.error(f"The chat model could not be loaded. {exc}", icon="🚫")
        st.info("Every other page works without it. After the fix, reload this page.")
        st.stop()
    box.empty()
    return model


def about_the_model(model):
    """What SmolLM2 is, from its config and weights: the page's opening paragraph."""
    c = model.config
    total = sum(count for count, _ in storage_counts(model.weights).values())
    return (
        f"**SmolLM2-135M-Instruct** is a small chat model of the LLaMA architecture, the design "
        f"of LLaMA, Mistral and Qwen: {c.n_layers} blocks, each with {c.n_heads} query heads of "
        f"{c.d_head} numbers sharing {c.n_kv_heads} key/value heads, d_model = {c.d_model}, and "
        f"a vocabulary of {c.vocab_size:,} byte-level tokens. Its {total / 1e6:.1f} million "
        "weights were learned from text, then tuned to follow instructions. Here "
        f"{storage_sentence(model.weights)}; this page computes with them widened to "
        "float32, exactly as the reference (Hugging Face transformers) does, in numpy on the "
        "server's CPU. It reads the prompt left to right and scores every possible next token. "
        "The prompt goes in as raw text, without the chat template (the special tokens that mark "
        "a user's turn and the assistant's) that a chat app wraps around it, so the model "
        "continues the text rather than answering it."
    )


# Choices: the link starts a session, the widgets keep them, the link follows -------------------


def start_session():
    """Put the link's choices into the widgets' keys once per session."""
    state = st.session_state
    if KEYS["prompt"] in state:
        return
    choices, warnings = choices_from_query(st.query_params.to_dict())
    for name, key in KEYS.items():
        state[key] = getattr(choices, name)
    state[WARNINGS_KEY] = warnings


def link_warnings():
    for warning in st.session_state.pop(WARNINGS_KEY, []):
        st.warning(warning, icon="⚠️")


def keep_choices():
    """Keep the values of the widgets this run does not draw (in projector mode a step draws
    only its own): Streamlit forgets a keyed widget's value after a run without it, unless the
    script sets it again."""
    state = st.session_state
    for key in (*KEYS.values(), STEP_KEY):
        if key in state:
            state[key] = state[key]


def current_choices():
    state = st.session_state
    return ChatChoices(**{name: state[key] for name, key in KEYS.items()})


def sync_link():
    """The link holds the choices that differ from the defaults."""
    want = current_choices().to_query()
    for name in ChatChoices.__dataclass_fields__:
        if name not in want and name in st.query_params:
            del st.query_params[name]
    for name, value in want.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def prompt_box(drawn=True):
    """The prompt's text box (or, not ``drawn``, the text it holds: a projector's later steps);
    returns the text, or stops the page (with a message) if empty."""
    if drawn:
        text = st.text_area(
            "Prompt",
            key=KEYS["prompt"],
            max_chars=MAX_TEXT_CHARS,
            height=80,
            help=f"Any text. The model reads its first {MAX_CHAT_TOKENS} tokens.",
        )
    else:
        text = st.session_state[KEYS["prompt"]]
    if not text or is_blank(text):
        what = "empty" if not text.strip() else "only invisible characters"
        st.warning(
            f"The prompt is {what}: type some text for the model to continue"
            f"{'' if drawn else ' (its box is on step 1)'}, e.g. “The capital of France is”.",
            icon="✍️",
        )
        st.stop()
    return text


def reading_note(model, run):
    c = model.config
    st.caption(
        f"The model reads {run.n} tokens. Its weights come from {md_escape(model.source)}: "
        f"{c.n_layers} blocks of {c.n_heads} query heads, d_model = {c.d_model}."
    )
    if run.n_total > run.n:
        last = display_tokens(run.tokens)[-1]
        st.warning(
            f"The prompt is {run.n_total} tokens long; this page reads the first "
            f"{MAX_CHAT_TOKENS} (up to “{md_escape(last)}”) and leaves out the other "
            f"{run.n_total - run.n}.",
            icon="✂️",
        )


def token_strip(run):
    """The tokens as the model reads them, with their ids."""
    labels = display_tokens(run.tokens)
    data_table(
        {"position": list(range(run.n)), "token": labels, "id": run.token_ids.tolist()},
        hide_index=True,
        height=min(35 * (run.n + 1) + 3, 250),
    )


# 3. The next token -------------------------------------------------------------------------------


def sampling_controls(drawn=True):
    """Temperature, top-k and the pick (or, not ``drawn``, their values: a projector's step
    without them); returns (temperature, top_k or None, pick)."""
    if not drawn:
        state = st.session_state
        return (
            float(state[KEYS["temperature"]]),
            int(state[KEYS["top_k"]]) or None,
            state[KEYS["pick"]],
        )
    left, middle, right = st.columns(3)
    temperature = left.slider(
        "Temperature T",
        min_value=MIN_CHAT_TEMPERATURE,
        max_value=MAX_CHAT_TEMPERATURE,
        step=0.1,
        key=KEYS["temperature"],
        help="p = softmax(logits / T): below 1 sharper, above 1 flatter.",
    )
    top_k = middle.number_input(
        "Top-k (0: every token)",
        min_value=0,
        max_value=MAX_CHAT_TOP_K,
        step=1,
        key=KEYS["top_k"],
        help="Keep only the k highest logits; the softmax shares 1 among them.",
    )
    pick = right.radio(
        "Generate by",
        ["likeliest", "sample"],
        key=KEYS["pick"],
        format_func={"likeliest": "the likeliest token", "sample": "drawing (seed 0)"}.get,
        horizontal=True,
    )
    return float(temperature), int(top_k) or None, pick


def next_token_chart(model, logits, temperature, top_k, *, key, title, picked_id=None):
    """The top-10 next-token probabilities as bars; returns (ids, p) of those shown."""
    p = next_token_probabilities(logits, temperature, top_k)
    ids, probs = top(p, TOP_SHOWN)
    labels = display_tokens(model.token_texts(ids))
    picked = (
        None if picked_id is None else next((i for i, t in enumerate(ids) if t == picked_id), None)
    )
    if picked is None:  # the same bars for every session with these settings: kept
        key_args = (tuple(ids.tolist()), np.asarray(probs, float).tobytes(), title)
        chart = bars_finished(model, key, *key_args, is_present(), palette())
    else:
        chart = probability_bars(probs, labels, title=title, picked=picked, value_name="p")
    draw(chart, key, config={"displaylogo": False})
    return ids, probs, p


def next_token_section(model, run, temperature, top_k):
    ids, probs, p = next_token_chart(
        model, run.next_logits, temperature, top_k, key="chat_next",
        title="The next token: the 10 likeliest",
    )  # fmt: skip
    best = display_tokens(model.token_texts(ids[:1]))[0]
    kept = int((p > 0).sum())
    st.markdown(
        f"The likeliest next token is “{md_escape(best)}” with p = {probs[0]:.3f}; the ten "
        f"shown hold {probs.sum():.3f} of the probability, shared among {kept:,} tokens "
        f"{'kept by top-k' if top_k else 'of the vocabulary'}. These p come from the last "
        "token's row of logits, softmax(logits / T): the same stable row softmax that turns "
        "S′ into A."
    )
    st.markdown(logits_sentence(model.config))


def logits_sentence(c):
    """Where the logits come from, with the model's own sizes (its config, not typed here)."""
    return (
        f"The logits: after the last of the {c.n_layers} blocks, the stream goes through a final "
        f"RMSNorm, then the output layer, which is the token embedding E itself (tied: the "
        f"{c.vocab_size:,} × {c.d_model} matrix that turned tokens into vectors). The last "
        f"token's normalised row (1 × {c.d_model}) times Eᵀ ({c.d_model} × {c.vocab_size:,}) "
        f"gives one logit per token of the vocabulary, {c.d_model} → {c.vocab_size:,}."
    )


def block_picture(model):
    """One block of the model as a picture (``charts.llama_block``), with its words: the
    decoder's whole layer, of which the page then opens the attention."""
    c = model.config
    words = (
        f"Each of the {c.n_layers} blocks: the stream x goes through RMSNorm, then attention "
        f"({c.n_heads} query heads sharing {c.n_kv_heads} key/value heads, RoPE, the causal "
        "mask), whose output is added to x (the residual path); then RMSNorm, the SwiGLU MLP "
        f"({c.d_model} → {c.d_ff} → {c.d_model}) and a second residual add. The result is the "
        "next block's x."
    )
    size = PRESENT_TEXT_PX if is_present() else TEXT_PX
    draw(block_figure(c, text_px=size), "chat_block", words=words,
         config={"displaylogo": False, "staticPlot": True})  # fmt: skip
    after_chart("block").markdown(words)
