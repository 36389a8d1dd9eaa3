"""GPT-2's byte-level BPE tokenizer, read from a local vocab.json and merges.txt.

The same algorithm as OpenAI's encoder.py and tiktoken's `gpt2` encoding (which the book uses):
split the text with GPT-2's regular expression, map each piece's UTF-8 bytes to printable
characters, then apply the merges in rank order. Works fully offline.
"""
import functools
import json
from pathlib import Path

import regex

# GPT-2's pre-tokenizer: contractions, letters, digits, other symbols, whitespace (\p{..} needs `regex`).
PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


@functools.lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """Each of the 256 byte values -> a printable character (spaces and controls moved above 255)."""
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


class Tokenizer:
    def __init__(self, vocab: dict[str, int], merges: list[tuple[str, str]]):
        self.encoder = vocab  # BPE string -> id
        self.decoder = {i: s for s, i in vocab.items()}
        self.ranks = {pair: rank for rank, pair in enumerate(merges)}
        self.byte_encoder = bytes_to_unicode()
        self.byte_decoder = {c: b for b, c in self.byte_encoder.items()}
        self._cache: dict[str, list[str]] = {}

    @classmethod
    def from_dir(cls, directory) -> "Tokenizer":
        directory = Path(directory)
        vocab = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
        merges = []
        for line in (directory / "merges.txt").read_text(encoding="utf-8").splitlines():
            if line.startswith("#version") or not line.strip():
                continue
            first, second = line.split()
            merges.append((first, second))
        return cls(vocab, merges)

    def bpe(self, piece: str) -> list[str]:
        """Merge the lowest-ranked adjacent pair until no known merge remains."""
        if piece in self._cache:
            return self._cache[piece]
        parts = list(piece)
        while len(parts) > 1:
            pairs = {(a, b) for a, b in zip(parts, parts[1:])}
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            merged, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and (parts[i], parts[i + 1]) == best:
                    merged.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        if len(self._cache) < 10_000:
            self._cache[piece] = parts
        return parts

    def encode(self, text: str) -> list[int]:
        ids = []
        for piece in PATTERN.findall(text):
            mapped = "".join(self.byte_encoder[b] for b in piece.encode("utf-8"))
            ids.extend(self.encoder[token] for token in self.bpe(mapped))
        return ids

    def token_bytes(self, token_id: int) -> bytes:
        return bytes(self.byte_decoder[c] for c in self.decoder[token_id])

    def token_text(self, token_id: int) -> str:
        """One token as readable text (a piece of a multi-byte character shows as �).

        An id the vocabulary lacks (a model may pad its embedding past the tokenizer's size) reads <id>.
        """
        if token_id not in self.decoder:
            return f"<{token_id}>"
        return self.token_bytes(token_id).decode("utf-8", errors="replace")

    def decode(self, ids: list[int]) -> str:
        return b"".join(self.token_bytes(i) for i in ids).decode("utf-8", errors="replace")
