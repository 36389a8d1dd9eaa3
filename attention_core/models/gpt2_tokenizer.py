"""GPT-2's tokenizer: tiktoken (the book's tokenizer) built from a local vocab.json and merges.txt.

tiktoken's named "gpt2" encoding downloads OpenAI's encoder.json and vocab.bpe, which are the hub's
vocab.json and merges.txt under other names. So the same Encoding is built here from the files next to the
weights, with the same pattern string and end-of-text token: no network, and the ids of tiktoken's "gpt2".
"""
import functools
import json
from pathlib import Path

import tiktoken
from tiktoken_ext.openai_public import ENDOFTEXT, r50k_pat_str  # what tiktoken's own gpt2() passes

SPECIAL = (ENDOFTEXT, "<|startoftext|>")  # in vocab.json, but never the result of a merge


@functools.lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """Each of the 256 byte values -> the printable character that stands for it in vocab.json and
    merges.txt (spaces and control bytes moved above 255: the space byte is "Ġ")."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def read_ranks(directory: Path) -> tuple[dict[bytes, int], dict[str, int]]:
    """vocab.json as tiktoken wants it: each token's bytes -> its id, and the special tokens apart.

    tiktoken merges the pair whose joined bytes have the lowest id, so an id must be the merge's line in
    merges.txt (after the 256 single bytes). tiktoken's data_gym_to_mergeable_bpe_ranks checks the same,
    but it also copies both files into a temp-folder cache keyed by their path, which would go stale
    when the files at that path change: hence this reader.
    """
    byte_of = {c: b for b, c in bytes_to_unicode().items()}
    vocab = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
    special = {token: i for token, i in vocab.items() if token in SPECIAL}
    ranks = {bytes(byte_of[c] for c in token): i for token, i in vocab.items() if token not in SPECIAL}
    lines = (directory / "merges.txt").read_text(encoding="utf-8").splitlines()
    merges = [line.split() for line in lines if line.strip() and not line.startswith("#version")]
    in_order = all(ranks.get(bytes(byte_of[c] for c in a + b)) == 256 + n for n, (a, b) in enumerate(merges))
    if not in_order or len(ranks) != 256 + len(merges):
        raise ValueError(f"{directory}: vocab.json's ids do not follow merges.txt's order, as GPT-2's do")
    return ranks, special


class Tokenizer:
    """encode/decode with tiktoken; token_text shows one token (ids past the vocabulary read <id>)."""

    def __init__(self, encoding: tiktoken.Encoding):
        self.encoding = encoding

    @classmethod
    def from_dir(cls, directory) -> "Tokenizer":
        directory = Path(directory)
        ranks, special = read_ranks(directory)
        return cls(tiktoken.Encoding(f"gpt2 ({directory})", pat_str=r50k_pat_str,
                                     mergeable_ranks=ranks, special_tokens=special))

    def encode(self, text: str) -> list[int]:
        # ordinary: "<|endoftext|>" typed by a reader is text, split like any other (as GPT-2's encoder.py)
        return self.encoding.encode_ordinary(text)

    def token_bytes(self, token_id: int) -> bytes:
        return self.encoding.decode_single_token_bytes(token_id)

    def token_text(self, token_id: int) -> str:
        """One token as readable text (a piece of a multi-byte character shows as �).

        An id the vocabulary lacks (a model may pad its embedding past the tokenizer's size) reads <id>.
        """
        try:
            return self.token_bytes(token_id).decode("utf-8", errors="replace")
        except KeyError:
            return f"<{token_id}>"

    def decode(self, ids: list[int]) -> str:
        return self.encoding.decode(ids, errors="replace")
