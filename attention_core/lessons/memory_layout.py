"""Where the heads live in memory: the chapter's split and merge, step by step, as PyTorch sees it.

`MultiHeadAttention` never moves a head into a memory of its own. `view` and `transpose` only
change the *strides* (how many floats to skip per step along each dimension) over the same
storage; matmul writes new tensors; `contiguous()` copies. Every number here is read from PyTorch
(`stride()`, `storage_offset()`, `is_contiguous()`, `untyped_storage().data_ptr()`), never worked
out by hand. Plain PyTorch: no Streamlit.
"""
from dataclasses import dataclass

import torch

from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded

MAX_TOKENS, MAX_HEADS, MAX_HEAD_DIM = 8, 4, 4  # small enough to draw every float


@dataclass(frozen=True)
class Step:
    code: str  # the chapter's line
    tensor: torch.Tensor
    tokens: torch.Tensor  # same shape: the token (0-based) each element belongs to
    heads: torch.Tensor  # same shape: its head
    pick: tuple | None  # index of the picked (token, head, dim) element here; None where there is none

    @property
    def storage(self) -> int:
        return self.tensor.untyped_storage().data_ptr()


def _twins(num_tokens: int, num_heads: int, head_dim: int):
    """Token and head of each element of a (1, T, d_out) projection, in the same layout."""
    d_out = num_heads * head_dim
    tokens = torch.arange(num_tokens).view(1, num_tokens, 1).expand(1, num_tokens, d_out).contiguous()
    heads = (torch.arange(d_out) // head_dim).view(1, 1, d_out).expand(1, num_tokens, d_out).contiguous()
    return tokens, heads  # (1, T, d_out) each


def chapter_steps(x: torch.Tensor, num_heads: int, head_dim: int, seed: int, pick=(0, 0, 0)) -> list[Step]:
    """The chapter's forward for the queries (and the context they give), one Step per line.

    x: (T, d_in) inputs; pick: (token, head, dim), 0-based. The token/head twins go through the
    same view and transpose calls, so each element keeps its label wherever it moves.
    """
    T, d_in = x.shape
    d_out = num_heads * head_dim
    mha = build_seeded(MultiHeadAttention, seed, d_in, d_out, T, 0.0, num_heads)
    t, h, d = pick
    b = 1
    tok, hd = _twins(T, num_heads, head_dim)
    with torch.no_grad():
        queries = mha.W_query(x.unsqueeze(0))  # (b, T, d_out)
        keys = mha.W_key(x.unsqueeze(0)).view(b, T, num_heads, head_dim).transpose(1, 2)
        values = mha.W_value(x.unsqueeze(0)).view(b, T, num_heads, head_dim).transpose(1, 2)
        split = queries.view(b, T, num_heads, head_dim)  # (b, T, h, head_dim): strides only
        heads = split.transpose(1, 2)  # (b, h, T, head_dim): strides only
        scores = heads @ keys.transpose(2, 3)  # (b, h, T, T): a new tensor
        scores.masked_fill_(mha.mask.bool()[:T, :T], -torch.inf)
        weights = torch.softmax(scores / head_dim ** 0.5, dim=-1)
        context = weights @ values  # (b, h, T, head_dim): new, contiguous
        back = context.transpose(1, 2)  # (b, T, h, head_dim): strides only, not contiguous
        packed = back.contiguous()  # a copy in (b, T, h, head_dim) order
        merged = packed.view(b, T, d_out)  # (b, T, d_out): strides only
    tok4, hd4 = tok.view(b, T, num_heads, head_dim), hd.view(b, T, num_heads, head_dim)
    tokh, hdh = tok4.transpose(1, 2), hd4.transpose(1, 2)
    row = torch.arange(T).view(1, 1, T, 1).expand(b, num_heads, T, T)
    headrow = torch.arange(num_heads).view(1, num_heads, 1, 1).expand(b, num_heads, T, T)
    return [
        Step("queries = self.W_query(x)", queries, tok, hd, (0, t, h * head_dim + d)),
        Step("queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)", split, tok4, hd4, (0, t, h, d)),
        Step("queries = queries.transpose(1, 2)", heads, tokh, hdh, (0, h, t, d)),
        Step("attn_scores = queries @ keys.transpose(2, 3)", scores, row, headrow, None),
        Step("context_vec = attn_weights @ values", context, tokh.contiguous(), hdh.contiguous(), (0, h, t, d)),
        Step("context_vec = context_vec.transpose(1, 2)", back, tok4, hd4, (0, t, h, d)),
        Step("context_vec = context_vec.contiguous()", packed, tok4, hd4, (0, t, h, d)),
        Step("context_vec = context_vec.view(b, num_tokens, self.d_out)", merged, tok, hd,
             (0, t, h * head_dim + d)),
    ]


def what_it_did(step: Step, before: Step | None) -> str:
    """'view' (same storage, new strides), 'copy' (same values, new storage) or 'new tensor'."""
    if before is None or step.code.startswith("attn_scores") or "@ values" in step.code:
        return "new tensor"
    return "view" if step.storage == before.storage else "copy"


def step_rows(steps: list[Step]) -> list[dict]:
    """One row per step: shape, strides, offset, contiguity, what it did, and where the pick is."""
    rows = []
    for n, step in enumerate(steps):
        t = step.tensor
        picked = t[step.pick] if step.pick is not None else None
        rows.append({
            "code": step.code, "shape": tuple(t.shape), "stride": t.stride(),
            "storage_offset": t.storage_offset(), "contiguous": t.is_contiguous(),
            "did": what_it_did(step, steps[n - 1] if n else None),
            "pick_index": step.pick, "pick_offset": picked.storage_offset() if picked is not None else None,
            # The same address read another way: bytes from the storage's start, divided by 4.
            "pick_bytes": (picked.data_ptr() - step.storage) if picked is not None else None,
        })
    return rows


def offsets(tensor: torch.Tensor) -> torch.Tensor:
    """The storage offset of every element, same shape: PyTorch's own as_strided over 0, 1, 2, ..."""
    size = tensor.untyped_storage().nbytes() // tensor.element_size()
    return torch.arange(size).as_strided(tensor.shape, tensor.stride(), tensor.storage_offset())


def cells(tensor, tokens, heads, pick=None) -> list[dict]:
    """Every element of a (1, A, B, C) tensor as a cell: panel A, row B, column C, its offset, token, head."""
    offs, found = offsets(tensor), []
    for a in range(tensor.shape[1]):
        for r in range(tensor.shape[2]):
            for c in range(tensor.shape[3]):
                i = (0, a, r, c)
                found.append({"panel": a, "row": r, "col": c, "offset": int(offs[i]), "token": int(tokens[i]),
                              "head": int(heads[i]), "value": float(tensor[i]), "picked": i == pick})
    return found


def storage_cells(step: Step, width: int, pick=None) -> list[dict]:
    """The flat storage under a contiguous step, one cell per float in storage order, wrapped every `width`."""
    assert step.tensor.is_contiguous(), "storage order equals index order only for a contiguous tensor"
    flat, toks, hds = step.tensor.reshape(-1), step.tokens.reshape(-1), step.heads.reshape(-1)
    where = step.tensor[pick].storage_offset() - step.tensor.storage_offset() if pick is not None else None
    return [{"panel": 0, "row": k // width, "col": k % width, "offset": k, "token": int(toks[k]),
             "head": int(hds[k]), "value": float(flat[k]), "picked": k == where} for k in range(flat.numel())]


def wrong_split(step: Step, num_heads: int, head_dim: int) -> Step:
    """queries.view(b, h, T, head_dim) straight from (b, T, d_out): each 'head' takes a contiguous run
    of T*head_dim floats, which mixes tokens and true heads."""
    b, T, _ = step.tensor.shape
    return Step("queries.view(b, self.num_heads, num_tokens, self.head_dim)",
                step.tensor.view(b, num_heads, T, head_dim), step.tokens.view(b, num_heads, T, head_dim),
                step.heads.view(b, num_heads, T, head_dim), None)


def view_error(steps: list[Step]) -> str:
    """PyTorch's own message for view on the non-contiguous transposed context (the chapter's reason for
    contiguous())."""
    back = next(s.tensor for s in steps if s.code.endswith("transpose(1, 2)") and s.code.startswith("context"))
    b, T, h, d = back.shape
    try:
        back.view(b, T, h * d)
    except RuntimeError as error:
        return str(error)
    return ""  # h == 1 or T == 1: the transpose is still contiguous and view works


def reshape_against_view(steps: list[Step]) -> list[dict]:
    """reshape on a contiguous tensor returns a view (same storage); on a non-contiguous one it copies."""
    rows = []
    for code in ("queries = self.W_query(x)", "context_vec = context_vec.transpose(1, 2)"):
        t = next(s.tensor for s in steps if s.code == code)
        b, T = t.shape[:2]
        flat = t.reshape(b, T, -1)
        try:
            t.view(b, T, -1)
            viewed = "works (same storage)"
        except RuntimeError:
            viewed = "RuntimeError"
        same = flat.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        rows.append({"tensor": code.split(" = ")[1], "contiguous": t.is_contiguous(), "view": viewed,
                     "reshape": "view, no copy" if same else "copy (new storage)",
                     "same data_ptr": flat.data_ptr() == t.data_ptr()})
    return rows
