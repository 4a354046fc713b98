"""Inside a chat model's link parameters: the prompt and the page's choices.

prompt       the text (at most MAX_TEXT_CHARS characters; the page reads its first
             MAX_CHAT_TOKENS tokens)
temperature  MIN_CHAT_TEMPERATURE .. MAX_CHAT_TEMPERATURE (1)
top_k        0 (every token) .. MAX_CHAT_TOP_K (0)
pick         likeliest | sample (likeliest)
generate     tokens generated, 0 .. MAX_CHAT_GENERATED (0)
layer, head  the head opened, 0 .. 29 and 0 .. 8 (its defaults: 0 and 0)
"""

from dataclasses import dataclass

from attnviz.limits import (
    MAX_CHAT_GENERATED,
    MAX_CHAT_TEMPERATURE,
    MAX_CHAT_TOP_K,
    MAX_TEXT_CHARS,
    MIN_CHAT_TEMPERATURE,
)
from attnviz.links.readers import read_choice, read_float, read_int, read_text

DEFAULT_PROMPT = "The capital of France is"
PICKS = {"likeliest": "likeliest", "sample": "sample"}
PARAMS = ("prompt", "temperature", "top_k", "pick", "generate", "layer", "head")
N_LAYERS, N_HEADS = 30, 9  # SmolLM2-135M's; the page checks them against the model loaded


@dataclass(frozen=True)
class ChatChoices:
    prompt: str = DEFAULT_PROMPT
    temperature: float = 1.0
    top_k: int = 0
    pick: str = "likeliest"
    generate: int = 0
    layer: int = 0
    head: int = 0

    def to_query(self):
        """The choices that differ from the defaults, as link parameters."""
        default = ChatChoices()
        return {
            name: str(getattr(self, name))
            for name in PARAMS
            if getattr(self, name) != getattr(default, name)
        }


def choices_from_query(query):
    """(ChatChoices, warnings) from a link's parameters."""
    d = ChatChoices()
    warnings = []

    def take(result):
        value, said = result
        warnings.extend(said)
        return value

    prompt = take(read_text(query, "prompt", max_chars=MAX_TEXT_CHARS, default=d.prompt))
    choices = ChatChoices(
        prompt=prompt,
        temperature=take(
            read_float(
                query,
                "temperature",
                low=MIN_CHAT_TEMPERATURE,
                high=MAX_CHAT_TEMPERATURE,
                default=d.temperature,
            )
        ),
        top_k=take(read_int(query, "top_k", low=0, high=MAX_CHAT_TOP_K, default=d.top_k)),
        pick=take(read_choice(query, "pick", PICKS, d.pick)),
        generate=take(
            read_int(query, "generate", low=0, high=MAX_CHAT_GENERATED, default=d.generate)
        ),
        layer=take(read_int(query, "layer", low=0, high=N_LAYERS - 1, default=d.layer)),
        head=take(read_int(query, "head", low=0, high=N_HEADS - 1, default=d.head)),
    )
    return choices, warnings
