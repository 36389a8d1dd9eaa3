"""The bonus notebook's eight implementations: same outputs as the chapter's class, causal, measurable."""
import pytest
import torch

from attention_core.lessons import bonus_bench, bonus_fused
from attention_core.lessons.bonus_bench import IMPLEMENTATIONS, pair
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded

SHAPES = [(6, 6, 2), (3, 4, 2), (16, 8, 4), (10, 12, 3), (768, 768, 12)]  # (d_in, d_out, heads), d_in ≠ d_out too
SQUARE = {(6, 6, 2), (768, 768, 12)}


@pytest.mark.parametrize("key", list(IMPLEMENTATIONS))
@pytest.mark.parametrize("d_in,d_out,heads", SHAPES)
def test_agrees_with_the_chapter_s_multi_head_attention(key, d_in, d_out, heads):
    if key == "torch_mha" and (d_in, d_out, heads) not in SQUARE:
        with pytest.raises(ValueError, match="needs d_in == d_out"):
            bonus_bench.agreement(key, d_in, d_out, heads)
        return
    assert bonus_bench.agreement(key, d_in, d_out, heads, num_tokens=7) <= bonus_bench.TOLERANCE


@pytest.mark.parametrize("key", list(IMPLEMENTATIONS))
def test_agrees_with_qkv_bias_too(key):
    mha = build_seeded(MultiHeadAttention, 5, 8, 8, 6, 0.0, 2, qkv_bias=True).eval()
    with torch.no_grad():
        for layer in (mha.W_query, mha.W_key, mha.W_value):
            layer.bias.normal_()  # nonzero, so a bias that is dropped shows
    other = IMPLEMENTATIONS[key][1](8, 8, 6, 0.0, 2, qkv_bias=True).eval().copy_from(mha)
    x = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert (other(x) - mha(x)).abs().max() <= 1e-5


def test_a_copy_really_is_needed():
    """Without copy_from the weights differ, and so do the outputs: agreement is not automatic."""
    mha, _ = pair("einsum", 6, 6, 2, 6)
    fresh = IMPLEMENTATIONS["einsum"][1](6, 6, 6, 0.0, 2).eval()
    x = torch.randn(1, 6, 6)
    with torch.no_grad():
        assert (fresh(x) - mha(x)).abs().max() > 1e-3


@pytest.mark.parametrize("key", list(IMPLEMENTATIONS))
def test_no_output_depends_on_a_future_token(key):
    _, model = pair(key, 8, 8, 2, 10, seed=11)
    x = torch.randn(2, 10, 8, generator=torch.Generator().manual_seed(1))
    changed = x.clone()
    changed[:, 6:] = torch.randn(2, 4, 8, generator=torch.Generator().manual_seed(2)) * 5  # tokens 7..10
    with torch.no_grad():
        before, after = model(x), model(changed)
    assert torch.allclose(before[:, :6], after[:, :6], atol=1e-6)  # the past stays put
    assert not torch.allclose(before[:, 6:], after[:, 6:], atol=1e-3)  # and the change did reach the future


def test_the_sdpa_kernels_are_named_and_flash_is_really_forbidden():
    assert bonus_fused.sdpa_backend("cpu") in {"flash_attention", "efficient_attention", "cudnn_attention", "math"}
    assert bonus_fused.sdpa_backend("cpu", flash=False) != "flash_attention"


def test_measure_gives_time_and_memory_or_a_reason():
    rows = {k: bonus_bench.measure(k, "cpu", 32, 1, d_in=16, d_out=16, num_heads=2) for k in IMPLEMENTATIONS}
    for key, row in rows.items():
        for name in ("forward", "backward"):
            assert row[name] == "ok" or row[name].split(":")[0] in {"NotImplementedError", "RuntimeError",
                                                                    "ValueError"}, (key, row)
            if row[name] == "ok":
                assert row[f"{name}_s"] > 0
    assert rows["chapter"]["backward_bytes"] > rows["chapter"]["forward_bytes"] > 0
    # The chapter keeps (b, h, T, T) tensors; SDPA's kernel does not: its forward creates fewer bytes.
    assert rows["sdpa"]["forward_bytes"] < rows["chapter"]["forward_bytes"]
    if rows["flex"]["backward"] != "ok":  # on a CPU: PyTorch's own reason, kept for the screen
        assert "backward" in rows["flex"]["backward"]
