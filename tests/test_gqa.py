"""/gqa: the book's GroupedQueryAttention (ch04/04_gqa) and what the stage computes from it."""
import pytest
import torch

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.variants import GroupedQueryAttention
from attention_core.lessons import cache_bytes, gqa
from attention_core.lessons.questions import check
from conftest import open_screen, page_text, views

# Golden outputs of the book's own file, run in /tmp on 2026-11-27 (torch 2.13 CPU):
#   git show HEAD:ch04/04_gqa/gpt_with_kv_gqa.py > book_gqa.py   (rasbt/LLMs-from-scratch)
#   torch.manual_seed(123); m = book_gqa.GroupedQueryAttention(3, 2, 0.0, num_heads=2, num_kv_groups=1)
#   m(BOOK_INPUTS[None]).tolist()                        -> BOOK_2_1
#   torch.manual_seed(123); m = book_gqa.GroupedQueryAttention(4, 8, 0.0, num_heads=4, num_kv_groups=2)
#   m(torch.rand(1, 5, 4, generator=torch.Generator().manual_seed(7))).tolist()   -> RANDOM_4_2
BOOK_2_1 = [[-0.4080631136894226, -0.15804250538349152], [-0.19178099930286407, -0.07442127913236618],
            [-0.12046929448843002, -0.04678661376237869], [-0.0665738433599472, -0.025927580893039703],
            [-0.07047784328460693, -0.027444923296570778], [-0.03533564507961273, -0.013839863240718842]]
RANDOM_4_2 = [
    [0.22351117432117462, -0.2128046154975891, 0.05147126317024231, 0.4312915802001953, -0.2363298237323761,
     0.04561574384570122, 0.1842305213212967, -0.06332270801067352],
    [0.11388549953699112, -0.16765053570270538, 0.008464779704809189, 0.3185946047306061, -0.04351799190044403,
     0.0995938777923584, 0.11002478003501892, 0.025983233004808426],
    [0.09173208475112915, -0.17436301708221436, 0.015495698899030685, 0.31211864948272705, -0.0035799145698547363,
     0.10417040437459946, 0.10388343781232834, 0.03030628338456154],
    [0.09756775200366974, -0.1628570854663849, 0.020488491281867027, 0.2946551740169525, -0.029727734625339508,
     0.08452294766902924, 0.10416222363710403, 0.014645472168922424],
    [0.14211922883987427, -0.16318678855895996, 0.049132321029901505, 0.32291194796562195, -0.13633255660533905,
     0.03826739266514778, 0.13122358918190002, -0.04076220095157623]]


def _random_x():
    return torch.rand(1, 5, 4, generator=torch.Generator().manual_seed(7))  # (1, T, d_in)


@pytest.mark.parametrize("sizes, x, golden", [((3, 2, 2, 1), BOOK_INPUTS[None], BOOK_2_1),
                                              ((4, 8, 4, 2), _random_x(), RANDOM_4_2)], ids=["book", "4-heads-2-kv"])
def test_the_class_gives_the_books_own_numbers_bit_for_bit(sizes, x, golden):
    d_in, d_out, heads, kv = sizes
    module = build_seeded(GroupedQueryAttention, 123, d_in, d_out, 0.0, heads, kv)
    with torch.no_grad():
        out = module(x)
        # golden: printed by the book's file on one machine; another processor may round the last bit differently
        assert torch.allclose(out[0], torch.tensor(golden), atol=1e-6, rtol=0)
        assert torch.equal(module.trace(x)["context_vec"], out)  # the app's trace is the same computation
    assert [n for n, _ in module.named_parameters()] == ["W_key.weight", "W_value.weight", "W_query.weight",
                                                          "out_proj.weight"]  # the book's creation order


def test_as_many_kv_heads_as_query_heads_is_the_chapters_multi_head_attention():
    x = torch.rand(1, 7, 6, generator=torch.Generator().manual_seed(3))
    module = build_seeded(GroupedQueryAttention, 5, 6, 12, 0.0, 4, 4)
    mha = gqa.mha_from_gqa(module, 7)
    assert isinstance(mha, MultiHeadAttention)
    with torch.no_grad():
        assert torch.allclose(mha(x), module(x), atol=1e-7)
        mha.W_key.weight.add_(0.01)  # the comparison sees a weight that differs
        assert not torch.allclose(mha(x), module(x), atol=1e-4)


def test_repeat_pairs_query_heads_with_other_groups_where_it_must():
    assert gqa.pairing(4, 2) == [0, 0, 1, 1] and gqa.pairing(4, 2, "repeat") == [0, 1, 0, 1]
    assert gqa.pairing(6, 3) == [0, 0, 1, 1, 2, 2] and gqa.pairing(6, 3, "repeat") == [0, 1, 2, 0, 1, 2]
    for heads, kv in ((4, 1), (4, 4), (2, 1), (1, 1)):  # one group, or one head a group: the same list either way
        assert not gqa.orders_differ(heads, kv)
    assert gqa.orders_differ(4, 2) and gqa.orders_differ(12, 4)
    module = build_seeded(GroupedQueryAttention, 123, 4, 8, 0.0, 4, 2)
    with torch.no_grad():
        right, wrong = module.trace(_random_x()), module.trace(_random_x(), expand="repeat")
    assert torch.equal(right["keys"][0, 1], right["keys_new"][0, 0])  # query head 2 meets K1 ...
    assert torch.equal(wrong["keys"][0, 1], right["keys_new"][0, 1])  # ... or K2 with repeat
    assert not torch.allclose(wrong["context_vec"], right["context_vec"], atol=1e-3)


@pytest.mark.parametrize("heads, kv", [(2, 1), (4, 2), (6, 3), (4, 4)])
def test_cached_one_token_at_a_time_equals_all_at_once(heads, kv):
    x = torch.rand(9, 6, generator=torch.Generator().manual_seed(11))  # (T, d_in)
    module = build_seeded(GroupedQueryAttention, 123, 6, 12, 0.0, heads, kv)
    cached = gqa.cached_run(module, x)
    assert module.cache_k is None and module.ptr_current_pos == 0  # reset after
    with torch.no_grad():
        assert torch.allclose(cached, module(x[None]), atol=1e-6)
        module(x[None, :4], use_cache=True)  # the cache holds num_kv_groups heads, before repeat_interleave
        assert module.cache_k.shape == (1, kv, 4, 12 // heads)


def test_the_repeat_mistake_differs_from_the_right_result_even_where_the_lessons_setting_cannot_show_it():
    found = gqa.repeat_mistake(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, num_kv_groups=1)
    assert (found["num_heads"], found["num_kv_groups"], found["d_out"]) == (4, 2, 4)  # 2 heads: the orders agree
    assert float((found["wrong"] - found["right"]).abs().max()) > 1e-3
    here = gqa.repeat_mistake(torch.rand(5, 6, generator=torch.Generator().manual_seed(1)), d_out=12, seed=123,
                              device="cpu", num_heads=6, num_kv_groups=3)
    assert (here["num_heads"], here["num_kv_groups"]) == (6, 3)
    assert float((here["wrong"] - here["right"]).abs().max()) > 1e-3


def test_the_cache_and_the_books_readme_example():
    book = gqa.readme_example()  # the book's memory_estimator_gqa.py printed 17.18 GB and 4.29 GB (run in /tmp)
    assert (book["mha"], book["gqa"]) == (17_179_869_184, 4_294_967_296)
    assert (gqa.book_gb(book["mha"]), gqa.book_gb(book["gqa"])) == ("17.18 GB", "4.29 GB")
    assert book["kv_heads"] == 8 and book["confused_kv_heads"] == 4 and gqa.book_gb(book["confused"]) == "2.15 GB"
    here = gqa.cache_at(6, 2, 2, 1)  # 2 × 6 tokens × 1 kv head × head_dim 1 × 4 bytes
    assert (here["gqa"], here["mha"], here["ratio"]) == (48, 96, 2.0)
    assert gqa.cache_at(1024, 768, 12, 4)["gqa"] == cache_bytes.kv_cache_bytes(
        tokens=1024, layers=1, kv_heads=4, head_dim=64, bytes_per_elem=4)


def test_w_key_and_w_value_shrink_by_num_heads_over_num_kv_groups_counted():
    for heads, kv in ((12, 12), (12, 4), (12, 1)):
        params = gqa.parameter_counts(gqa.build(768, 768, heads, kv, 123))
        assert params["W_key"] == params["W_value"] == 768 * 768 * kv // heads
        assert params["mha_key"] == params["W_key"] * heads // kv and params["shrink"] == heads // kv
        assert params["W_query"] == 768 * 768 and params["out_proj"] == 768 * 768  # no bias in this out_proj


def test_the_agreement_checks_agree_and_would_see_a_difference():
    found = gqa.checks(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, num_kv_groups=1)
    assert max(found.values()) <= 1e-6
    x = torch.rand(12, 8, generator=torch.Generator().manual_seed(2))
    assert max(gqa.checks(x, d_out=8, seed=1, device="cpu", num_heads=4, num_kv_groups=2).values()) <= 1e-6


def test_the_questions_answers():
    key_heads, shape, size = gqa.gqa_questions(12, 4, 768, 768, 1024)
    assert check(key_heads, "2").ok and not check(key_heads, "6").ok  # 12 / 2 = 6 is issue #922's confusion
    assert check(shape, "no").ok
    assert size.answer == 2 * 1024 * 4 * 64 * 4 and check(size, f"{2 * 1024 * 4 * 64 * 4}").ok
    assert "num_heads=8" in gqa.gqa_questions(3, 1, 3, 3, 6)[0].prompt  # 2 must divide the heads asked about ...
    assert "num_heads=8" in gqa.gqa_questions(2, 1, 3, 2, 6)[0].prompt  # ... and 2 heads a group would be 2 either way


def test_every_setting_stack_holds_each_settings_heads_as_the_class_computes_them():
    stack = gqa.every_setting(BOOK_INPUTS, d_out=4, seed=123, device="cpu", num_heads=4)  # settings 4, 2, 1
    assert stack.shape == (3 * 4, 6, 6)
    for kv in (4, 2, 1):
        module = gqa.build(3, 4, 4, kv, 123)
        with torch.no_grad():
            weights = module.trace(BOOK_INPUTS[None])["attn_weights"][0]  # (h, T, T)
        start = gqa.frame_of(4, kv, 0)
        assert torch.equal(stack[start:start + 4], weights)


@pytest.mark.parametrize("preset", ["book", "gpt2-small"])
def test_the_screen_opens_at_both_presets_with_its_numbers(preset):
    at = open_screen("gqa", preset=preset, sections=["cache", "checks", "mistakes", "questions"])
    assert not at.exception
    text = page_text(at)
    assert "17.18 GB" in text and "4.29 GB" in text and "2.15 GB" in text
    heads, kv = (2, 1) if preset == "book" else (12, 4)  # GPT-2 small opens on 4 key/value heads (the preset)
    T, head_dim = (6, 1) if preset == "book" else (1024, 64)
    assert f"{2 * T * kv * head_dim * 4:,} bytes" in text  # this layer's cache, float32
    assert at.error and at.success  # the mistake beside the right result
    view = views(at)["gqa_view"]
    frames = view["meta"]["frames"]
    if preset == "book":  # every num_kv_groups and head in the browser
        assert frames["dims"][0]["values"] == [2, 1] and frames["dims"][1]["values"] == [1, 2]
    else:
        assert len(frames["dims"]) == 1 and frames["dims"][0]["param"] == "head"


def test_a_num_kv_groups_that_does_not_divide_the_heads_falls_back_with_a_note():
    at = open_screen("gqa", preset="gpt2-small", kv_groups="5")
    assert not at.exception
    assert any("num_kv_groups 5 does not divide num_heads = 12" in w.value for w in at.warning)


def test_a_demonstration_in_a_yellow_box_carries_a_warning_sign_not_a_cross():
    # A teacher read: a yellow ✗ under "The README's model, handed the class's number". Red boxes keep the cross.
    at = open_screen("gqa", sections=["questions", "mistakes"])
    warnings, errors = [w.proto.icon for w in at.warning], [e.proto.icon for e in at.error]
    assert any(icon == ":material/warning:" for icon in warnings), warnings
    assert ":material/close:" not in warnings and errors and set(errors) == {":material/close:"}, (warnings, errors)


def test_a_groups_maps_come_with_what_to_look_for_measured_on_them():
    # A teacher read: at GPT-2 small's size a group's maps are noise with no sentence saying what to look for.
    at = open_screen("gqa", preset="gpt2-small")
    said = [c.value for c in at.caption if "maps above" in c.value]
    assert len(said) == 1 and "differ" in said[0] and "chance alone" in said[0], said
    distance = float(said[0].split("differently by ")[1].split(" ")[0])
    assert 0.1 < distance < 1  # noise around the even share differs from head to head, by a measurable amount
