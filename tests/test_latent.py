"""/latent: the book's MultiHeadLatentAttention (ch04/05_mla) and what the stage computes from it."""
import pytest
import torch

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.variants import MultiHeadLatentAttention
from attention_core.lessons import cache_bytes, latent
from attention_core.lessons.questions import check
from conftest import open_screen, page_text, views

# Golden outputs of the book's own file, run in /tmp on 2026-11-27 (torch 2.13 CPU):
#   git show HEAD:ch04/05_mla/gpt_with_kv_mla.py > book_mla.py   (rasbt/LLMs-from-scratch)
#   torch.manual_seed(123); m = book_mla.MultiHeadLatentAttention(3, 2, 0.0, num_heads=2, latent_dim=1)
#   m(BOOK_INPUTS[None]).tolist()                        -> BOOK_2_1
#   torch.manual_seed(123); m = book_mla.MultiHeadLatentAttention(4, 8, 0.0, num_heads=4, latent_dim=3)
#   m(torch.rand(1, 5, 4, generator=torch.Generator().manual_seed(7))).tolist()   -> RANDOM_4_3
BOOK_2_1 = [[0.42867472767829895, -0.39969703555107117], [0.4203302264213562, -0.4596855938434601],
            [0.4174465239048004, -0.4787316918373108], [0.42187219858169556, -0.4488929510116577],
            [0.42424750328063965, -0.43175891041755676], [0.42526501417160034, -0.42636898159980774]]
RANDOM_4_3 = [
    [-0.27073219418525696, 0.015298370271921158, -0.25139641761779785, 0.0938720852136612, 0.060342494398355484,
     0.2673836350440979, -0.2427757978439331, 0.35249006748199463],
    [-0.25859224796295166, 0.031398676335811615, -0.26473602652549744, 0.123301200568676, 0.07315733283758163,
     0.28675004839897156, -0.23816585540771484, 0.3337379992008209],
    [-0.2683161199092865, -0.01040082797408104, -0.2611912786960602, 0.10215477645397186, 0.033816948533058167,
     0.2753891050815582, -0.2580539286136627, 0.3457847833633423],
    [-0.2643657624721527, -0.006885390728712082, -0.26443350315093994, 0.1086660772562027, 0.03762523829936981,
     0.28104928135871887, -0.2585177719593048, 0.34202897548675537],
    [-0.268346905708313, -0.030952665954828262, -0.2641828656196594, 0.0980323776602745, 0.018750600516796112,
     0.2713767886161804, -0.26766109466552734, 0.3498196601867676]]


def _random_x():
    return torch.rand(1, 5, 4, generator=torch.Generator().manual_seed(7))  # (1, T, d_in)


@pytest.mark.parametrize("sizes, x, golden", [((3, 2, 2, 1), BOOK_INPUTS[None], BOOK_2_1),
                                              ((4, 8, 4, 3), _random_x(), RANDOM_4_3)], ids=["book", "4-heads-latent-3"])
def test_the_class_gives_the_books_own_numbers_bit_for_bit(sizes, x, golden):
    d_in, d_out, heads, latent_dim = sizes
    module = build_seeded(MultiHeadLatentAttention, 123, d_in, d_out, 0.0, heads, latent_dim=latent_dim)
    with torch.no_grad():
        out = module(x)
        # golden: printed by the book's file on one machine; another processor may round the last bit differently
        assert torch.allclose(out[0], torch.tensor(golden), atol=1e-6, rtol=0)
        assert torch.equal(module.trace(x)["context_vec"], out)  # the app's trace is the same computation
    assert [n for n, _ in module.named_parameters()] == ["W_query.weight", "W_DKV.weight", "W_UK.weight", "W_UV.weight",
                                                          "out_proj.weight", "out_proj.bias"]  # the book's order
    assert build_seeded(MultiHeadLatentAttention, 1, 4, 768, 0.0, 12).latent_dim == 96  # max(16, d_out // 8)


@pytest.mark.parametrize("latent_dim", [1, 3, 16])
def test_cached_one_token_at_a_time_equals_all_at_once_and_the_cache_holds_the_latent(latent_dim):
    x = torch.rand(9, 6, generator=torch.Generator().manual_seed(11))  # (T, d_in)
    module = latent.build(6, 12, 3, latent_dim, 123)
    with torch.no_grad():
        assert torch.allclose(latent.cached_run(module, x), module(x[None]), atol=1e-6)
        module(x[None, :4], use_cache=True)
        assert module.cache_c_kv.shape == (1, 4, latent_dim)  # one latent vector a token, nothing else
        assert torch.equal(module.cache_c_kv, module.W_DKV(x[None, :4]))


def test_the_position_mistake_differs_from_the_right_result():
    found = latent.mistakes(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, latent_dim=1)
    assert torch.equal(found["right"][0], found["wrong"][0])  # the first token sees the first key either way ...
    assert float((found["right"][1:] - found["wrong"][1:]).abs().max()) > 1e-3  # ... the later ones do not
    assert (found["latent_numbers"], found["rebuilt_numbers"]) == (1, 4)  # caching K and V: 4 numbers a token, not 1


def test_a_full_rank_latent_is_the_multi_head_layer_and_a_smaller_one_drifts_away():
    x = torch.rand(8, 6, generator=torch.Generator().manual_seed(4))
    mha = build_seeded(MultiHeadAttention, 9, 6, 4, 8, 0.0, 2)
    with torch.no_grad():
        reference = mha(x[None])
        assert torch.allclose(latent.full_latent(mha)(x[None]), reference, atol=1e-6)  # K and V cached as they are
        for latent_dim in (6, 8):  # rank of [W_key; W_value] (8 × 6) is 6
            assert torch.allclose(latent.latent_from_mha(mha, latent_dim)(x[None]), reference, atol=1e-6)
        errors = [float((latent.latent_from_mha(mha, n)(x[None]) - reference).norm()) for n in (1, 3, 5)]
    assert errors[0] > errors[1] > errors[2] > 1e-4
    rows = latent.closeness(x, d_out=4, seed=9, device="cpu", num_heads=2, latents=(1, 3, 6, 8))
    assert rows["rank"] == 6 and [r["kept"] for r in rows["rows"]][-2:] == pytest.approx([1.0, 1.0])
    assert rows["rows"][0]["relative error"] > rows["rows"][1]["relative error"] > rows["rows"][2]["relative error"]


def test_the_cache_against_multi_head_and_grouped_query_and_the_books_readme_examples():
    here = latent.cache_at(1024, 768, 12, 192, 4)
    assert here["mla"] == 1024 * 192 * 4 == cache_bytes.latent_cache_bytes(tokens=1024, layers=1, latent_dim=192,
                                                                           bytes_per_elem=4)
    assert (here["mha"], here["gqa"], here["ratio"]) == (2 * 1024 * 768 * 4, 2 * 1024 * 4 * 64 * 4, 8.0)
    assert here["per_token"] == {"mha": 1536, "gqa": 512, "mla": 192}
    book = latent.readme_examples()  # the book's memory_estimator_mla.py printed 3.25, 0.81, 0.81 GB (run in /tmp)
    e = book["estimator"]
    assert (e["mha"], e["gqa"], e["mla"]) == (3_246_391_296, 811_597_824, 805_306_368)
    assert [latent.book_gb(e[k]) for k in ("mha", "gqa", "mla")] == ["3.25 GB", "0.81 GB", "0.81 GB"]
    assert [latent.book_gb(book["run"][k]) for k in ("mha", "mla")] == ["1.21 GB", "0.15 GB"]  # its 1.21, 0.15 GB too
    assert latent.auto_latent(768) == 192 and latent.auto_latent(2) == 1


def test_the_agreement_checks_agree():
    found = latent.checks(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, latent_dim=1)
    assert max(found.values()) <= 1e-6


def test_the_questions_answers():
    per_token, size = latent.latent_questions(768, 12, 192, 1024)
    assert check(per_token, "8").ok and not check(per_token, "192").ok and not check(per_token, "4").ok  # 1,536 / 192
    assert check(size, str(1024 * 192 * 4)).ok and not check(size, str(2 * 1024 * 192 * 4)).ok


@pytest.mark.parametrize("preset", ["book", "gpt2-small"])
def test_the_screen_opens_at_both_presets_with_its_numbers(preset):
    at = open_screen("latent", preset=preset, sections=["cache", "checks", "mistakes"])
    text = page_text(at)
    latent_dim, T = (1, 6) if preset == "book" else (192, 1024)  # latent_dim: d_out / 4 by default
    assert f"{T * latent_dim * 4:,} bytes" in text  # this layer's latent cache, float32
    assert "3.25 GB" in text and "1.54 GB" in text and "0.15 GB" in text
    assert at.error and at.success  # each mistake beside the right result
    view = views(at)["latent_view"]
    assert view["meta"]["frames"]["dims"][0]["param"] == "head"


def test_a_latent_dim_past_two_d_out_falls_back_with_a_note():
    at = open_screen("latent", latent_dim="9")
    assert any("latent_dim 9 is more than 2 · d_out = 4 (every head's key and value); using the default, 1 (d_out / 4 "
               "rounded down, at least 1)." in w.value for w in at.warning)
    shown = {m.label: m.value for m in at.metric}
    assert shown["latent_dim: numbers cached a token"] == "1"
    assert shown["latent cache, this layer (float32)"] == f"{6 * 1 * 4:,} bytes"
