"""AppTest: the sliding-window screen at the book's sizes (every W in the browser, the class's numbers in the view and
the sections) and at GPT-2 small's (W a server slider), and a bad ?sliding_window= gets a note."""
import numpy as np
import torch

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.drawing import matrix_images
from attention_core.lessons import sliding_window as swa
from conftest import code_text, open_screen, page_text, view_row, views


def test_book_preset_sends_every_window_and_head_and_each_frame_is_the_classs():
    at = open_screen("sliding-window", sections="all")
    text = page_text(at)
    view = views(at)["swa_view"]
    # W, num_heads and Head all move in the browser: every window of both head counts (6 × (1 + 2) maps)
    window, count, head = view["meta"]["frames"]["dims"]
    assert (window["param"], window["values"], count["param"], count["values"], head["param"], head["values"],
            head["lengths"]) == ("sliding_window", [1, 2, 3, 4, 5, 6], "heads", [1, 2], "head", [1, 2], [1, 2])
    assert view["meta"]["frames"]["initial"] == swa.merged_frame(3, 2, 0, [1, 2]) == 7  # the book's W = 3, 2 heads
    assert view["meta"]["hatched"] == "the future (a key outside the window is drawn with its weight, 0.0000)"
    assert not at.main.select_slider or "heads" not in [s.key for s in at.main.select_slider]
    for w in (1, 3, 6):
        for heads in (1, 2):
            record, _, _ = swa.window_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=heads, window=w)
            for h in range(heads):
                for query in range(6):
                    shown = view_row(view, query, frame=swa.merged_frame(w, heads, h, [1, 2]))
                    expected = [f"{x:.4f}" for x in record["attn_weights"][h, query, :query + 1].tolist()]
                    assert list(shown.values()) == expected
            # the causal layer's output beside the window's follows the count too (the view prints z of token 6)
            causal = swa.causal_part(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=heads)[0]["causal_context"]
            at_frame = (swa.merged_frame(w, heads, 0, [1, 2]) * 6 + 5) * 2  # (frame, token 6, dim 0) of (F, T, d_out)
            assert [code_text(int(c)) for c in view["vector1"]["code"].iloc[at_frame:at_frame + 2]] == [
                f"{x:.4f}" for x in causal[5].tolist()]
    assert "0.2298" in text and "0.4474" in text  # context_vec of token 6 at W = 3 (the book's file: 0.22976, 0.44740)
    assert "Before the fix, the chunks' early queries lost keys and their vectors differ by up to 0.1164" in text
    assert "2 … 6 (5)" in text and "4 … 6 (3)" in text  # chunk 2: the book keeps W + C − 1 = 5 keys, before #1013 3
    # The chunk slider's two tables are static: a changed data grid repainted ~200 ms after each move (315 ms a move)
    static = [list(t.value.columns) for t in at.table]
    assert ["chunk", "keys: the book", "keys before #1013", "cache after"] in static
    assert any("|before − uncached|" in columns for columns in static)
    assert "after step 6 it holds 3 (not 6)" in text
    assert "66.57 GB" in text and "11.17 GB" in text and "83.2%" in text  # Gemma 3 27B, 5 : 1 against all full
    assert "At W = T = 6 the two layers' context vectors are equal" in text
    assert not at.main.slider or "sliding_window" not in [s.key for s in at.main.slider]  # W moves in the view


def test_the_lesson_follows_a_window_from_the_url_and_w_at_least_t_is_causal():
    wide = page_text(open_screen("sliding-window", sliding_window=6))
    assert "At W = 6 the context vectors equal the causal layer's" in wide
    narrow = page_text(open_screen("sliding-window", sliding_window=1, query=6))
    assert "Query 6 sees key 6: 1 of the 6" in narrow and "the last 5 queries (tokens 2 … 6)" in narrow


def test_a_window_longer_than_the_input_or_zero_falls_back_with_a_note():
    at = open_screen("sliding-window", sliding_window=50)
    assert any("W = 50 is more than the 6 tokens" in w.value for w in at.warning)
    assert views(at)["swa_view"]["meta"]["frames"]["initial"] == swa.merged_frame(6, 2, 0, [1, 2])
    zero = open_screen("sliding-window", sliding_window=0)
    assert zero.warning and not zero.exception  # the URL's range check: the default W = 3 with a note


def test_gpt2_small_preset_moves_w_on_the_server_and_sends_one_window():
    at = open_screen("sliding-window", preset="gpt2-small", sliding_window=512)
    slider = next(s for s in at.main.slider if s.key == "sliding_window")
    assert (slider.value, slider.max) == (512, 1024)
    view = views(at)["swa_view"]
    # One head at 1,024 tokens (twelve maps and their causal ones cost ~1.5 s a W move to build): a Head control here.
    assert view["meta"]["frames"] is None
    head = next(s for s in at.main.select_slider if s.key == "head")
    assert head.value == 1 and len(head.options) == 12
    rank = view["rank"]["key"].to_numpy().reshape(1024, -1)  # each row's bars: keys inside the window only
    assert set(rank[1].tolist()) - {1024} == {0, 1} and (rank[1023] >= 512).all()
    head.set_value(3).run()
    assert not at.exception and "The view draws head 3 at this W" in page_text(at)
    text = page_text(at)
    assert "the last 512 queries (tokens 513 … 1,024) lose their oldest keys" in text
    slider.set_value(1024).run()
    assert not at.exception and "At W = 1,024 the context vectors equal the causal layer's" in page_text(at)


def test_the_window_trace_runs_on_the_requested_device_or_says_why_not():
    record, used, note = swa.window_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=3)
    assert used == "cpu" and note is None and record["attn_weights"].device == torch.device("cpu")


def test_a_masks_overview_names_what_each_pixel_shows():
    # A teacher read: "each pixel is the max of a 4 × 4 block" under a band drawn dark (dark = 0 = may see). A mask
    # drawn with 0 dark is reduced as 1 − mask, so each pixel is the min of its block of the mask the caption names.
    at = open_screen("sliding-window", preset="gpt2-small", sliding_window=3, sections="all")
    captions = [i.caption for e in at.get("image") for i in e.proto.imgs if "drawn as an image" in i.caption]
    assert len(captions) == 2 and all("each pixel is the min of a 4 × 4 block" in c for c in captions), captions
    diff = np.arange(1024)[:, None] - np.arange(1024)[None, :]  # query − key
    hidden = ((diff < 0) | (diff >= 3)).astype(np.float32)  # (T, T): the window's mask, 1 = hidden
    reduced, *_ = matrix_images.overview_blocks(1 - hidden, "mask")  # what the picture draws
    assert np.array_equal(1 - reduced, hidden.reshape(256, 4, 256, 4).min(axis=(1, 3)))


def test_the_lesson_says_where_the_window_starts_to_cut_when_its_query_keeps_every_key():
    # A teacher's read: at query 2 and W = 3 the windowed and causal bars are the same, and nothing said why.
    text = page_text(open_screen("sliding-window"))
    assert "The window changes nothing for this query; it does for a later one: query 6 sees 4 … 6, 3 of its 6." in text
    assert "The window changes nothing" not in page_text(open_screen("sliding-window", query=5))


def test_a_long_prefill_table_shows_the_second_chunks_first_rows_and_its_last():
    # Its first rows came out nan before #1013 (every kept key outside their window); its last rows are numbers that
    # differ: a table of nan rows alone (GPT-2 small's 513 … 524) showed only half of what went wrong.
    at = open_screen("sliding-window", sections=["prefill"], input="random", tokens=40, d_in=4, d_out=4)
    text = page_text(at)
    assert "tokens 21 … 28 and 38 … 40 of 40 (the second chunk's first rows and its last)" in text
    table = next(t.value for t in at.table if "before #1013" in t.value.columns)
    assert list(table["token"])[8] == "…" and len(table) == 12
    assert all("nan" not in cell for cell in table["before #1013"].iloc[9:])  # the chunk's last rows: numbers
    assert "(first 2 dims)" in text
    book = page_text(open_screen("sliding-window", sections=["prefill"]))
    assert "context_vec of each query." in book  # d_out = 2: both dims are shown, so no "first 2 dims"
