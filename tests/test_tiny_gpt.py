"""The tiny GPT: every gradient against finite differences, each head against the lessons'
self_attention, the tasks, training (what the heads learn, determinism), and generation."""

import itertools

import numpy as np
import pytest

import attnviz
from attnviz import causal_mask, multi_head_attention, self_attention
from attnviz.links.tiny_gpt import QUERY_NAMES, choice_from_query, default_choice
from attnviz.tiny_gpt import (
    Config,
    TrainingTooSlowError,
    forward,
    generate,
    head_patterns,
    init_params,
    loss,
    loss_and_grads,
    make_task,
    next_token_logits,
    sampling_probs,
    train,
)
from attnviz.tiny_gpt import layers as nn
from attnviz.tiny_gpt.report import checkpoint_report, compare_scaling, scaling_sentences
from attnviz.tiny_gpt.tasks import NURSERY_RHYME, Induction
from attnviz.tiny_gpt.training import N_CHECKPOINTS, checkpoint_schedule

# Gradients -------------------------------------------------------------------------------------

EPS = 1e-5  # central differences in float64: truncation ~EPS^2, rounding ~1e-16 / EPS
ENTRIES = 6  # entries checked per parameter, drawn at random (every parameter is checked)


def numerical_grad(params, config, ids, targets, name, index):
    P = params[name]
    old = P[index]
    P[index] = old + EPS
    up = loss(params, config, ids, targets)
    P[index] = old - EPS
    down = loss(params, config, ids, targets)
    P[index] = old
    return (up - down) / (2 * EPS)


@pytest.mark.parametrize(
    ("n_layers", "mlp", "scale"), list(itertools.product((1, 2), (False, True), (True, False)))
)
def test_every_gradient_matches_central_differences(n_layers, mlp, scale):
    rng = np.random.default_rng([n_layers, mlp, scale])
    n_heads = int(rng.integers(1, 3))
    config = Config(
        vocab_size=int(rng.integers(4, 8)),
        context_length=7,
        d_model=4 * n_heads,
        n_layers=n_layers,
        n_heads=n_heads,
        mlp=mlp,
        scale=scale,
        seed=int(rng.integers(100)),
    )
    params = init_params(config)
    T = 6  # shorter than the context: W_pos's last row gets no gradient
    ids = rng.integers(0, config.vocab_size, (3, T))
    targets = rng.integers(-1, config.vocab_size, (3, T))  # -1: some positions not scored
    value, grads = loss_and_grads(params, config, ids, targets)
    assert value == loss(params, config, ids, targets)
    assert grads.keys() == params.keys()
    for name, P in params.items():
        assert grads[name].shape == P.shape
        picks = rng.choice(P.size, size=min(ENTRIES, P.size), replace=False)
        worst = 0.0
        for flat_index in picks:
            index = np.unravel_index(flat_index, P.shape)
            numerical = numerical_grad(params, config, ids, targets, name, index)
            worst = max(worst, abs(numerical - grads[name][index]))
        scale_of = np.abs(grads[name]).max()
        if scale_of == 0:  # e.g. a position no sequence reached
            assert worst < 1e-12, name
        else:
            assert worst / scale_of < 1e-6, (name, worst / scale_of)


def test_an_unused_position_gets_no_gradient():
    config = Config(vocab_size=5, context_length=8, d_model=4)
    ids, targets = np.zeros((2, 5), int), np.ones((2, 5), int)
    _, grads = loss_and_grads(init_params(config), config, ids, targets)
    assert not grads["W_pos"][5:].any() and grads["W_pos"][:5].any()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scale", [True, False])
def test_the_dtype_chosen_is_the_dtype_computed(dtype, scale):
    # float32 must hold through attention, the logits and the gradients: a float64 divisor
    # (np.sqrt(d_k)) once promoted every score after it.
    config = Config(vocab_size=5, context_length=6, d_model=8, n_layers=2, n_heads=2, mlp=True,
                    scale=scale, dtype=dtype)  # fmt: skip
    params, ids = init_params(config), np.arange(12).reshape(2, 6) % 5
    trace = forward(params, config, ids)
    assert {trace.logits.dtype, trace.attention.dtype, trace.head_inputs.dtype} == {np.dtype(dtype)}
    _, grads = loss_and_grads(params, config, ids, ids)
    assert {g.dtype for g in grads.values()} == {np.dtype(dtype)}


# The lessons' formula --------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [True, False])
def test_each_head_is_self_attention_with_the_causal_mask(scale):
    config = Config(vocab_size=7, context_length=6, d_model=12, n_layers=2, n_heads=3, scale=scale)
    params = init_params(config)
    ids = np.random.default_rng(1).integers(0, 7, (2, 6))
    trace = forward(params, config, ids)
    d_k = config.d_k
    for layer, b, h in itertools.product(range(2), range(2), range(3)):
        cols = slice(h * d_k, (h + 1) * d_k)
        X = trace.head_inputs[layer, b]  # (T, d_model): LN_1 of the residual stream
        r = self_attention(
            X,
            params[f"{layer}.W_Q"][:, cols],
            params[f"{layer}.W_K"][:, cols],
            params[f"{layer}.W_V"][:, cols],
            mask=causal_mask(6),
            scale=scale,
        )
        np.testing.assert_allclose(trace.attention[layer, b, h], r.attention, rtol=0, atol=1e-13)


def test_the_attention_layer_is_the_lessons_multi_head_attention():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((2, 5, 8))
    W_Q, W_K, W_V, W_O = (rng.standard_normal((8, 8)) / 3 for _ in range(4))
    out, cache = nn.attention(X, W_Q, W_K, W_V, W_O, 2, True)
    for b in range(2):
        mh = multi_head_attention(X[b], W_Q, W_K, W_V, W_O, n_heads=2, mask=causal_mask(5))
        np.testing.assert_allclose(out[b], mh.output, rtol=0, atol=1e-12)
        np.testing.assert_allclose(cache["A"][b], mh.attention, rtol=0, atol=1e-13)


# Tasks -----------------------------------------------------------------------------------------


def test_each_task_makes_what_it_says():
    rng = np.random.default_rng(0)
    ids, targets = make_task("previous").batch(rng, 4)
    assert (targets[:, 0] == -1).all() and (targets[:, 1:] == ids[:, :-1]).all()
    for name, order in (("reverse", lambda x: x[:, ::-1]), ("sort", lambda x: np.sort(x, 1))):
        task = make_task(name)
        ids, targets = task.batch(rng, 4)
        assert (ids[:, 5] == 10).all()  # the bar
        assert (targets[:, :5] == -1).all() and (targets[:, 5:] == order(ids[:, :5])).all()
        where = task.answer_positions(ids)
        rows = np.arange(4)[:, None]
        assert (ids[rows, where[:, 5:]] == targets[:, 5:]).all()  # the answer sits there
    task = make_task("induction")
    ids, targets = task.batch(rng, 64)
    where = task.answer_positions(ids)
    b, t = np.nonzero(targets >= 0)
    assert b.size and (targets[b, t] == ids[b, where[b, t]]).all()  # the token after
    assert (ids[b, where[b, t] - 1] == ids[b, t]).all()  # the earlier copy of the current one
    text = make_task("text")
    ids, targets = text.batch(rng, 3)
    assert all(text.decode(row) in NURSERY_RHYME for row in ids)
    assert (ids[:, 1:] == targets[:, :-1]).all()


def test_bad_ids_and_targets_are_refused_with_what_was_wrong():
    config = Config(vocab_size=5, context_length=4)
    params = init_params(config)
    for ids, targets, match in (
        (np.zeros((2, 5), int), np.zeros((2, 5), int), "context_length=4"),
        (np.full((1, 3), 5), np.zeros((1, 3), int), "vocab_size - 1 = 4"),
        (np.zeros((1, 3), int), np.full((1, 3), -1), "at least one position"),
        (np.zeros((1, 3), int), np.zeros((1, 3)), "ints"),
    ):
        with pytest.raises(ValueError, match=match):
            loss_and_grads(params, config, ids, targets)


def test_a_text_with_too_many_symbols_or_too_short_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="at least"):
        make_task("text", "short")
    with pytest.raises(ValueError, match="at least two"):
        make_task("text", "a" * 40)
    with pytest.raises(ValueError, match="different characters"):
        make_task("text", "".join(chr(0x400 + i) for i in range(200)))


# Training --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def previous_run():
    choice = default_choice("previous")
    return train(choice.config(), choice.make_task(), choice.steps)


def test_the_previous_token_task_is_learned_by_a_previous_token_head(previous_run):
    task = previous_run.task
    assert previous_run.eval_losses[-1] < 0.1
    ids, targets = task.batch(np.random.default_rng(99), 16)  # sequences never trained on
    assert loss(previous_run.params, previous_run.config, ids, targets) < 0.1
    weights = np.mean([head_patterns(previous_run.attention(row))["previous"] for row in ids], 0)
    assert weights.max() > 0.9  # the best head: over 0.9 of its weight on the previous token
    report = checkpoint_report(previous_run, seed=0)
    assert "now puts" in report.frame_titles[-1] and "previous token" in report.frame_titles[-1]
    assert report.frame_titles[0].startswith(f"Step 0 of {previous_run.steps} (random weights)")


def test_induction_needs_two_layers():
    task = make_task("induction")
    ids, targets = task.batch(np.random.default_rng(7), 64)  # scored: the second copy only
    second_half = {}
    for n_layers in (1, 2):
        run = train(task.config(n_layers=n_layers, n_heads=2, d_model=24), task, 400)
        second_half[n_layers] = loss(run.params, run.config, ids, targets)
    assert second_half[2] < 0.2 < 0.5 < second_half[1], second_half


def test_training_is_deterministic_for_a_seed():
    task = make_task("reverse")
    runs = [train(task.config(d_model=12, seed=seed), task, 15) for seed in (3, 3, 4)]
    np.testing.assert_array_equal(runs[0].losses, runs[1].losses)
    for a, b in zip(runs[0].checkpoints, runs[1].checkpoints, strict=True):
        assert all(np.array_equal(a[name], b[name]) for name in a)
    assert not np.array_equal(runs[0].losses, runs[2].losses)


def test_checkpoints_are_a_few_dozen_evenly_spaced_from_the_start():
    steps = checkpoint_schedule(600)
    assert len(steps) == N_CHECKPOINTS and steps[0] == 0 and steps[-1] == 600
    assert np.ptp(np.diff(steps)) <= 1
    assert checkpoint_schedule(5).tolist() == [0, 1, 2, 3, 4, 5]


def test_a_run_over_its_time_limit_is_refused_with_how_to_shrink_it():
    task = make_task("previous")
    with pytest.raises(TrainingTooSlowError, match="steps or fewer, or a smaller model"):
        train(task.config(), task, 10_000, time_limit=1e-3)


def test_the_scaling_comparison_is_measured(previous_run):
    task = previous_run.task
    unscaled = train(task.config(d_model=24, n_heads=2, scale=False), task, previous_run.steps)
    ids, _ = task.example(0)
    c = compare_scaling(previous_run, unscaled, ids)
    assert c.d_k == 12 and c.start_weight[1] > c.start_weight[0]  # unscaled rows start sharper
    start, learn = scaling_sentences(c)
    assert f"{c.start_weight[1]:.2f}" in start and f"{c.final_loss[1]:.3f}" in learn


# Generation ------------------------------------------------------------------------------------


def test_temperature_zero_is_argmax_decoding(previous_run):
    params, config = previous_run.params, previous_run.config
    prompt = np.array([1, 4, 2])
    greedy = list(prompt)
    for _ in range(8):
        greedy.append(int(np.argmax(next_token_logits(params, config, np.array(greedy)))))
    for temperature in (0.0, 1e-9):
        out = generate(params, config, prompt, 8, temperature=temperature, seed=5)
        assert out.tolist() == greedy
    assert generate(params, config, prompt, 8, top_k=1, seed=1).tolist() == greedy


def test_sampling_is_reproducible_and_respects_top_k():
    config = Config(vocab_size=6, context_length=4, d_model=4)
    params = init_params(config)
    a = generate(params, config, [0], 12, temperature=2.0, top_k=3, seed=9)
    assert (
        a.tolist() == generate(params, config, [0], 12, temperature=2.0, top_k=3, seed=9).tolist()
    )
    logits = np.array([0.5, 2.0, -1.0, 2.0, 0.0])
    p = sampling_probs(logits, temperature=0.5, top_k=3)
    kept = [1, 3, 0]
    z = np.exp(logits[kept] / 0.5)
    np.testing.assert_allclose(p[kept], z / z.sum())
    assert p[[2, 4]].tolist() == [0, 0]
    with pytest.raises(ValueError, match="temperature"):
        sampling_probs(logits, temperature=-1)


# The page's URL --------------------------------------------------------------------------------


def test_link_values_are_clamped_or_ignored_with_a_warning_never_raised():
    query = {
        "gpt_task": "induction",
        "gpt_layers": "9",
        "gpt_heads": "x",
        "gpt_dmodel": "30",
        "gpt_mlp": "maybe",
        "gpt_steps": "5",
    }
    choice, warnings = choice_from_query(query, seed=4)
    assert (choice.task, choice.n_layers, choice.n_heads, choice.d_model) == ("induction", 2, 2, 24)
    assert choice.steps == 10 and choice.seed == 4 and not choice.mlp
    assert len(warnings) == 5
    choice, warnings = choice_from_query({"gpt_task": "nope", "gpt_text": "x" * 5000})
    assert choice == default_choice("previous") and "not one of" in warnings[0]
    choice, warnings = choice_from_query({"gpt_task": "text", "gpt_text": "<b>" * 10})
    assert choice.text == "<b>" * 10 and not warnings


def test_the_page_names_are_no_misspelt_shared_setting():
    _, warnings = attnviz.from_query(dict.fromkeys(QUERY_NAMES, "1"))
    assert warnings == []


def test_induction_answers_are_found_in_any_sequence():
    task = Induction()
    ids = task.encode("a b c a b c d")[None]
    assert task.answer_positions(ids)[0].tolist() == [-1, -1, -1, 1, 2, 3, -1]


# Charts ----------------------------------------------------------------------------------------


def test_the_charts_escape_tokens_and_keep_one_bar_per_token():
    from attnviz.charts.training import checkpoint_figure, next_token_chart

    labels = ["<b>", "a", "&", "a "]
    fig = next_token_chart(np.array([0.1, 0.2, 0.3, 0.4]), labels, chosen=3)
    assert fig.layout.xaxis.ticktext == ("&lt;b&gt;", "a", "&amp;", "a ")
    assert list(fig.data[0].customdata) == ["&lt;b&gt;", "a", "&amp;", "a "]
    A = np.random.default_rng(0).random((3, 1, 2, 4, 4))
    titles = [["x", "y"]] * 3
    fig = checkpoint_figure(A, labels, [0, 5, 10], ["a<br>b", "c", "<i>"], titles, n_heads=2)
    assert [f.name for f in fig.frames] == ["0", "5", "10"]
    assert fig.frames[2].layout.title.text == "&lt;i&gt;"
    assert fig.frames[0].layout.title.text == "a<br>b"
    z = np.asarray(fig.frames[1].data[1].z, dtype=float)
    assert np.isnan(z[0, 1]) and z[1, 0] == np.float32(A[1, 0, 1, 1, 0])
