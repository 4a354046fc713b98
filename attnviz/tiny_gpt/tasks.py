"""What the tiny GPT learns: small tasks whose answers need attention to the right place.

Each task makes batches of (ids, targets), int arrays (B, T): position t reads ids[:, :t + 1]
and is scored on predicting targets[:, t]; -1 marks a position whose answer cannot be known
(it is not scored). ``answer_positions`` says, for each query position, which key position
holds what the answer needs (-1 when no single position does): the page measures how much of
each head's weight lands there.
"""

import string
from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.limits import MAX_GPT_TEXT_CHARS, MAX_GPT_VOCAB
from attnviz.tiny_gpt.config import Config

# Jane Taylor's "The Star" (1806), public domain: the text task's default.
NURSERY_RHYME = (
    "Twinkle, twinkle, little star,\n"
    "How I wonder what you are!\n"
    "Up above the world so high,\n"
    "Like a diamond in the sky.\n"
)
MIN_TEXT_CHARS = 12  # the text task needs a few windows of at least 8 characters
VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥"}  # how the text task's charts show these characters
TEXT_CONTEXT = 24  # characters the text task's model reads at once (fewer for a short text)


@dataclass(frozen=True)
class Task:
    """A task: its vocabulary, the sequence length it needs and how to make examples."""

    name: str = ""
    title: str = ""
    explanation: str = ""  # markdown, a few lines
    vocab: tuple[str, ...] = ()  # token i's text
    context_length: int = 2
    target_loss: float = 0.1  # the loss the benchmark times (nats, on the scored positions)
    answer_name: str | None = None  # what sits at the answer position, for the page's text
    answer_short: str = "answer"  # the same in a word or two, for a panel's title

    def config(self, **sizes):
        """A Config for this task: its vocabulary and context length, and ``sizes``."""
        return Config(vocab_size=len(self.vocab), context_length=self.context_length, **sizes)

    def batch(self, rng, batch_size):
        """(ids, targets), int arrays (batch_size, T), drawn with the Generator ``rng``."""
        raise NotImplementedError

    def answer_positions(self, ids):
        """(B, T) int: the key position that holds the answer for each query, or -1."""
        return np.full(np.shape(ids), -1)

    def answer_end(self, ids):
        """How many tokens a sequence starting with ``ids`` (1-D) has when its answer is
        complete, as in training; None for a task whose sequences have no end."""
        return None

    def example(self, seed):
        """One (ids, targets) pair of 1-D arrays, the same for a seed: what the page shows."""
        ids, targets = self.batch(np.random.default_rng([seed, 3]), 1)
        return ids[0], targets[0]

    def encode(self, text):
        """Token ids of ``text`` (tokens separated by spaces); raises for unknown tokens."""
        table = {token: i for i, token in enumerate(self.vocab)}
        unknown = [token for token in text.split() if token not in table]
        if unknown:
            raise AttentionInputError(
                f"{unknown[0]!r} is not a token of this task: use {' '.join(self.vocab)}"
            )
        return np.array([table[token] for token in text.split()], dtype=np.int64)

    def decode(self, ids, sep=" "):
        """The text of token ids ``ids``: tokens joined by ``sep``."""
        return sep.join(self.vocab[i] for i in ids)

    def label(self, i):
        """Token i as a chart or table shows it."""
        return self.vocab[i]

    def default_prompt(self, seed):
        """A prompt for generation: the start of the example sequence, as text to edit."""
        ids, targets = self.example(seed)
        scored = np.flatnonzero(targets >= 0)
        stop = int(scored[len(scored) // 2]) + 1 if scored.size else len(ids)
        return self.decode(ids[:stop])


LETTERS = tuple(string.ascii_lowercase)
DIGITS = tuple(string.digits)


@dataclass(frozen=True)
class PreviousToken(Task):
    """Say the previous token: at position t the answer is the token at t - 1."""

    name: str = "previous"
    title: str = "Copy the previous token"
    explanation: str = (
        "A random string of letters; at each position the model must say the letter *before* "
        "the current one. Its own token and position do not tell it: the answer sits one "
        "position back, so a head has to learn to look there: a **previous-token head**, a "
        "pattern also found in real language models."
    )
    vocab: tuple[str, ...] = LETTERS[:10]
    context_length: int = 12

    def batch(self, rng, batch_size):
        ids = rng.integers(0, len(self.vocab), (batch_size, self.context_length))  # (B, T)
        targets = np.roll(ids, 1, axis=1)  # targets[t] = ids[t - 1]
        targets[:, 0] = -1  # position 0 has no previous token
        return ids, targets

    def answer_positions(self, ids):
        T = np.shape(ids)[1]
        return np.broadcast_to(np.arange(T) - 1, np.shape(ids))  # t - 1 (-1 at t = 0)


@dataclass(frozen=True)
class _InputOutput(Task):
    """k digits, then "|", then k answer digits: only the answer is scored."""

    k: int = 5
    vocab: tuple[str, ...] = (*DIGITS, "|")
    context_length: int = 10  # 2k tokens read: the last answer digit is never input
    answer_name: str = "the input digit that is the answer"
    answer_short: str = "answer digit"

    def outputs(self, x):
        raise NotImplementedError

    def answer_end(self, ids):
        """k answer digits after the bar: the bar's position + k + 1 (2k + 1 before a bar)."""
        bars = np.flatnonzero(np.asarray(ids) == len(self.vocab) - 1)
        return int(bars[0]) + self.k + 1 if bars.size else 2 * self.k + 1

    def draw(self, rng, batch_size):
        return rng.integers(0, 10, (batch_size, self.k))  # (B, k)

    def batch(self, rng, batch_size):
        x = self.draw(rng, batch_size)  # (B, k)
        sep = np.full((batch_size, 1), len(self.vocab) - 1)  # (B, 1) the "|" token
        seq = np.concatenate([x, sep, self.outputs(x)], axis=1)  # (B, 2k + 1)
        ids, targets = seq[:, :-1], seq[:, 1:].copy()  # (B, 2k) each: predict the next token
        targets[:, : self.k] = -1  # the input digits are random: not scored
        return ids, targets


@dataclass(frozen=True)
class Reverse(_InputOutput):
    """Write k digits backwards."""

    name: str = "reverse"
    title: str = "Reverse 5 digits"
    explanation: str = (
        "Five random digits, a bar, then the same digits backwards: `3 1 4 1 5 | 5 1 4 1 3`. "
        "Only the digits after the bar are scored. Each answer is the input digit at the "
        "mirrored position: the query at position 5 + j (the bar is at 5) must look back at "
        "position 4 − j, a pattern of positions, not of tokens."
    )
    answer_name: str = "the mirrored input digit (the answer)"

    def outputs(self, x):
        return x[:, ::-1]

    def answer_positions(self, ids):
        B, T = np.shape(ids)
        t = np.arange(T)
        where = np.where(t >= self.k, 2 * self.k - 1 - t, -1)  # query k + j reads k - 1 - j
        return np.broadcast_to(where, (B, T))


@dataclass(frozen=True)
class Sort(_InputOutput):
    """Sort k distinct digits."""

    name: str = "sort"
    title: str = "Sort 5 digits"
    explanation: str = (
        "Five different random digits, a bar, then the same digits in increasing order: "
        "`3 1 4 9 5 | 1 3 4 5 9`. Only the digits after the bar are scored. Positions do not "
        "help here: the next answer is the smallest input digit larger than the one just "
        "written (right after the bar, the smallest of all), wherever it is, so a head must "
        "learn to look by *content*."
    )
    answer_name: str = "the input digit that comes next (the answer)"

    def draw(self, rng, batch_size):
        return rng.permuted(np.tile(np.arange(10), (batch_size, 1)), axis=1)[:, : self.k]

    def outputs(self, x):
        return np.sort(x, axis=1)

    def answer_positions(self, ids):
        ids = np.asarray(ids)
        B, T = ids.shape
        where = np.full((B, T), -1)
        for t in range(self.k, T):  # query t predicts the (t - k)-th smallest input digit
            target = np.sort(ids[:, : self.k], axis=1)[:, t - self.k]  # (B,)
            where[:, t] = np.argmax(ids[:, : self.k] == target[:, None], axis=1)
        return where


@dataclass(frozen=True)
class Induction(Task):
    """A random run of letters, then the same run again: the second copy is predictable."""

    name: str = "induction"
    title: str = "Repeated random sequences (induction)"
    explanation: str = (
        "A few random letters, then a run of 3 to 6 different letters, then the same run "
        "again: `k b q d m q d m …`. The second copy is predictable, the rest is not: there, "
        "the next letter is the one that followed the current letter the first time. Where the "
        "run starts and how long it is change from sequence to sequence, so no fixed offset "
        "works: the model must find the earlier copy of the current letter and read the letter "
        "*after* it. Transformers do this with two heads in a row (Olsson et al., 2022, found "
        "such pairs in real language models): a previous-token head in layer 0 (each position "
        "learns which letter came before it) and an **induction head** in layer 1, which looks "
        "for the position whose previous letter is the current one. Only the second copy "
        "(after its first letter) is scored."
    )
    vocab: tuple[str, ...] = LETTERS[:12]
    context_length: int = 12
    min_run: int = 3
    max_run: int = 6
    target_loss: float = 0.2
    answer_name: str = "the token after the earlier copy of the current token"
    answer_short: str = "after earlier copy"

    def batch(self, rng, batch_size):
        T, V = self.context_length, len(self.vocab)
        pos = np.arange(T + 1)  # positions of the T + 1 tokens that give T inputs and targets
        m = rng.integers(self.min_run, self.max_run + 1, batch_size)  # (B,) run lengths
        p = rng.integers(0, T + 2 - 2 * m)  # (B,) random letters before the first copy
        seq = rng.integers(0, V, (batch_size, T + 1))  # (B, T + 1) random letters
        runs = rng.permuted(np.tile(np.arange(V), (batch_size, 1)), axis=1)  # (B, V) shuffled
        offset = pos[None, :] - p[:, None]  # (B, T + 1) position counted from the first copy
        in_runs = (offset >= 0) & (offset < 2 * m[:, None])  # both copies
        run_tokens = np.take_along_axis(runs, np.clip(offset % m[:, None], 0, V - 1), axis=1)
        seq = np.where(in_runs, run_tokens, seq)  # (B, T + 1)
        ids, targets = seq[:, :-1], seq[:, 1:].copy()  # (B, T) each: predict the next letter
        scored = (offset[:, 1:] > m[:, None]) & in_runs[:, 1:]  # the second copy, but its first
        targets[~scored] = -1
        return ids, targets

    def answer_positions(self, ids):
        """Query t reads position j + 1, where j < t is the last earlier position holding the
        same token as t (-1 when the token has not occurred before)."""
        ids = np.asarray(ids)
        B, T = ids.shape
        where = np.full((B, T), -1)
        for b in range(B):
            last = {}
            for t, token in enumerate(ids[b].tolist()):
                if token in last:
                    where[b, t] = last[token] + 1
                last[token] = t
        return where


@dataclass(frozen=True)
class Text(Task):
    """Predict the next character of a short text."""

    name: str = "text"
    title: str = "Next character of a short text"
    explanation: str = (
        "Character-level language modelling, as a GPT does with its tokens: windows of the "
        "training text, each character predicting the next. With one short text the model can "
        "learn much of it by heart; the panels show which earlier characters each head reads."
    )
    text: str = NURSERY_RHYME
    target_loss: float = 0.3

    def __post_init__(self):
        if len(self.text) < MIN_TEXT_CHARS:
            raise AttentionInputError(
                f"the text has {len(self.text)} characters: paste at least {MIN_TEXT_CHARS}"
            )
        if len(self.text) > MAX_GPT_TEXT_CHARS:
            raise AttentionInputError(
                f"the text has {len(self.text)} characters: paste at most {MAX_GPT_TEXT_CHARS}"
            )
        vocab = tuple(sorted(set(self.text)))
        if len(vocab) < 2:
            raise AttentionInputError(
                "the text has only one different character: there is nothing to predict; "
                "paste a text with at least two"
            )
        if len(vocab) > MAX_GPT_VOCAB:
            raise AttentionInputError(
                f"the text has {len(vocab)} different characters; the model takes at most "
                f"{MAX_GPT_VOCAB}: use a shorter text, or fewer symbols"
            )
        object.__setattr__(self, "vocab", vocab)
        object.__setattr__(self, "context_length", min(TEXT_CONTEXT, len(self.text) - 1))

    def batch(self, rng, batch_size):
        data = self.encode_text(self.text)
        T = self.context_length
        start = rng.integers(0, len(data) - T, batch_size)  # (B,) window starts
        windows = data[start[:, None] + np.arange(T + 1)]  # (B, T + 1)
        return windows[:, :-1], windows[:, 1:].copy()

    def example(self, seed):
        data = self.encode_text(self.text)[: self.context_length + 1]  # the text's beginning
        return data[:-1], data[1:].copy()

    def encode_text(self, text):
        """Character ids of ``text``; raises for a character the task's text does not have."""
        table = {c: i for i, c in enumerate(self.vocab)}
        unknown = [c for c in text if c not in table]
        if unknown:
            raise AttentionInputError(
                f"{unknown[0]!r} does not occur in the training text: the model knows only "
                "its characters"
            )
        return np.array([table[c] for c in text], dtype=np.int64)

    def encode(self, text):
        return self.encode_text(text)

    def decode(self, ids, sep=""):
        return sep.join(self.vocab[i] for i in ids)

    def label(self, i):
        """Character i, with a space, a line break or a tab made visible."""
        return VISIBLE.get(self.vocab[i], self.vocab[i])

    def default_prompt(self, seed):
        return self.text[: min(10, self.context_length)]


TASKS = {task.name: task for task in (PreviousToken, Reverse, Sort, Induction, Text)}


def make_task(name, text=None):
    """The task called ``name`` (one of TASKS); ``text`` is the text task's training text."""
    if name not in TASKS:
        raise AttentionInputError(f"no task {name!r}: choose one of {', '.join(TASKS)}")
    if name == "text" and text is not None:
        return Text(text=text)
    return TASKS[name]()
