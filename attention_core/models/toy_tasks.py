"""Three toy tasks whose solutions need different attention patterns, and their token symbols.

Every task makes sequences of `context_length + 1` token ids; the model reads the first
`context_length` and predicts each next token. `loss_mask` marks the targets that can be
predicted from what came before (the only ones counted in the loss and the accuracy).

- repeat:  random tokens in which a random segment (4-12 tokens) repeats later at a random
           offset. Predicting the copy needs an induction circuit (Olsson et al., 2022): a layer-1
           head that looks at the previous token, a layer-2 head that finds "the token after the
           earlier occurrence of the current token". The offset is random so that position alone
           cannot solve it. The copy's first token cannot be predicted, so it is not counted.
- sort:    ten digits, a separator, then the same digits sorted (like llm-viz's sorter).
- reverse: ten letters, a separator, then the same letters in reverse order.
"""
from dataclasses import dataclass

import torch

BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # one symbol per token of the repeat task


@dataclass(frozen=True)
class Task:
    name: str
    vocab_size: int
    context_length: int
    symbols: str  # symbols[i] is how token i is written on screen
    lookup: str  # what the task's "lookup" score measures (see head_scores.py)
    summary: str


TASKS = {
    "repeat": Task("repeat", 32, 32, BASE32, "induction",
                   "random tokens in which a segment of 4–12 tokens repeats later; predict the copy"),
    "sort": Task("sort", 11, 20, "0123456789>", "next in order",
                 "ten digits, then '>', then the same digits sorted"),
    "reverse": Task("reverse", 27, 20, BASE32[:26] + ">", "mirror",
                    "ten letters, then '>', then the same letters backwards"),
}
LIST_LENGTH = 10  # digits to sort, letters to reverse
SEGMENT = (4, 12)  # the repeated segment's length, inclusive


def _repeat(batch_size: int, generator: torch.Generator):
    T = TASKS["repeat"].context_length
    seq = torch.randint(0, 32, (batch_size, T + 1), generator=generator)  # (b, T+1)
    mask = torch.zeros(batch_size, T, dtype=torch.bool)
    starts = []
    for row in range(batch_size):
        length = int(torch.randint(SEGMENT[0], SEGMENT[1] + 1, (1,), generator=generator))
        first = int(torch.randint(0, T + 1 - 2 * length + 1, (1,), generator=generator))
        second = int(torch.randint(first + length, T + 1 - length + 1, (1,), generator=generator))
        seq[row, second:second + length] = seq[row, first:first + length]
        mask[row, second:second + length - 1] = True  # input position i predicts token i + 1
        starts.append((first, second, length))
    return seq, mask, starts


def _listed(task: Task, batch_size: int, generator: torch.Generator, answer):
    items = torch.randint(0, task.vocab_size - 1, (batch_size, LIST_LENGTH), generator=generator)
    separator = torch.full((batch_size, 1), task.vocab_size - 1)
    seq = torch.cat([items, separator, answer(items)], dim=1)  # (b, 2 * LIST_LENGTH + 1)
    mask = torch.zeros(batch_size, task.context_length, dtype=torch.bool)
    mask[:, LIST_LENGTH:] = True  # from the separator on, every next token is determined
    return seq, mask


def make_sequences(task: str, batch_size: int, generator: torch.Generator):
    """(seq (b, T+1), mask (b, T)) and, for repeat, each row's (first, second, length) of the copy."""
    if task == "repeat":
        return _repeat(batch_size, generator)
    if task == "sort":
        return (*_listed(TASKS[task], batch_size, generator, lambda x: x.sort(dim=1).values), None)
    if task == "reverse":
        return (*_listed(TASKS[task], batch_size, generator, lambda x: x.flip(1)), None)
    raise ValueError(f"unknown task {task!r}; one of {', '.join(TASKS)}")


def make_batch(task: str, batch_size: int, generator: torch.Generator):
    """(inputs, targets, loss_mask): int64 (b, T), int64 (b, T), bool (b, T), on the CPU."""
    seq, mask, _ = make_sequences(task, batch_size, generator)
    return seq[:, :-1], seq[:, 1:], mask


def probe(task: str) -> torch.Tensor:
    """The fixed sequence whose attention maps are recorded during training (1-d, T tokens)."""
    generator = torch.Generator().manual_seed(2024)
    return make_batch(task, 1, generator)[0][0]


def to_text(task: str, ids) -> str:
    return "".join(TASKS[task].symbols[int(i)] for i in ids)


def from_text(task: str, text: str) -> tuple[torch.Tensor | None, str | None]:
    """Token ids of typed symbols (spaces ignored, letters upper-cased), or (None, why not)."""
    spec = TASKS[task]
    cleaned = "".join(text.split()).upper()
    bad = sorted({c for c in cleaned if c not in spec.symbols})
    if bad:
        return None, f"{''.join(bad)[:20]!r} are not symbols of the {task} task (use {spec.symbols})"
    if not 2 <= len(cleaned) <= spec.context_length:
        return None, f"the sequence has {len(cleaned)} symbols; the model reads 2 to {spec.context_length}"
    return torch.tensor([spec.symbols.index(c) for c in cleaned]), None


def repeated_segment(ids) -> tuple[int, int, int] | None:
    """(first, second, length) of the longest run of tokens that occurs twice without overlapping
    (0-based starts), or None when no token repeats. Finds the copy in the repeat task's probe,
    typed or recorded, where the induction heads do their work. Longest common substring of the
    sequence with itself: O(T²) for T tokens."""
    seq = [int(i) for i in ids]
    best, run = (0, 0, 0), [0] * (len(seq) + 1)  # run[j + 1]: length of the common run ending at i and j
    for i in range(len(seq)):
        previous, run = run, [0] * (len(seq) + 1)
        for j in range(i + 1, len(seq)):
            if seq[i] == seq[j]:
                run[j + 1] = min(previous[j] + 1, j - i)  # j - i: the copies must not overlap
                if run[j + 1] > best[2]:
                    best = (i - run[j + 1] + 1, j - run[j + 1] + 1, run[j + 1])
    return best if best[2] else None
