"""OpenAI's GPT-2 around the book's MultiHeadAttention: the smallest GPT that yields the real attention.

The model is chapter 4's GPTModel with GPT-2's names for the parts; chapter 5's `load_weights_into_gpt`
is `_book_state_dict` here: GPT-2 stores its linear layers as Conv1D, (in, out), and one `c_attn` for
queries, keys and values, so it is split in three and transposed into the book's nn.Linear layers.

    model = load("/path/to/gpt2")        # or load("gpt2"): the hub's copy, downloaded once into its cache
    ids, tokens = tokenize("Your journey starts with one step", "/path/to/gpt2")
    model.attention_weights(torch.tensor([ids]))   # one (1, 12, T, T) tensor per layer

`python -m attention_core.models.gpt2 --download` fetches the hub's copy (about 550 MB) into the usual cache.
"""
import functools
import json
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn
from safetensors.torch import load_file

from attention_core.models.gpt2_tokenizer import Tokenizer
from attention_core.book.modules import MultiHeadAttention

HUB_ID = "gpt2"
FILES = ("config.json", "model.safetensors", "vocab.json", "merges.txt")
TOKENIZER_FILES = ("vocab.json", "merges.txt")


@dataclass(frozen=True)
class GPT2Config:
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    vocab_size: int = 50257
    n_positions: int = 1024
    layer_norm_epsilon: float = 1e-5
    gelu: str = "tanh"  # GPT-2's "gelu_new" is the tanh approximation

    @classmethod
    def from_json(cls, path) -> "GPT2Config":
        raw = json.loads(Path(path).read_text())
        exact = raw.get("activation_function", "gelu_new") == "gelu"
        return cls(raw["n_layer"], raw["n_head"], raw["n_embd"], raw["vocab_size"],
                   raw.get("n_positions", raw.get("n_ctx", 1024)), raw.get("layer_norm_epsilon", 1e-5),
                   "none" if exact else "tanh")


class Block(nn.Module):
    """LayerNorm -> the book's MultiHeadAttention -> residual; LayerNorm -> GELU feed-forward -> residual."""

    def __init__(self, cfg: GPT2Config):
        super().__init__()
        d = cfg.n_embd
        self.ln_1 = nn.LayerNorm(d, eps=cfg.layer_norm_epsilon)
        self.attn = MultiHeadAttention(d, d, cfg.n_positions, 0.0, cfg.n_head, qkv_bias=True)
        self.ln_2 = nn.LayerNorm(d, eps=cfg.layer_norm_epsilon)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate=cfg.gelu), nn.Linear(4 * d, d))

    def forward(self, x):  # (b, T, d)
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    def __init__(self, cfg: GPT2Config):
        super().__init__()
        self.config = cfg
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.n_positions, cfg.n_embd)
        self.h = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)

    @property
    def attention_modules(self) -> list[MultiHeadAttention]:
        return [block.attn for block in self.h]

    def _embed(self, ids):  # (b, T) -> (b, T, d)
        positions = torch.arange(ids.shape[1], device=ids.device)
        return self.wte(ids) + self.wpe(positions)

    def forward(self, ids):
        x = self._embed(ids)
        for block in self.h:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.T  # tied embedding: (b, T, vocab)

    @torch.no_grad()
    def attention_inputs(self, ids) -> list[torch.Tensor]:
        """What enters each layer's MultiHeadAttention (after ln_1): one (b, T, d) per layer."""
        x, inputs = self._embed(ids), []
        for block in self.h:
            inputs.append(block.ln_1(x))
            x = block(x)
        return inputs

    @torch.no_grad()
    def attention_weights(self, ids) -> list[torch.Tensor]:
        """One (b, n_head, T, T) tensor per layer, from the book's own trace."""
        x, weights = self._embed(ids), []
        for block in self.h:
            record = block.attn.trace(block.ln_1(x))
            weights.append(record["attn_weights"])
            x = x + record["context_vec"]
            x = x + block.mlp(block.ln_2(x))
        return weights

    @torch.no_grad()
    def predict_next(self, ids, k: int = 5) -> list[tuple[int, float]]:
        """The k most likely next tokens after the last one of ids[0], with their probabilities."""
        probs = torch.softmax(self(ids)[0, -1].float(), dim=-1)  # (vocab,)
        top = torch.topk(probs, k)
        return [(int(i), float(p)) for p, i in zip(top.values, top.indices)]


def _book_state_dict(raw: dict[str, torch.Tensor], cfg: GPT2Config) -> dict[str, torch.Tensor]:
    """GPT-2's tensors under this model's names, as the book's load_weights_into_gpt maps them.

    Conv1D weights are (in, out): `.T` gives nn.Linear's (out, in) as a view, without a copy.
    """
    raw = {name.removeprefix("transformer."): t for name, t in raw.items()}
    mask = torch.triu(torch.ones(cfg.n_positions, cfg.n_positions), diagonal=1)  # one buffer shared by all layers
    state = {"wte.weight": raw["wte.weight"], "wpe.weight": raw["wpe.weight"],
             "ln_f.weight": raw["ln_f.weight"], "ln_f.bias": raw["ln_f.bias"]}
    for i in range(cfg.n_layer):
        g = b = f"h.{i}."  # the same names on both sides, below the block
        q_w, k_w, v_w = raw[g + "attn.c_attn.weight"].split(cfg.n_embd, dim=-1)  # 3 x (d, d), (in, out)
        q_b, k_b, v_b = raw[g + "attn.c_attn.bias"].split(cfg.n_embd, dim=-1)
        state |= {
            b + "ln_1.weight": raw[g + "ln_1.weight"], b + "ln_1.bias": raw[g + "ln_1.bias"],
            b + "attn.W_query.weight": q_w.T, b + "attn.W_query.bias": q_b,
            b + "attn.W_key.weight": k_w.T, b + "attn.W_key.bias": k_b,
            b + "attn.W_value.weight": v_w.T, b + "attn.W_value.bias": v_b,
            b + "attn.out_proj.weight": raw[g + "attn.c_proj.weight"].T, b + "attn.out_proj.bias": raw[g + "attn.c_proj.bias"],
            b + "attn.mask": mask,
            b + "ln_2.weight": raw[g + "ln_2.weight"], b + "ln_2.bias": raw[g + "ln_2.bias"],
            b + "mlp.0.weight": raw[g + "mlp.c_fc.weight"].T, b + "mlp.0.bias": raw[g + "mlp.c_fc.bias"],
            b + "mlp.2.weight": raw[g + "mlp.c_proj.weight"].T, b + "mlp.2.bias": raw[g + "mlp.c_proj.bias"],
        }
    return state


def load_dir(directory) -> GPT2:
    """A model from a directory in the hub's layout: config.json + model.safetensors."""
    directory = Path(directory)
    cfg = GPT2Config.from_json(directory / "config.json")
    raw = {name: t.float() for name, t in load_file(directory / "model.safetensors").items()}
    with torch.device("meta"):  # no random init: the loaded tensors become the parameters themselves
        model = GPT2(cfg)
    model.load_state_dict(_book_state_dict(raw, cfg), assign=True)
    return model.eval()


class WeightsUnavailable(RuntimeError):
    """No local copy, and the hub could not be reached (or offline mode is on)."""


def hub_reachable(seconds: float = 3.0) -> bool:
    """Whether the hub answers a TCP connection within `seconds` (DNS included: it runs in a thread)."""
    from urllib.parse import urlparse

    from huggingface_hub import constants
    if constants.HF_HUB_OFFLINE:
        return False
    host = urlparse(constants.ENDPOINT).hostname
    result = []

    def connect():
        try:
            socket.create_connection((host, 443), timeout=seconds).close()
            result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(seconds)
    return bool(result and result[0])


def locate(source: str | os.PathLike = HUB_ID, download: bool = False, tqdm_class=None, needs=FILES) -> Path:
    """The directory holding the files: `source` itself, or the hub's cached snapshot of that id.

    Without `download` only the local cache is consulted (instant, no network). With it, a missing
    copy is fetched once, unless offline mode is on or the hub does not answer within 3 seconds.
    """
    path = Path(source).expanduser()
    if path.is_dir():
        missing = [f for f in needs if not (path / f).is_file()]
        if missing:
            raise WeightsUnavailable(f"{path} lacks {', '.join(missing)}")
        return path
    if str(source).startswith(("/", ".", "~")) or str(source).count("/") > 1:  # a path, not "owner/name"
        raise WeightsUnavailable(f"{path} is not a directory")
    from huggingface_hub import snapshot_download
    try:
        return Path(snapshot_download(str(source), allow_patterns=list(FILES), local_files_only=True))
    except Exception as cached_miss:  # not in the cache (LocalEntryNotFoundError and friends)
        if not download:
            raise WeightsUnavailable(f"{source} is not in the Hugging Face cache") from cached_miss
    if not hub_reachable():
        raise WeightsUnavailable(f"{source} is not in the Hugging Face cache and the hub cannot be reached "
                                 "(offline mode, or no network)")
    try:
        return Path(snapshot_download(str(source), allow_patterns=list(FILES), tqdm_class=tqdm_class,
                                      etag_timeout=3))
    except Exception as error:  # a firewall, a timeout, a missing repository: all mean "not now"
        raise WeightsUnavailable(f"could not download {source}: {type(error).__name__}: {error}") from error


def load(source: str | os.PathLike = HUB_ID, download: bool = True, tqdm_class=None) -> GPT2:
    """A local directory in the hub's layout, or a hub id ("gpt2") fetched once into the hub's cache."""
    return load_dir(locate(source, download, tqdm_class))


@functools.lru_cache(maxsize=4)
def load_tokenizer(directory: Path) -> Tokenizer:
    return Tokenizer.from_dir(directory)


def tokenize(text: str, source: str | os.PathLike = HUB_ID) -> tuple[list[int], list[str]]:
    """GPT-2's token ids for `text` (as tiktoken's "gpt2" encoding) and each token as text."""
    tokenizer = load_tokenizer(locate(source, needs=TOKENIZER_FILES))
    ids = tokenizer.encode(text)
    return ids, [tokenizer.token_text(i) for i in ids]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Fetch OpenAI's GPT-2 124M into the Hugging Face cache and try it.")
    parser.add_argument("--download", action="store_true", help="download config, weights and tokenizer files")
    parser.add_argument("--source", default=HUB_ID, help="hub id or local directory (default: gpt2)")
    args = parser.parse_args()
    try:
        found = locate(args.source, download=args.download)
    except WeightsUnavailable as error:
        raise SystemExit(f"GPT-2 is not available: {error}")
    print(f"GPT-2 files in {found}")
    ids, tokens = tokenize("Your journey starts with one step", found)
    top = load_dir(found).predict_next(torch.tensor([ids]))
    print(tokens, "->", [(load_tokenizer(found).token_text(i), round(p, 3)) for i, p in top])
