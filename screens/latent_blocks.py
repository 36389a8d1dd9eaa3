"""The latent-cache screen's pictures and sub-lessons: the latent_dim control, keys and values rebuilt from one token's
latent, the cache against multi-head and grouped-query attention, the book's README examples, how close a latent of
each size stays, the checks and the mistakes.

screens/latent.py keeps the outline (the controls, the view, the prose, the sections) and calls each of these with
one line. record is latent.latent_trace's: CPU tensors of the one sequence.
"""
import pandas as pd
import streamlit as st

from attention_core.drawing.numbers import listing
from attention_core.lessons import latent
from ui.compute.cache import stage_call
from ui.draw.checks import agreement, pitfall
from ui.state.controls import heads_picker
from ui.state.session import clamp, control
from ui.state.settings import Settings


def latent_picker(d_out: int) -> int:
    """latent_dim from 1 to 2 · d_out; 0 (the URL's default) shows latent.auto_latent(d_out), d_out / 4."""
    auto = latent.auto_latent(d_out)
    # The app's default, not the book's class (max(16, d_out // 8)): the README's run, 768 → 192, and 1 at d_out 2.
    rule = "d_out / 4" + ("" if d_out % 4 == 0 else " rounded down, at least 1")
    options = [0] + latent.latent_choices(d_out)
    # an invalid value falls back to the default, 0 (always allowed): the note names what 0 shows
    clamp("latent_dim", options=options, fallback_note=f"latent_dim {{old}} is more than 2 · d_out = {2 * d_out:,} "
          f"(every head's key and value); using the default, {auto:,} ({rule}).")
    picked = control(st.select_slider, "latent_dim", "latent_dim", options=options,
                     format_func=lambda v: f"auto: {auto:,} ({rule})" if v == 0 else f"{v:,}")
    return picked or auto


def heads_and_groups(d_out: int, num_tokens: int) -> tuple[int, int]:
    """num_heads (the shared heads picker) and the grouped-query setting compared with: /gqa's num_kv_groups."""
    num_heads = heads_picker(d_out, num_tokens)
    groups = clamp("kv_groups", options=[g for g in range(1, num_heads + 1) if num_heads % g == 0])
    return num_heads, groups


def rebuilt(record: dict, q: int, labels: list) -> None:
    """One token's latent, and the key and value W_UK and W_UV rebuild from it."""
    c, k, v = record["latent_new"][q], record["keys_all"][q], record["values_all"][q]
    st.markdown(f"**What the cache holds for “{labels[q]}” (token {q + 1})**: the latent c = W_DKV(x), {c.numel():,} "
                f"number{'' if c.numel() == 1 else 's'}: {listing(c, 6)}")
    st.markdown(f"Rebuilt at every step: key = W_UK(c), {k.numel():,} numbers: {listing(k, 6)}; value = W_UV(c): "
                f"{listing(v, 6)}. Every head's keys and values come from these, so nothing else needs keeping.")


def cache_table(cache: dict, num_tokens: int, num_heads: int) -> None:
    """This layer's cache: multi-head, grouped-query, latent, in numbers a token and in bytes."""
    g, per = cache["num_kv_groups"], cache["per_token"]
    rows = [("multi-head attention", f"{num_heads} key/value heads", per["mha"], cache["mha"]),
            ("grouped-query attention", f"num_kv_groups = {g} (as on the Shared keys screen)", per["gqa"], cache["gqa"]),
            ("latent (this screen)", "latent_dim", per["mla"], cache["mla"])]
    st.table(pd.DataFrame([(a, b, f"{n:,}", f"{bytes_:,}") for a, b, n, bytes_ in rows],
                          columns=["attention", "cached", "numbers a token", f"bytes, {num_tokens:,} tokens (float32)"]),
             hide_index=True, width="content")
    fewest = min(row[2] for row in rows)
    least = " and ".join(row[0] for row in rows if row[2] == fewest)
    size = (f"{cache['ratio']:.4g} times smaller than" if cache["ratio"] > 1 else "the same size as" if
            cache["ratio"] == 1 else f"{1 / cache['ratio']:.4g} times larger than")
    st.caption(f"The latent cache is {size} multi-head attention's; {least} cache"
               f"{'s' if ' and ' not in least else ''} the fewest numbers a token here.")


def readme_examples() -> None:
    """The book's two README examples, computed with the same formulas."""
    book = latent.readme_examples()
    e, r = book["estimator"], book["run"]
    st.markdown("**The book's estimator** (ch04/05_mla/README.md: 8,192 tokens, 2,048 dims, 24 heads, 48 layers, bf16; "
                f"head_dim = ⌈2048 / 24⌉ = {e['head_dim']}, as memory_estimator_mla.py rounds it):")
    st.table(pd.DataFrame([("multi-head attention", latent.book_gb(e["mha"])),
                           ("grouped-query, 6 key/value heads (--n_kv_groups 4)", latent.book_gb(e["gqa"])),
                           ("latent, latent_dim = 1,024", latent.book_gb(e["mla"]))], columns=["attention", "KV cache"]),
             hide_index=True, width="content")
    st.markdown(f"**The book's run** (768 dims, 24 heads, 12 layers, 32,768 new tokens, bf16, latent_dim = 192): the "
                f"README reports {latent.RUN['measured_mha']} → {latent.RUN['measured_mla']}, the GPU's peak memory "
                f"for the whole model (weights and activations too), measured by the book. The cache alone, by the "
                f"formulas above: {latent.book_gb(r['mha'])} → {latent.book_gb(r['mla'])}, "
                f"{r['mha'] / r['mla']:.4g} times smaller ((768 × 2) / 192).")


def closeness(settings: Settings, num_heads: int, latent_dim: int) -> None:
    """How close the best latent of each size stays to a multi-head layer with these random weights."""
    d_in, d_out = settings.x.shape[1], settings.d_out
    found = stage_call(latent.closeness, settings, "latent", num_heads=num_heads,
                       latents=latent.curve_latents(d_out, d_in, latent_dim))
    rows = found["rows"]
    st.table(pd.DataFrame([(f"{row['latent_dim']:,}" + (" (this screen)" if row["latent_dim"] == latent_dim else ""),
                            f"{row['relative error']:.4f}", f"{row['kept']:.4f}") for row in rows],
                          columns=["latent_dim", "output error ‖Δ‖ / ‖out‖", "share of K/V kept (σ²)"]),
             hide_index=True, width="content")
    here = next(row for row in rows if row["latent_dim"] == latent_dim)
    exact = min(row["latent_dim"] for row in rows if row["relative error"] <= 1e-5)
    st.caption(f"MultiHeadAttention with this screen's seed, and for each latent_dim the book's "
               f"MultiHeadLatentAttention whose W_DKV, W_UK and W_UV are the closest factorisation of its "
               f"[W_key; W_value] (singular value decomposition), on the first {found['tokens']:,} tokens. At latent_dim "
               f"= {latent_dim:,} the outputs are {here['relative error']:.4f} of their size away ({here['kept']:.4f} "
               f"of the squared singular values kept); from latent_dim = {exact:,} (the matrix's rank, "
               f"{found['rank']:,}) they agree.")
    st.info("These weights are random: nothing in them was trained to fit a latent, so a smaller latent_dim loses "
            "whatever share of [W_key; W_value] the table says. A model trained with a latent (DeepSeek-V2 and V3 are) "
            "learns keys and values that fit it, so the compression costs it little; random weights do not show that.",
            icon=":material/school:")


def agreement_checks(settings: Settings, num_heads: int, latent_dim: int) -> None:
    found = stage_call(latent.checks, settings, "latent", num_heads=num_heads, latent_dim=latent_dim)
    agreement([("heads vs F.scaled_dot_product_attention(is_causal=True)", found["sdpa"]),
               ("use_cache, one token at a time vs all at once", found["cache"]),
               ("latent of 2 · d_out vs MultiHeadAttention", found["full_rank"])])
    st.caption("PyTorch's fused attention gets the class's queries and its rebuilt keys and values. A latent of "
               "2 · d_out whose W_DKV is a MultiHeadAttention's [W_key; W_value] (W_UK and W_UV pick the halves) gives "
               "that layer's output. These two checks run the first 64 tokens at most.")


def mistakes(settings: Settings, num_heads: int, latent_dim: int, q: int) -> None:
    found = stage_call(latent.mistakes, settings, "latent", num_heads=num_heads, latent_dim=latent_dim)
    row = min(q, found["right"].shape[0] - 1)
    differ = float((found["wrong"] - found["right"]).abs().max())
    pitfall("Counting each new query from position 0", "self.ptr_current_pos = 0  # before every cached step",
            "self.ptr_current_pos += num_tokens_Q  # the book's forward",
            f"token {row + 1}: {listing(found['wrong'][row])}; each new token sees only the first key, so the outputs "
            f"differ by up to {differ:.4f}." if differ > 0 else f"token {row + 1}: {listing(found['wrong'][row])}: "
            "with one token nothing differs yet.",
            f"token {row + 1}: {listing(found['right'][row])}.")
    pitfall("Caching the rebuilt keys and values", "self.cache_k = torch.cat([self.cache_k, self.W_UK(latent_new)], 1)",
            "self.cache_c_kv = torch.cat([self.cache_c_kv, latent_new], dim=1)",
            f"{found['rebuilt_numbers']:,} numbers a token (2 · d_out): the same outputs, and the same cache as "
            "multi-head attention", f"{found['latent_numbers']:,} number{'' if found['latent_numbers'] == 1 else 's'} "
            "a token (latent_dim)")
