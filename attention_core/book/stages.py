"""One function per step of chapter 3, named after the book's tensors.

Every function works on a single sequence (T, d) or a batch (b, T, d) or per-head tensors
(b, h, T, d): the attention matrices are always the last two dimensions.
"""
import torch


# --- 3.3 attention scores -------------------------------------------------------------------

def attn_scores_loop(inputs: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
    """The book's first loop: one dot product per input token. inputs (T, d), query (d,)."""
    attn_scores = torch.empty(inputs.shape[0], dtype=inputs.dtype, device=inputs.device)  # (T,)
    for i, x_i in enumerate(inputs):
        attn_scores[i] = torch.dot(x_i, query)
    return attn_scores


def dot_product_terms(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The products a_k * b_k whose sum is the dot product a . b (shown as arithmetic)."""
    return a * b  # (d,)


def attn_scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """All scores at once: omega = Q K^T. transpose(-2, -1) (not .T) so batches work too."""
    return queries @ keys.transpose(-2, -1)  # (..., T, T)


# --- 3.3.1 normalisations and 3.4.1 scaling -------------------------------------------------

def normalize_by_sum(attn_scores: torch.Tensor) -> torch.Tensor:
    """Divide by the row sum: sums to 1 but can go negative or blow up when the sum nears 0."""
    return attn_scores / attn_scores.sum(dim=-1, keepdim=True)


def softmax_naive(attn_scores: torch.Tensor) -> torch.Tensor:
    """exp(x) / sum(exp(x)) exactly as written: overflows to inf (then nan) for large scores."""
    exp = torch.exp(attn_scores)
    return exp / exp.sum(dim=-1, keepdim=True)


def softmax(attn_scores: torch.Tensor) -> torch.Tensor:
    """PyTorch's softmax subtracts the row maximum first, so it never overflows."""
    return torch.softmax(attn_scores, dim=-1)


def scale_scores(attn_scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Divide by sqrt(d_k) (`d_k**0.5`, not the pitfall `d_k*0.5`)."""
    return attn_scores / d_k**0.5


def entropy(attn_weights: torch.Tensor) -> torch.Tensor:
    """Entropy of each row in nats: log(T) when uniform, 0 when all weight is on one key."""
    logs = torch.where(attn_weights > 0, attn_weights.log(), torch.zeros_like(attn_weights))
    return -(attn_weights * logs).sum(dim=-1)  # (..., T)


def context_vectors(attn_weights: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """z = A V: each row is the attention-weighted sum of the value vectors."""
    return attn_weights @ values  # (..., T, d_v)


def context_vector_loop(attn_weights_row: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """The book's loop for one context vector: z = sum_i alpha_i x_i."""
    context_vec = torch.zeros(inputs.shape[-1], dtype=inputs.dtype, device=inputs.device)  # (d,)
    for i, x_i in enumerate(inputs):
        context_vec += attn_weights_row[i] * x_i
    return context_vec


# --- 3.5.1 causal mask -----------------------------------------------------------------------

def causal_mask(context_length: int, device=None) -> torch.Tensor:
    """1 above the diagonal (the future), as the book's registered buffer `mask`."""
    return torch.triu(torch.ones(context_length, context_length, device=device), diagonal=1)


def mask_simple(num_tokens: int, device=None) -> torch.Tensor:
    """1 on and below the diagonal (what a token may see): the book's `torch.tril` mask."""
    return torch.tril(torch.ones(num_tokens, num_tokens, device=device))


def mask_after_softmax(attn_weights: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Book variant 1: zero the future weights, then divide each row by its new sum.

    Returns (masked_simple, masked_simple_norm); the first no longer sums to 1.
    """
    num_tokens = attn_weights.shape[-1]
    masked_simple = attn_weights * mask_simple(num_tokens, attn_weights.device)  # (..., T, T)
    row_sums = masked_simple.sum(dim=-1, keepdim=True)
    return masked_simple, masked_simple / row_sums


def mask_scores(attn_scores: torch.Tensor, context_length: int | None = None) -> torch.Tensor:
    """Book variant 2: -inf above the diagonal before softmax, so exp(-inf) = 0 there.

    `context_length` may exceed the number of tokens: the mask is built at that size and cut to
    the tokens present, as the book's modules do with `self.mask[:num_tokens, :num_tokens]`.
    """
    num_tokens = attn_scores.shape[-1]
    mask = causal_mask(context_length or num_tokens, attn_scores.device)
    mask_bool = mask.bool()[:num_tokens, :num_tokens]  # (T, T)
    return attn_scores.masked_fill(mask_bool, -torch.inf)


# --- 3.5.2 dropout ---------------------------------------------------------------------------

def dropout_keep_mask(shape, p: float, seed: int) -> torch.Tensor:
    """Which cells survive dropout: 1 kept, 0 dropped.

    Drawn on the CPU from a private generator with the same call `nn.Dropout` makes
    (`bernoulli_(1 - p)`), so `torch.manual_seed(seed); nn.Dropout(p)(x)` and this mask agree
    on every device, and concurrent users never share PyTorch's global random state.
    """
    generator = torch.Generator().manual_seed(seed)
    return torch.empty(shape).bernoulli_(1 - p, generator=generator)


def dropout(attn_weights: torch.Tensor, p: float, seed: int, train: bool = True):
    """Inverted dropout: zero cells with probability p, scale survivors by 1 / (1 - p).

    Returns (dropped_weights, keep_mask). In eval mode, or with p = 0, nothing changes. With
    p = 1 everything is dropped (PyTorch returns zeros rather than dividing by 0).
    """
    if not train or p == 0:
        return attn_weights, torch.ones_like(attn_weights)
    if p >= 1:
        return torch.zeros_like(attn_weights), torch.zeros_like(attn_weights)
    keep = dropout_keep_mask(attn_weights.shape, p, seed).to(attn_weights.device, attn_weights.dtype)
    return attn_weights * keep / (1 - p), keep


def dropout_mean(attn_weights: torch.Tensor, p: float, num_seeds: int, first_seed: int = 0) -> torch.Tensor:
    """The average of dropout over seeds first_seed .. first_seed + num_seeds - 1.

    Because survivors are scaled by 1 / (1 - p), this converges back to attn_weights: dropout
    keeps the expected value of every weight.
    """
    total = torch.zeros_like(attn_weights)
    for seed in range(first_seed, first_seed + num_seeds):
        total += dropout(attn_weights, p, seed)[0]
    return total / num_seeds


# --- 3.6 heads -------------------------------------------------------------------------------

def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(b, T, d_out) -> (b, h, T, head_dim): view the last dim as heads, then swap T and h.

    Not a function of the book: this app's name for the two lines its MultiHeadAttention.forward writes for each
    of keys, queries and values, `keys.view(b, num_tokens, self.num_heads, self.head_dim)` then
    `keys.transpose(1, 2)`."""
    b, num_tokens, d_out = x.shape
    return x.view(b, num_tokens, num_heads, d_out // num_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(b, h, T, head_dim) -> (b, T, h * head_dim): the inverse of split_heads.

    Not a function of the book: this app's name for its lines `context_vec = (attn_weights @ values).transpose(1, 2)`
    and `context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)`."""
    b, num_heads, num_tokens, head_dim = x.shape
    return x.transpose(1, 2).contiguous().view(b, num_tokens, num_heads * head_dim)


def divisors(n: int) -> list[int]:
    """The head counts that split d_out evenly."""
    return [k for k in range(1, n + 1) if n % k == 0]


# --- the whole of 3.4-3.6 in one place -------------------------------------------------------

def attend(queries, keys, values, mask_bool=None, dropout_layer=None, record=None):
    """Scaled dot-product attention as the book writes it, shared by the book's classes.

    queries, keys, values: (..., T, d_k). mask_bool: (T, T), True where a key is in the future.
    If `record` is a dict, the intermediates are stored in it under the book's names.
    """
    scores = attn_scores(queries, keys)  # (..., T, T)
    masked = scores if mask_bool is None else scores.masked_fill(mask_bool, -torch.inf)
    scaled = scale_scores(masked, keys.shape[-1])
    attn_weights = softmax(scaled)
    dropped = attn_weights if dropout_layer is None else dropout_layer(attn_weights)
    context_vec = context_vectors(dropped, values)  # (..., T, d_v)
    if record is not None:
        record.update(queries=queries, keys=keys, values=values, attn_scores=scores,
                      masked_scores=masked, scaled_scores=scaled, attn_weights=attn_weights,
                      dropped_weights=dropped, context_vec=context_vec)
    return context_vec


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest |a - b|, ignoring cells where both are the same infinity."""
    a, b = a.detach().float().cpu(), b.detach().float().cpu()
    same = (a == b)
    diff = torch.where(same, torch.zeros_like(a), (a - b).abs())
    return float(diff.max()) if diff.numel() else 0.0
