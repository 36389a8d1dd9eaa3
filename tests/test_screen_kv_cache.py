"""AppTest: the KV-cache screen at the book preset and at GPT-2 small's sizes: the step frames, the mask slice at the
pointer, cached equal to uncached, the sections (the speed test only while open), bad steps."""
from conftest import open_screen, open_sections, page_text, plain_number, view_row, views

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.drawing.numbers import scientific
from attention_core.lessons import kv_cache as lesson


def _metric(at, label_start: str) -> str:
    return next(str(m.value) for m in at.metric if m.label.startswith(label_start))


def test_book_preset_steps_through_the_generation_in_the_view():
    at = open_screen("kv-cache")
    assert _metric(at, "keys cached after step 3") == "4" and _metric(at, "mask slice") == "1 × 4"
    assert _metric(at, "multiply-adds at step 3") == "38 / 152"
    # Cached = uncached to float32 rounding: bit for bit on some processors, 3 × 10⁻⁸ on an AVX-512 one (the cached
    # step multiplies (1 × K) shapes, the uncached (K × K): another kernel, another rounding). The screen says which.
    record = lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=2)
    assert max(record["difference"]) < 1e-6
    assert _metric(at, "largest |cached − uncached|") == lesson.difference_text(max(record["difference"]))
    assert "`mask[3:4, :4]`" in page_text(at)  # the slice starts at ptr_current_pos
    view = views(at)["kv_view"]
    dims = view["meta"]["frames"]["dims"]
    # Step, num_heads and Head all move in the browser at the book's size (5 steps × (1 + 2) heads of 6 × 6): no
    # num_heads or Head control here; Head is as long as the count (head 2 of 1 head is not sent).
    assert [d["param"] for d in dims] == ["kv_step", "heads", "head"] and dims[0]["values"] == [1, 2, 3, 4, 5]
    assert dims[1]["values"] == [1, 2] and dims[2]["lengths"] == [1, 2]
    assert not {"heads", "head"} & {s.key for s in at.main.select_slider}
    assert view["meta"]["frames"]["initial"] == 7  # step 3, 2 heads, head 1: frame (3 − 1) × 3 maps + 1 + 0
    one = lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=1, prompt=2)
    # Its legend names both kinds of hatched cell: rows of tokens not fed yet are not "masked" (issue 35's read).
    assert view["meta"]["hatched"] == "not in the cache (a token not fed yet, or the future)"
    for step, (_, stop) in enumerate(record["calls"]):
        newest = stop - 1  # the row this step added: its weights over every cached key, with and without the cache
        for head in range(2):
            expected = {j: f"{float(w):.4f}" for j, w in enumerate(record["weights_cached"][head, newest, :stop])}
            assert view_row(view, newest, frame=3 * step + 1 + head) == expected
            assert view_row(view, newest, "also0", frame=3 * step + 1 + head) == expected
        alone = {j: f"{float(w):.4f}" for j, w in enumerate(one["weights_cached"][0, newest, :stop])}  # 1 head
        assert view_row(view, newest, frame=3 * step) == alone != view_row(view, newest, frame=3 * step + 1)


def test_a_step_and_a_prompt_from_the_url_move_the_mask_slice():
    at = open_screen("kv-cache", kv_step=1)
    assert "`mask[0:2, :2]`" in page_text(at) and _metric(at, "mask slice") == "2 × 2"
    at = open_screen("kv-cache", kv_prompt=4, kv_step=2)
    assert "`mask[4:5, :5]`" in page_text(at) and _metric(at, "keys cached after step 2") == "5"


def test_a_step_past_the_generation_falls_back_with_a_note():
    at = open_screen("kv-cache", kv_step=99)
    assert any("Step 99 does not exist (5 steps)" in w.value for w in at.warning)
    at = open_screen("kv-cache", kv_prompt=50)
    assert any("A prompt of 50 tokens is longer" in w.value for w in at.warning)


def test_sections_show_the_work_memory_checks_and_mistakes():
    at = open_screen("kv-cache", sections=["steps", "memory", "checks", "mistakes", "tensors"])
    text = page_text(at)
    assert "In all: 220 multiply-adds with the cache, 800 without" in text
    assert "131,072" in text and "73,728" in text  # Llama 3 8B's and GPT-2 small's bytes per token
    assert "differ from the first run's by up to 0.0721" in text  # no reset_cache()
    assert "off by up to 0.1265" in text  # the mask sliced from 0
    # The agreement section: use_cache=False is chapter 3's layer exactly; every step's cached output agrees.
    gap = max(lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=2)["difference"])
    checks = {m.label: m for m in at.metric}
    assert checks["use_cache=False vs chapter 3's MultiHeadAttention"].value == "0" and not at.exception
    assert checks["every step: cached vs uncached outputs"].value == scientific(gap) and gap < 1e-6
    assert "largest difference 0 (bit for bit)" in text


def test_the_speed_test_runs_only_while_its_section_is_open(monkeypatch):
    calls = []

    def fake(x, *, d_out, seed, device, budget_s=1.0):
        calls.append(device)
        return {"rows": [{"sizes": "the book's", "d_in": 3, "d_out": 2, "num_heads": 2, "cached": 50.0,
                          "uncached": 100.0, "cached_tokens": 30, "uncached_tokens": 64}], "device": "cpu", "note": None}

    monkeypatch.setattr(lesson, "speed_trace", fake)
    at = open_screen("kv-cache", sections=["steps", "memory"])
    assert not calls
    open_sections(at, "kv-cache", ["speed"])
    text = page_text(at)
    assert calls == ["cpu"] and "does not pay: slower, 0.50×" in text and "50.0 (30 of 64 tokens)" in text
    assert "at the book's sizes, with the cache 30 of 64 tokens. A run cut short" in text  # the run that stopped, named
    at.run()
    assert calls == ["cpu"]  # measured once: a rerun reads the cache


def test_gpt2_small_steps_through_the_first_64_tokens():
    at = open_screen("kv-cache", preset="gpt2-small", sections=["checks"])
    text = page_text(at)
    assert "first 64 of the 1,024 tokens" in text
    view = views(at)["kv_view"]
    assert len(view["meta"]["frames"]["dims"][0]["values"]) == 64 - 2 + 1
    assert plain_number(_metric(at, "largest |cached − uncached|")) < 1e-5
    assert _metric(at, "keys cached after step 33") == "34"  # the preset opens half way (prompt 2, one a step)
    assert len(at.select_slider(key="head").options) == 12  # GPT-2 small's heads, one drawn at a time


def test_gpt2_small_opens_half_way_through_its_64_generated_tokens():
    # At step 3 the 64 × 64 map of GPT-2 small's run was 4 rows and a slide of hatching.
    at = open_screen("kv-cache", preset="gpt2-small")
    view = views(at)["kv_view"]
    assert view["meta"]["frames"]["initial"] == 32 and view["meta"]["rows"] == 64  # step 33: 34 of 64 rows fed
    assert views(open_screen("kv-cache"))["kv_view"]["meta"]["frames"]["initial"] == 7  # the book's: step 3 of 5, 2 heads, head 1


def test_a_wide_mask_slice_shows_its_first_and_last_keys():
    # At GPT-2's step 33 the slice is 1 × 34: as a presenter table it ran 235 px past the slide's edge.
    at = open_screen("kv-cache", preset="gpt2-small", presenter=1)
    table = next(t.value for t in at.table if "…" in list(t.value.columns))
    assert list(table.columns)[:2] == ["1 t1", "2 t2"] and list(table.columns)[-1] == "34 t34" and table.shape[1] == 13
    assert "the first and last 6 keys shown" in page_text(at)
