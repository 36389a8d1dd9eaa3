"""Why attention divides by sqrt(d_k): measured on random queries and keys (the "Why √d_k" screen).

Queries and keys get unit-variance entries, as at initialisation. For each key dimension d_k the
same samples are scored twice, unscaled (omega = q . k) and scaled (omega / sqrt(d_k)), so the two
curves differ only by the division. Every draw comes from a torch.Generator seeded from (seed, d_k):
the global RNG is never touched, and one d_k's numbers do not depend on which others were run.

Plain PyTorch and plain Python values out, so a page can cache the results on (samples, tokens, seed).
"""
import math

import torch

from attention_core.book import stages

POWERS = tuple(2**i for i in range(11))  # d_k = 1, 2, 4, ..., 1024
MAX_SAMPLES = 4096  # queries per d_k
MAX_TOKENS = 64  # keys per query
MAX_D_K = 1024
SCALED, UNSCALED = "ω / √d_k", "ω (unscaled)"  # the same labels as the softmax screen's curves


def _check(samples: int, tokens: int, d_k: int) -> None:
    """Bounded sizes keep one sweep well under a second on 2 CPU cores."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be 1 to {MAX_SAMPLES}, got {samples}")
    if not 1 <= tokens <= MAX_TOKENS:
        raise ValueError(f"tokens must be 1 to {MAX_TOKENS}, got {tokens}")
    if not 1 <= d_k <= MAX_D_K:
        raise ValueError(f"d_k must be 1 to {MAX_D_K}, got {d_k}")


def generator(seed: int, d_k: int) -> torch.Generator:
    """A private generator per (seed, d_k); d_k < 2048 makes seed * 2048 + d_k unique."""
    return torch.Generator().manual_seed(seed * 2048 + d_k)


def sample_scores(d_k: int, samples: int, tokens: int, seed: int):
    """Unscaled scores q . k of `samples` random queries against `tokens` random keys each.

    Returns (scores, g): scores (samples, tokens) in float64, and one random unit vector g per query
    (samples, tokens) used by softmax_gradient_norm. Queries come in groups of `tokens` that share
    their keys, like the rows of one T x T self-attention score matrix: this needs about
    2 * samples * d_k random numbers instead of samples * tokens * d_k (1 GB at the largest sizes).
    """
    _check(samples, tokens, d_k)
    gen = generator(seed, d_k)
    groups = -(-samples // tokens)  # ceil: the last group may be cut short
    queries = torch.randn(groups, tokens, d_k, generator=gen)  # (G, T, d_k), unit variance
    keys = torch.randn(groups, tokens, d_k, generator=gen)  # (G, T, d_k)
    scores = stages.attn_scores(queries, keys)  # (G, T, T): each entry is a sum of d_k products
    # float64 from here on: unscaled softmax at large d_k gives weights like e^-200, which float32 rounds to 0.
    scores = scores.reshape(groups * tokens, tokens)[:samples].double()  # (S, T)
    g = torch.randn(samples, tokens, generator=gen, dtype=torch.float64)  # (S, T)
    g = g / g.norm(dim=-1, keepdim=True)
    return scores, g


def softmax_gradient_norm(scores: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """|d(softmax(s) . g) / ds| per query, by autograd: how much gradient reaches the scores.

    s (S, T) are the scores softmax receives (already divided by sqrt(d_k) when scaled) and g
    (S, T) a fixed random unit vector per query, standing in for the gradient a loss sends back to
    the weights. The result is |J^T g| where J = diag(p) - p p^T is softmax's Jacobian (closed form:
    p * (g - p . g)). When softmax saturates (p one-hot) every entry of J is near 0, so whatever
    the loss says, almost nothing reaches the scores, hence W_q and W_k: training stalls.
    One backward pass for all queries, since the rows of softmax do not interact.
    """
    s = scores.detach().clone().requires_grad_(True)  # (S, T)
    weights = stages.softmax(s)  # (S, T)
    (grad,) = torch.autograd.grad((weights * g).sum(), s)  # (S, T): row i is J_i^T g_i
    return grad.norm(dim=-1)  # (S,)


def measure(d_k: int, samples: int, tokens: int, seed: int) -> list[dict]:
    """One row per variant (scaled, unscaled) at one d_k, from the same samples.

    variance: of all samples x tokens scores (about d_k unscaled, 1 scaled); largest weight and
    entropy (nats): means over queries; gradient: the median over queries of softmax_gradient_norm
    (the typical query), and its mean. The mean falls much less than the median: a few queries have
    two nearly tied top keys, and those keep a sizeable gradient even when softmax saturates.
    """
    scores, g = sample_scores(d_k, samples, tokens, seed)  # (S, T), (S, T)
    rows = []
    for label, s in ((SCALED, stages.scale_scores(scores, d_k)), (UNSCALED, scores)):
        weights = stages.softmax(s)  # (S, T)
        gradient = softmax_gradient_norm(s, g)  # (S,)
        rows.append({
            "d_k": d_k, "scores": label,
            "variance": float(s.var()),
            "largest weight": float(weights.max(dim=-1).values.mean()),
            "entropy (nats)": float(stages.entropy(weights).mean()),
            "gradient (median)": float(gradient.median()),
            "gradient (mean)": float(gradient.mean()),
        })
    return rows


def sweep(samples: int, tokens: int, seed: int, d_k_values=POWERS) -> list[dict]:
    """measure() at every d_k: rows for a long-format table (one line per variant in a chart)."""
    return [row for d_k in d_k_values for row in measure(d_k, samples, tokens, seed)]


def d_k_stack(samples: int, tokens: int, seed: int, d_k_values=POWERS) -> dict:
    """One T x T map of the experiment at every d_k at once, for a view whose d_k slider only selects.

    The map at each d_k is the first group of sample_scores (T queries against the T keys they share),
    the same draws measure() averages over. Returns float64 tensors: "scaled" and "unscaled" weights
    (D, T, T), softmax(ω / √d_k) and softmax(ω); "sharpness" (D, T, 4): each row's largest weight and
    entropy ÷ ln T, scaled then unscaled (sharpness_per_row).
    """
    if samples < tokens:
        raise ValueError(f"samples ({samples}) must be at least tokens ({tokens}): the map is one whole group")
    raw = torch.stack([sample_scores(d_k, samples, tokens, seed)[0][:tokens] for d_k in d_k_values])  # (D, T, T)
    scaled = stages.softmax(torch.stack([stages.scale_scores(s, d_k) for s, d_k in zip(raw, d_k_values)]))  # (D, T, T)
    unscaled = stages.softmax(raw)  # (D, T, T)
    sharp = torch.cat([sharpness_per_row(scaled), sharpness_per_row(unscaled)], dim=-1)  # (D, T, 4)
    return {"scaled": scaled, "unscaled": unscaled, "sharpness": sharp}


def histogram(d_k: int, samples: int, tokens: int, seed: int, bins: int = 40) -> list[dict]:
    """Histogram rows (scores, bin_start, bin_end, density) of the scaled and unscaled scores at d_k.

    The same samples as measure() at this d_k. Each variant gets `bins` equal bins over its own
    range (a shared range would squeeze the scaled scores into one or two bins at large d_k);
    density = count / (n * bin width), so each variant's bars have area 1.
    """
    scores, _ = sample_scores(d_k, samples, tokens, seed)
    rows = []
    for label, s in ((SCALED, stages.scale_scores(scores, d_k)), (UNSCALED, scores)):
        values = s.flatten()  # (S * T,)
        low, high = float(values.min()), float(values.max())
        if high - low < 1e-12:  # every score equal (one sample of one key): one bin around it
            low, high = low - 0.5, high + 0.5
        counts = torch.histc(values, bins=bins, min=low, max=high)  # (bins,)
        width = (high - low) / bins
        for i, count in enumerate(counts.tolist()):
            rows.append({"scores": label, "bin_start": low + i * width, "bin_end": low + (i + 1) * width,
                         "density": count / (values.numel() * width)})
    return rows


def loglog_slope(d_k_values, variances) -> float:
    """Least-squares slope of log(variance) against log(d_k): 1 means variance proportional to d_k."""
    x = torch.tensor([math.log(d) for d in d_k_values], dtype=torch.float64)
    y = torch.tensor([math.log(v) for v in variances], dtype=torch.float64)
    x, y = x - x.mean(), y - y.mean()
    return float((x * y).sum() / (x * x).sum())


# --- Why the book leaves torch.rand weights behind: all-positive vectors saturate softmax ------------

SATURATION_TOKENS, SATURATION_D = 256, 768  # 256 queries and keys of GPT-2 small's width
ONE_HOT = 0.99  # a row whose largest weight exceeds this counts as one-hot
# (inputs, weights): the book's v1 at GPT-2 size, each half of the fix alone, and a real model's start.
SATURATION_SETUPS = (("torch.rand", "torch.rand"), ("torch.randn", "torch.rand"),
                     ("torch.rand", "nn.Linear"), ("torch.randn", "nn.Linear"))


def sharpness_per_row(weights: torch.Tensor) -> torch.Tensor:
    """(..., T, 2): each row's largest weight and its entropy over ln T, for unmasked (..., T, T) weights."""
    w = weights.double()  # (..., T, T)
    tokens = w.shape[-1]
    largest = w.max(dim=-1).values  # (..., T)
    ratio = (stages.entropy(w) / math.log(tokens)).clamp(min=0) if tokens > 1 else torch.zeros_like(largest)  # (..., T)
    return torch.stack([largest, ratio], dim=-1)


def sharpness(weights: torch.Tensor) -> dict:
    """How peaked the rows of an unmasked (T, T) weights map are, as medians over its rows.

    largest: the largest weight of a row (1/T when even, 1 when one-hot); entropy ÷ uniform: the
    row's entropy over ln T (1 when even, 0 when one-hot); one-hot: the share of rows whose largest
    weight exceeds ONE_HOT.
    """
    largest, ratio = sharpness_per_row(weights).unbind(-1)  # (T,) each
    # The median as a teacher computes it: the mean of the two middle rows when T is even (torch.median takes the
    # lower one: 0.2092 for /softmax's six rows, where a hand gets 0.2098).
    return {"largest weight": float(largest.double().quantile(0.5)),
            "entropy ÷ uniform": float(ratio.double().quantile(0.5)),
            "one-hot rows": float((largest > ONE_HOT).double().mean())}


def _saturation_draw(inputs: str, weights: str, tokens: int, d: int, gen: torch.Generator):
    """Inputs x (T, d) and W_q, W_k (d, d) of one setup."""
    x = (torch.rand if inputs == "torch.rand" else torch.randn)(tokens, d, generator=gen, dtype=torch.float64)
    if weights == "torch.rand":  # SelfAttention_v1 as the book writes it
        w_q, w_k = (torch.rand(d, d, generator=gen, dtype=torch.float64) for _ in range(2))
    else:  # nn.Linear's default: uniform in ±1/√d_in
        w_q, w_k = ((torch.rand(d, d, generator=gen, dtype=torch.float64) * 2 - 1) / math.sqrt(d) for _ in range(2))
    return x, w_q, w_k


def saturation(tokens: int = SATURATION_TOKENS, d: int = SATURATION_D, seed: int = 123) -> list[dict]:
    """One row per (inputs, weights) setup: the scores' mean and spread, and how sharp softmax gets.

    Each setup draws x (tokens, d), W_q and W_k (d, d), scores ω = (x W_q)(x W_k)ᵀ with no mask, and
    measures softmax(ω / √d) and softmax(ω) with `sharpness`. "score mean" is the mean of all ω;
    "spread in a row" the median over queries of the standard deviation of ω / √d across one query's
    keys: softmax ignores a row's mean but not its spread. All-positive vectors give every score
    the same sign and a mean of about d · (d/4)² = d³/16 (torch.rand's inputs and weights: each projected entry is
    about d/4), and the keys' sizes differ in proportion: a spread in the thousands after scaling, so nearly every
    row is one-hot. Zero-mean inputs and
    weights keep the scaled spread near 1/3.
    """
    _check(1, min(tokens, MAX_TOKENS), min(d, MAX_D_K))
    if tokens > 1024 or d > MAX_D_K:
        raise ValueError(f"tokens must be at most 1024 and d at most {MAX_D_K}")
    rows = []
    for inputs, weights in SATURATION_SETUPS:
        gen = torch.Generator().manual_seed(seed * 4 + len(rows))  # the same draws whichever setups run
        x, w_q, w_k = _saturation_draw(inputs, weights, tokens, d, gen)
        scores = (x @ w_q) @ (x @ w_k).T  # (T, T)
        scaled = stages.scale_scores(scores, d)
        row = {"inputs": inputs, "weights": weights, "score mean": float(scores.mean()),
               "spread in a row": float(scaled.std(dim=-1).median())}
        for label, s in (("scaled", scaled), ("unscaled", scores)):
            row |= {f"{name}, {label}": value for name, value in sharpness(stages.softmax(s)).items()}
        rows.append(row)
    return rows


if __name__ == "__main__":  # timing: python -m attention_core.lessons.experiments [--quick]
    import sys
    import time

    samples, tokens = (1024, 16) if "--quick" in sys.argv else (MAX_SAMPLES, MAX_TOKENS)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {samples} queries x {tokens} keys per d_k")
    for run in ("cold", "again"):  # "again": a second process-warm run (the page caches instead)
        start = time.perf_counter()
        sweep(samples, tokens, seed=123)
        middle = time.perf_counter()
        histogram(MAX_D_K, samples, tokens, seed=123)
        print(f"{run}: sweep over d_k = 1..1024 {middle - start:.3f} s, histogram at d_k = 1024 "
              f"{time.perf_counter() - middle:.3f} s")
