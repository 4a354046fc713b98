r"""A tiny GPT in numpy: train a decoder-only Transformer and watch its attention heads learn.

Glossary (the names of the lessons, and nanoGPT's B, T):

    B        sequences in a batch;  T  tokens per sequence (at most ``context_length``)
    V        vocabulary size;  D = d_model  the width of the residual stream
    H        heads per layer;  d_k = D / H  the width of one head's queries, keys and values
    ids      (B, T) int token ids;  targets (B, T) the next token to predict, -1 if not scored

Each head computes exactly the lessons' formula, with the causal mask of a GPT:

.. math::

    A = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}} + M\right), \quad
    \mathrm{head} = AV, \quad Q = XW_Q^h,\ K = XW_K^h,\ V = XW_V^h

where X is the layer's normalised input and M is 0 on and below the diagonal, -inf above it
(query t sees keys 0..t). ``layers.causal_softmax`` calls ``attnviz.core.masked_softmax``, the
softmax of ``self_attention``, so head h of layer l equals
``self_attention(X, W_Q[:, h*d_k:(h+1)*d_k], ..., mask=causal_mask(T))`` (tested).

Modules: ``config`` (Config, init_params), ``layers`` (each piece's forward and backward),
``model`` (forward, loss_and_grads), ``training`` (Adam, train, TrainRun), ``sampling`` (generate),
``tasks`` (what it learns), ``heads`` (what each head looks at), ``report`` (what the page
says about a run, computed) and ``settings`` (the page's choices and their URL form). numpy
only.
"""

from attnviz.tiny_gpt.config import Config, init_params, param_shapes
from attnviz.tiny_gpt.heads import head_patterns, head_sentence, strongest
from attnviz.tiny_gpt.model import Trace, forward, loss, loss_and_grads, next_token_logits
from attnviz.tiny_gpt.sampling import generate, next_token_probs, sampling_probs
from attnviz.tiny_gpt.tasks import TASKS, Task, make_task
from attnviz.tiny_gpt.training import Adam, TrainingTooSlowError, TrainRun, train

__all__ = [
    "TASKS",
    "Adam",
    "Config",
    "Task",
    "Trace",
    "TrainRun",
    "TrainingTooSlowError",
    "forward",
    "generate",
    "head_patterns",
    "head_sentence",
    "init_params",
    "loss",
    "loss_and_grads",
    "make_task",
    "next_token_logits",
    "next_token_probs",
    "param_shapes",
    "sampling_probs",
    "strongest",
    "train",
]
