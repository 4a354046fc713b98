"""The byte-level BPE tokenizer, built with ``tokenizers`` from a GGUF file's own vocabulary and
merges, and each token shown as the text a student reads.

GPT-2-style byte-level BPE stores every byte as a printable character (a space is "Ġ", a newline
"Ċ"); ``token_text`` turns a token back into its text (" capital"), and a token that is only part
of a character's UTF-8 bytes (an emoji is often two tokens) into its bytes, e.g. "<F0 9F>".
"""

from functools import cache

# SmolLM2's pre-tokenizer as transformers builds it from the GGUF file (the reference): byte
# level with GPT-2's regex. The Hub's tokenizer.json also splits digits one by one first; the
# vocabulary has no merges of digits, so both give the same ids.
ADD_PREFIX_SPACE = False


@cache
def _byte_of_char():
    """GPT-2's bytes_to_unicode, inverted: printable character -> byte."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    printable += range(ord("®"), ord("ÿ") + 1)
    chars, extra = list(printable), 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


def token_bytes(piece):
    """The bytes a byte-level token stands for ("Ġcat" -> b" cat"); special tokens as they are."""
    table = _byte_of_char()
    if all(ch in table for ch in piece):
        return bytes(table[ch] for ch in piece)
    return piece.encode("utf-8")


def token_text(piece):
    """The token as text (" cat"), or "<F0 9F>" for bytes that are not whole UTF-8 characters."""
    raw = token_bytes(piece)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return "<" + " ".join(f"{b:02X}" for b in raw) + ">"


def build_tokenizer(tokens, merges, special_ids):
    """A ``tokenizers.Tokenizer`` for ``tokens`` (id -> piece), ``merges`` ("a b" strings, in
    order) and the ids of the special (control) tokens.

    Typed text is text: "<|im_end|>" typed by a student is read as characters, so the only
    special tokens are the ones the code adds (the chat template's).
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    vocab = {piece: i for i, piece in enumerate(tokens)}
    if len(vocab) != len(tokens):
        raise ValueError("the vocabulary holds the same token twice")
    pairs = [tuple(merge.split(" ", 1)) for merge in merges]
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(
        add_prefix_space=ADD_PREFIX_SPACE, use_regex=True
    )
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens(
        [AddedToken(tokens[i], special=True, normalized=False) for i in special_ids]
    )
    tokenizer.encode_special_tokens = True
    return tokenizer
