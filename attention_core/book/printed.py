"""The chapter's code for each stage as the book prints it, and what it prints when run.

A reader holding the book compares a screen's code line by line, so each stage screen shows the book's own
snippets (section 3.3.1's `softmax_naive` with `dim=0`, `inputs @ inputs.T`, listings 3.1 to 3.5) beside the
app's helpers, and runs them: the output under a snippet is computed now, never retyped. The text is the
chapter's notebook (ch03.ipynb) as printed, except that a trailing comment longer than a slide's line moved
onto its own line above. The classes a snippet uses are the app's (attention_core/book/modules.py), whose
`__init__` and `forward` are the notebook's, comments included, under the same rule (its lines above); the screen shows their source
above the snippet (the app's docstring and `trace` left out).

A snippet runs after the earlier snippets it `needs`, in one namespace, as a reader runs the notebook's cells
in order. They seed PyTorch's global generator as the book does (`torch.manual_seed(123)`), so they run under
build_seeded's lock with the generator put back afterwards: other visitors' random numbers are untouched.
"""
import ast
import functools
from dataclasses import dataclass, field

import torch
import torch.nn as nn

from attention_core.book import modules
from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.seeding import build_seeded


@dataclass(frozen=True)
class Snippet:
    key: str
    section: str  # the book's section number, "3.3.1"
    heading: str  # what the book's section does, or its listing number
    code: str  # as printed
    needs: tuple[str, ...] = ()  # earlier snippets whose names this one uses
    classes: tuple[type, ...] = ()  # the book's classes shown before the code (listings 3.1-3.5)
    note: str = ""  # one line under the output, where the printed run differs from the lesson's


@dataclass(frozen=True)
class Printed:
    text: str  # what the snippet prints, as print() writes it
    tensors: list[torch.Tensor] = field(default_factory=list)  # every tensor it printed, in order


# The names a reader of the chapter has defined by the time a snippet runs: the classes come from listings 3.1-3.5.
BOOK_CLASSES = (modules.SelfAttention_v1, modules.SelfAttention_v2, modules.CausalAttention,
                modules.MultiHeadAttentionWrapper, modules.MultiHeadAttention)

S = Snippet
SNIPPETS = {s.key: s for s in [
    # --- 3.3 attention without trainable weights ----------------------------------------------------------
    S("scores_loop", "3.3.1", "Scores of query 2, one dot product at a time", """\
query = inputs[1]  # 2nd input token is the query

attn_scores_2 = torch.empty(inputs.shape[0])
for i, x_i in enumerate(inputs):
    # dot product (transpose not necessary here since they are 1-dim vectors)
    attn_scores_2[i] = torch.dot(x_i, query)

print(attn_scores_2)
"""),
    S("normalise_sum", "3.3.1", "Dividing by the sum", """\
attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()

print("Attention weights:", attn_weights_2_tmp)
print("Sum:", attn_weights_2_tmp.sum())
""", needs=("scores_loop",)),
    S("softmax_naive", "3.3.1", "A naive softmax", """\
def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum(dim=0)

attn_weights_2_naive = softmax_naive(attn_scores_2)

print("Attention weights:", attn_weights_2_naive)
print("Sum:", attn_weights_2_naive.sum())
""", needs=("scores_loop",)),
    S("softmax_torch", "3.3.1", "PyTorch's softmax", """\
attn_weights_2 = torch.softmax(attn_scores_2, dim=0)

print("Attention weights:", attn_weights_2)
print("Sum:", attn_weights_2.sum())
""", needs=("scores_loop",)),
    S("scores_matrix", "3.3.2", "Every score at once", """\
attn_scores = inputs @ inputs.T
print(attn_scores)
"""),
    S("context_all", "3.3.2", "Every context vector at once", """\
attn_weights = torch.softmax(attn_scores, dim=-1)
print(attn_weights)

all_context_vecs = attn_weights @ inputs
print(all_context_vecs)
""", needs=("scores_matrix",)),
    # --- 3.4 trainable weights ------------------------------------------------------------------------------
    S("sizes", "3.4.1", "The sizes", """\
x_2 = inputs[1] # second input element
d_in = inputs.shape[1] # the input embedding size, d=3
d_out = 2 # the output embedding size, d=2
"""),
    S("projections", "3.4.1", "The weight matrices, query 2 and the keys", """\
torch.manual_seed(123)

W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)

query_2 = x_2 @ W_query # _2 because it's with respect to the 2nd input element
keys = inputs @ W_key
values = inputs @ W_value
""", needs=("sizes",)),
    S("scaled_softmax", "3.4.1", "Scores of query 2, scaled by √d_k before softmax", """\
attn_scores_2 = query_2 @ keys.T # All attention scores for given query
print(attn_scores_2)

d_k = keys.shape[1]
attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
print(attn_weights_2)
""", needs=("projections",)),
    S("self_attention_v1", "3.4.2", "Listing 3.1: SelfAttention_v1", """\
torch.manual_seed(123)
sa_v1 = SelfAttention_v1(d_in, d_out)
print(sa_v1(inputs))
""", needs=("sizes",), classes=(modules.SelfAttention_v1,)),
    S("self_attention_v2", "3.4.2", "Listing 3.2: SelfAttention_v2", """\
torch.manual_seed(789)
sa_v2 = SelfAttention_v2(d_in, d_out)
print(sa_v2(inputs))
""", needs=("sizes",), classes=(modules.SelfAttention_v2,),
      note="Seed 789: the weights the book's masking walk-through (§3.5.1) reuses, on the causal-mask screen."),
    # --- 3.5 causal attention -------------------------------------------------------------------------------
    S("unmasked_weights", "3.5.1", "The weights before masking (SelfAttention_v2's)", """\
# Reuse the query and key weight matrices of the
# SelfAttention_v2 object from the previous section for convenience
queries = sa_v2.W_query(inputs)
keys = sa_v2.W_key(inputs)
attn_scores = queries @ keys.T

attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
print(attn_weights)
""", needs=("self_attention_v2",)),
    S("mask_after_softmax", "3.5.1", "Masking after softmax: zero the future, then renormalise", """\
context_length = attn_scores.shape[0]
mask_simple = torch.tril(torch.ones(context_length, context_length))
print(mask_simple)

masked_simple = attn_weights*mask_simple
print(masked_simple)

row_sums = masked_simple.sum(dim=-1, keepdim=True)
masked_simple_norm = masked_simple / row_sums
print(masked_simple_norm)
""", needs=("unmasked_weights",)),
    S("mask_before_softmax", "3.5.1", "Masking before softmax: −∞ above the diagonal", """\
mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
print(masked)

attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
print(attn_weights)
""", needs=("mask_after_softmax",)),
    S("dropout_ones", "3.5.2", "Dropout on a matrix of ones", """\
torch.manual_seed(123)
dropout = torch.nn.Dropout(0.5) # dropout rate of 50%
example = torch.ones(6, 6) # create a matrix of ones

print(dropout(example))
"""),
    S("dropout_weights", "3.5.2", "Dropout on the causal attention weights", """\
torch.manual_seed(123)
print(dropout(attn_weights))
""", needs=("mask_before_softmax", "dropout_ones")),
    S("causal_attention", "3.5.3", "Listing 3.3: CausalAttention", """\
batch = torch.stack((inputs, inputs), dim=0)
print(batch.shape) # 2 inputs with 6 tokens each, and each token has embedding dimension 3

torch.manual_seed(123)

context_length = batch.shape[1]
ca = CausalAttention(d_in, d_out, context_length, 0.0)

context_vecs = ca(batch)

print(context_vecs)
print("context_vecs.shape:", context_vecs.shape)
""", needs=("sizes",), classes=(modules.CausalAttention,),
      note="The book prints CausalAttention with seed 123; the lesson above uses seed 789, the weights of its "
           "masking walk-through (§3.5.1), so its context vectors differ."),
    # --- 3.6 multi-head attention ---------------------------------------------------------------------------
    S("wrapper", "3.6.1", "Listing 3.4: MultiHeadAttentionWrapper", """\
torch.manual_seed(123)

context_length = batch.shape[1] # This is the number of tokens
d_in, d_out = 3, 2
mha = MultiHeadAttentionWrapper(
    d_in, d_out, context_length, 0.0, num_heads=2
)

context_vecs = mha(batch)

print(context_vecs)
print("context_vecs.shape:", context_vecs.shape)
""", needs=("causal_attention",), classes=(modules.MultiHeadAttentionWrapper,)),
    S("multi_head_attention", "3.6.2", "Listing 3.5: MultiHeadAttention", """\
torch.manual_seed(123)

batch_size, context_length, d_in = batch.shape
d_out = 2
mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads=2)

context_vecs = mha(batch)

print(context_vecs)
print("context_vecs.shape:", context_vecs.shape)
""", needs=("causal_attention",), classes=(modules.MultiHeadAttention,)),
]}
del S

# Which snippets each stage screen shows, in the book's order. A stage not listed shows none (the stages past
# chapter 3 show their own book code).
ON_STAGE = {
    "scores": ("scores_loop", "scores_matrix", "context_all", "self_attention_v1", "self_attention_v2"),
    "softmax": ("normalise_sum", "softmax_naive", "softmax_torch", "scaled_softmax"),
    "mask": ("unmasked_weights", "mask_after_softmax", "mask_before_softmax", "causal_attention"),
    "dropout": ("dropout_ones", "dropout_weights"),
    "heads": ("wrapper", "multi_head_attention"),
}

# One line per stage: where the app's own helpers (attention_core/book/stages.py), shown after the book's code,
# differ from it, and why.
HELPERS_DIFFER = {
    "scores": "The app's helpers below write `keys.transpose(-2, -1)` where the book writes `.T`, so the same "
              "line scores one sequence, a batch and every head (`.T` would reverse all their dimensions).",
    "softmax": "The app's `normalize_by_sum` and `softmax_naive` sum over `dim=-1` where the book's "
               "versions sum the whole vector (`.sum()`, `dim=0`): the book normalises one query's scores, the app every row of a "
               "(T, T) matrix at once; on one vector both are the same.",
    "mask": "The app's helpers build the mask at a `context_length` and cut it to the tokens present, as "
            "CausalAttention's buffer does, so one function serves the lesson and the buffer; the steps are "
            "the book's.",
    "dropout": "The app draws the keep mask from its own `torch.Generator` with the call `nn.Dropout` makes, "
               "`bernoulli_(1 - p)`, instead of `torch.manual_seed`: seed 123 gives the book's matrix without "
               "moving another visitor's random numbers.",
    "heads": "The app's `split_heads` and `merge_heads` name the `view` and `transpose` lines of "
             "MultiHeadAttention.forward for its lessons; the classes above are the book's as printed, "
             "without the method the app adds to read each step.",
}


def for_stage(stage: str) -> list[Snippet]:
    """The book's snippets a stage screen shows (none for a stage past chapter 3)."""
    return [SNIPPETS[key] for key in ON_STAGE.get(stage, ())]


def _chain(key: str) -> list[str]:
    """The snippet and every snippet it needs, earliest first, each once (the notebook's cells in order)."""
    order: list[str] = []
    for need in SNIPPETS[key].needs:
        order += [k for k in _chain(need) if k not in order]
    return order + [key]


def _silent(*args, **kwargs) -> None:
    """print for an earlier cell: its output is not the snippet's."""


def _base_namespace(inputs: torch.Tensor) -> dict:
    """The names every snippet may use: torch, nn, the book's inputs and its five classes."""
    return {"torch": torch, "nn": nn, "inputs": inputs, "print": _silent, **{c.__name__: c for c in BOOK_CLASSES}}


def _run_cells(keys: list[str], namespace: dict) -> dict:
    for key in keys:
        exec(compile(SNIPPETS[key].code, key, "exec"), namespace)  # noqa: S102 (the book's own text, no user input)
    return namespace


def _execute(key: str, inputs: torch.Tensor) -> Printed:
    """Run the snippet's chain in one namespace; keep what the last snippet prints."""
    namespace = _run_cells(_chain(key)[:-1], _base_namespace(inputs))
    lines: list[str] = []
    tensors: list[torch.Tensor] = []

    def capture(*args, sep=" ", end="\n"):
        lines.append(sep.join(str(a) for a in args) + end)
        tensors.extend(a.detach().clone() for a in args if isinstance(a, torch.Tensor))
    namespace["print"] = capture
    _run_cells([key], namespace)
    return Printed("".join(lines).rstrip("\n"), tensors)


@functools.lru_cache(maxsize=len(SNIPPETS))
def _run_book(key: str) -> Printed:
    # The snippets seed themselves; build_seeded holds the lock and puts the global generator back (its seed
    # here is never used: every snippet that draws random numbers calls torch.manual_seed first, as printed).
    return build_seeded(_execute, 0, key, BOOK_INPUTS.clone())


def run(snippet: Snippet, inputs: torch.Tensor | None = None) -> Printed:
    """What the snippet prints, run now on `inputs` (the book's six vectors by default, once per process)."""
    if inputs is None:
        done = _run_book(snippet.key)
        return Printed(done.text, [t.clone() for t in done.tensors])
    return build_seeded(_execute, 0, snippet.key, inputs)


def names_from_earlier(snippet: Snippet) -> list[tuple[str, str]]:
    """(name, section) for each name the snippet reads that an earlier snippet of its chain assigned: what a
    reader must have run before it, said under the code."""
    assigned: dict[str, str] = {}
    for earlier in _chain(snippet.key)[:-1]:
        for node in ast.walk(ast.parse(SNIPPETS[earlier].code)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                assigned.setdefault(node.id, SNIPPETS[earlier].section)
            elif isinstance(node, ast.FunctionDef):
                assigned.setdefault(node.name, SNIPPETS[earlier].section)
    tree = ast.parse(snippet.code)
    own = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [(name, assigned[name]) for name in dict.fromkeys(read) if name in assigned and name not in own]
