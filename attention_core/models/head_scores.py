"""What a trained head does, in numbers, and what the model loses when a head is switched off.

Scores of a head (each between 0 and 1, averaged over the queries they apply to):

- previous-token score: the attention weight a query puts on the token just before it,
  averaged over every query that has one. 1 = the head always looks exactly one step back.
- induction score: for each query whose token occurred earlier in the sequence, the total weight
  on the tokens that FOLLOWED those earlier occurrences ("last time I saw this token, what came
  next?"), averaged over those queries. 1 = a perfect induction head (Olsson et al., 2022).
- self score: the weight a query puts on itself.
- next-in-order score (sort) / mirror score (reverse): for each query in the answer part, the
  total weight on the list positions that hold the token to predict next: the head fetches the
  answer from the list. (The induction score is the same idea for the repeat task.)

Switching a head off zeroes its slice of `out_proj`'s input columns: exactly what the model
would compute if that head's context vectors were all zero.
"""
import copy

import torch

from attention_core.models.toy_tasks import LIST_LENGTH, TASKS, make_sequences

SCORE_NAMES = {
    "previous": "previous-token",
    "self": "self",
    "induction": "induction",
    "next in order": "next-in-order",
    "mirror": "mirror",
}
MEANINGS = {
    "previous": "weight on the token just before: copies 'what came before me' into this position",
    "self": "weight on its own position: keeps the current token's identity",
    "induction": "weight on the token after an earlier copy of the current token: 'last time, what came next?'",
    "next in order": "weight on the list digit that comes next in sorted order: fetches the answer",
    "mirror": "weight on the list letter at the mirror position: fetches the answer",
}
EVAL_SEED = 31337  # the "fresh batch": never the training seed's stream


def previous_token_score(weights: torch.Tensor) -> torch.Tensor:
    """weights (b, h, T, T) -> (h,): mean weight on key i-1 over queries i >= 1."""
    return weights.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, -1))


def self_score(weights: torch.Tensor) -> torch.Tensor:
    return weights.diagonal(dim1=-2, dim2=-1).mean(dim=(0, -1))


def induction_score(weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """weights (b, h, T, T), ids (b, T) -> (h,), as defined in the module docstring."""
    T = ids.shape[1]
    same = ids[:, :, None] == ids[:, None, :]  # (b, query, key): same token
    earlier = torch.ones(T, T, dtype=torch.bool).tril(-1)  # key before query
    occurrences = same & earlier  # (b, i, j): token j is an earlier copy of token i
    targets = torch.zeros_like(occurrences)
    targets[:, :, 1:] = occurrences[:, :, :-1]  # the key right after each earlier copy
    asked = occurrences.any(-1)  # (b, i) queries that have an earlier copy
    return _mean_weight(weights, targets, asked)


def lookup_score(weights: torch.Tensor, ids: torch.Tensor, targets: torch.Tensor, asked: torch.Tensor):
    """Sort and reverse: weight on list positions holding the next token. asked (b, T): queries counted."""
    holds = ids[:, None, :] == targets[:, :, None]  # (b, i, j): key j holds query i's answer
    holds[:, :, LIST_LENGTH:] = False  # only the list part, not the answer written so far
    return _mean_weight(weights, holds, asked)


def _mean_weight(weights, keys, asked):
    """Mean over asked queries of the weight on the marked keys: (b, h, T, T) -> (h,)."""
    on_keys = (weights * keys[:, None].to(weights.dtype)).sum(-1)  # (b, h, T)
    counted = asked[:, None].to(weights.dtype)
    return (on_keys * counted).sum(dim=(0, 2)) / counted.sum(dim=(0, 2)).clamp(min=1)


def scores_of(weights: list[torch.Tensor], task: str, ids: torch.Tensor, targets=None, asked=None) -> dict:
    """Every head's scores from every layer's weights: {name: (layers, heads) tensor}.

    ids (b, T). For sort and reverse, targets and asked default to "the next token of the
    sequence itself", queries from the separator on (a probe written in the task's format).
    """
    stacked = torch.stack([w.float() for w in weights])  # (L, b, h, T, T)
    ids = ids.to(stacked.device)
    result = {"previous": torch.stack([previous_token_score(w) for w in stacked]),
              "self": torch.stack([self_score(w) for w in stacked])}
    lookup = TASKS[task].lookup
    if lookup == "induction":
        result[lookup] = torch.stack([induction_score(w, ids) for w in stacked])
    else:
        if targets is None:
            targets = torch.cat([ids[:, 1:], ids[:, -1:]], dim=1)
            asked = torch.zeros_like(ids, dtype=torch.bool)
            asked[:, LIST_LENGTH:-1] = True
        result[lookup] = torch.stack([lookup_score(w, ids, targets.to(ids.device), asked.to(ids.device))
                                      for w in stacked])
    return {k: v.cpu() for k, v in result.items()}


def strongest_head(scores: dict, task: str) -> tuple[int, int, str, float]:
    """(layer, head, score name, score) of the most striking head: the highest previous-token or
    lookup (induction, next-in-order, mirror) score of any head. 0-based layer and head; scores as
    scores_of returns them, (layers, heads) each."""
    best = None
    for name in (TASKS[task].lookup, "previous"):
        table = torch.as_tensor(scores[name], dtype=torch.float32)  # (layers, heads)
        layer, head = divmod(int(table.argmax()), table.shape[1])
        if best is None or float(table[layer, head]) > best[3]:
            best = (layer, head, name, float(table[layer, head]))
    return best


def fresh_batch(task: str, batch_size: int = 512, seed: int = EVAL_SEED):
    """(inputs, targets, loss_mask) from a generator that training never uses."""
    seq, mask, _ = make_sequences(task, batch_size, torch.Generator().manual_seed(seed))
    return seq[:, :-1], seq[:, 1:], mask


@torch.no_grad()
def batch_scores(model, task: str, batch_size: int = 256, seed: int = EVAL_SEED) -> dict:
    """Scores measured on a fresh batch (more reliable than one probe sequence)."""
    inputs, targets, mask = fresh_batch(task, batch_size, seed)
    device = next(model.parameters()).device
    weights = model.attention_weights(inputs.to(device))
    return scores_of(weights, task, inputs, targets, mask)


def with_heads_off(model, off) -> torch.nn.Module:
    """A copy of the model with heads switched off: off = [(layer, head), ...], 0-based."""
    quiet = copy.deepcopy(model)
    with torch.no_grad():
        for layer, head in off:
            mha = quiet.attention_modules[layer]
            mha.out_proj.weight[:, head * mha.head_dim:(head + 1) * mha.head_dim] = 0
    return quiet


@torch.no_grad()
def accuracy(model, task: str, batch_size: int = 512, seed: int = EVAL_SEED) -> float:
    """Accuracy on the predictable targets of a fresh batch (for repeat: the copy's second token on)."""
    inputs, targets, mask = fresh_batch(task, batch_size, seed)
    device = next(model.parameters()).device
    predicted = model(inputs.to(device)).argmax(-1).cpu()
    return float((predicted == targets)[mask].float().mean())


def ablation(model, task: str, batch_size: int = 512, seed: int = EVAL_SEED) -> torch.Tensor:
    """(layers, heads): the accuracy with each head switched off alone."""
    layers, heads = len(model.attention_modules), model.attention_modules[0].num_heads
    return torch.tensor([[accuracy(with_heads_off(model, [(l, h)]), task, batch_size, seed) for h in range(heads)]
                         for l in range(layers)])


def score_table(scores: dict, ablated=None) -> list[dict]:
    """One row per head ("layer.head"): each score to 2 decimals, and with `ablated` ((layers, heads) nested
    lists) the final model's accuracy with that head off alone."""
    first = next(iter(scores.values()))
    layers, heads = len(first), len(first[0])
    rows = []
    for l in range(layers):
        for h in range(heads):
            row = {"head": f"{l + 1}.{h + 1}"} | {SCORE_NAMES[k]: round(float(v[l][h]), 2) for k, v in scores.items()}
            if ablated is not None:
                row["accuracy with it off (final model)"] = round(ablated[l][h], 3)
            rows.append(row)
    return rows
