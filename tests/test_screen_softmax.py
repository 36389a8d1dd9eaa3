"""AppTest: the softmax / sqrt(d_k) screen shows the book's numbers and reacts to every control."""
from attention_core.drawing.numbers import short
from conftest import open_screen, page_text, view_row, views


def table_row(at, index_label: str) -> list[str]:
    """One row of the first table that has this row label, as 4-decimal strings."""
    for frame in at.dataframe:
        if index_label in frame.value.index:
            return [f"{v:.4f}" for v in frame.value.loc[index_label]]
    raise AssertionError(f"no table with a row {index_label!r}")


def formula(at) -> str:
    """The selected cell's softmax formula, without the $$ fences."""
    return at.latex[0].value.strip("$\n")


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.get("metric")}


def test_book_preset_shows_the_books_normalisations():
    at = open_screen("softmax", sections=["normalise"])
    text = page_text(at)
    assert "0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865" in text  # omega_2 = x2 . x_j (3.3.1)
    assert table_row(at, "divide by the sum") == ["0.1455", "0.2278", "0.2249", "0.1285", "0.1077", "0.1656"]
    book_softmax = ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"]
    assert table_row(at, "naive exp / sum") == book_softmax
    assert table_row(at, "torch.softmax") == book_softmax
    sums = metrics(at)
    names = ("divide by the sum", "naive exp / sum", "torch.softmax")
    assert [sums[f"row sum · {n}"] for n in names] == ["1.0000"] * 3


def test_book_preset_shows_scaled_weights_and_the_pitfall():
    at = open_screen("softmax", sections="all")
    text = page_text(at)
    assert "0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820" in text  # softmax(omega_2 / sqrt(2)), seed 123
    assert "0.1623, 0.1877, 0.1858, 0.1547, 0.1358, 0.1738" in text  # the notes' `/ d_k*0.5` bug
    latex = formula(at)
    assert r"\sqrt{2}" in latex and latex.endswith("= 0.1500")  # alpha_21
    assert table_row(at, "2 journey")[:2] == ["0.9544", "1.4950"]  # x . x scores table
    code = "\n".join(c.value for c in at.code)
    for name in ("def normalize_by_sum", "def softmax_naive", "def softmax", "def scale_scores", "def entropy"):
        assert name in code


def test_scale_frames_hold_both_maps_and_the_url_picks_the_formula(monkeypatch):
    from types import SimpleNamespace

    from ui.draw import view_route
    at = open_screen("softmax")
    scaled = views(at)["scaled"]
    frames = scaled["meta"]["frames"]
    committed = {}  # Enter at either end of the switch: the left end commits scale=0 (False), the right scale=1
    monkeypatch.setattr(view_route, "set_value", committed.__setitem__)
    for end, expected in ((0, False), (-1, True)):
        selection = {"scale": frames["dims"][0]["values"][end]}
        monkeypatch.setattr(view_route, "st", SimpleNamespace(session_state={"v": {"selection": selection}}))
        view_route._commit("v", frames)
        assert committed == {"scale": expected}, end
    # The switch's left end is "no" (unscaled, scale=0 in the URL), its right end "yes" (scale=1), where it opens.
    dim = frames["dims"][0]
    assert dim["param"] == "scale" and dim["values"] == [0, 1] and frames["initial"] == 1
    assert dim["labels"][0].startswith("no: softmax(ω), unscaled") and dim["labels"][1].startswith("yes: softmax(ω / √2)")
    assert list(view_row(scaled, 1, frame=1).values()) == ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]
    assert view_row(scaled, 1, frame=0)[0] == "0.1401"  # softmax(omega_21) without scaling, sent beside it
    at = open_screen("softmax", scale=0)
    assert not at.exception and views(at)["scaled"]["meta"]["frames"]["initial"] == 0
    latex = formula(at)
    assert r"\sqrt" not in latex and latex.endswith("= 0.1401")


def test_the_key_in_the_url_changes_the_formula():
    at = open_screen("softmax", key=2)
    assert not at.exception
    assert formula(at).startswith(r"\alpha_{2,2}") and formula(at).endswith("= 0.2264")


def test_the_query_in_the_url_changes_the_lesson_and_every_query_is_sent():
    at = open_screen("softmax", sections=["normalise"], query=4)
    assert not at.exception
    text = page_text(at)
    assert "0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565" in text  # omega_4, x4 . x_j
    assert formula(at).startswith(r"\alpha_{4,1}")
    normalise = views(open_screen("softmax", sections=["normalise"]))["normalise"]  # the browser scrubs queries: all rows travel
    assert list(view_row(normalise, 3).values()) == ["0.4753", "0.8434", "0.8296", "0.4937", "0.3474", "0.6565"]
    assert list(view_row(normalise, 1, "also0").values()) == ["0.1455", "0.2278", "0.2249", "0.1285", "0.1077", "0.1656"]


def test_the_d_k_experiment_sends_every_d_k_and_the_url_picks_the_frame_it_opens_at():
    import torch
    from attention_core.lessons import experiments
    at = open_screen("softmax", sections=["d-k"], d_k="1024")
    view = views(at)["d_k"]
    meta = view["meta"]
    assert meta["frames"]["dims"][0]["values"] == list(experiments.POWERS) and meta["frames"]["initial"] == 10
    assert meta["url_selection"] is False  # its map is not of the sidebar's tokens: it leaves query and key alone
    stack = experiments.d_k_stack(256, 6, seed=123)  # the screen's CURVE_SAMPLES, the book's 6 tokens and seed
    for frame in (0, 6, 10):  # d_k = 1, 64, 1024: the sent codes are the tensors', rounded like Python
        for query in (0, 5):
            sent = view_row(view, query, frame=frame)
            assert sent == {j: f"{float(w):.4f}" for j, w in enumerate(stack["scaled"][frame, query])}
            assert view_row(view, query, "also0", frame=frame) == {j: f"{float(w):.4f}" for j, w in enumerate(stack["unscaled"][frame, query])}
    # Unscaled softmax gets sharper with d_k and the scaled one does not: the lesson the slider shows.
    largest = stack["sharpness"][..., [0, 2]].mean(dim=1)  # (D, 2): mean largest weight, scaled and unscaled
    assert largest[8:, 1].min() > 0.85 and largest[:, 0].max() < 0.55  # d_k >= 256: unscaled near one-hot
    assert largest[0, 0] == largest[0, 1]  # at d_k = 1 dividing by √1 changes nothing
    assert torch.equal(stack["scaled"][6], torch.softmax(experiments.sample_scores(64, 256, 6, 123)[0][:6] / 8, dim=-1))
    assert not any("d_k" in w.value for w in at.warning)


def test_overflow_shows_nan_for_naive_and_finite_for_torch():
    text = page_text(open_screen("softmax", sections=["overflow"]))
    assert "`torch.exp`: `inf, inf, inf`" in text
    assert "`softmax_naive`: `nan, nan, nan`" in text
    assert "`torch.softmax`: `0.6652, 0.2447, 0.0900`" in text  # softmax([1000, 999, 998]) is fine
    assert "`softmax_naive`: `nan, nan, nan, 0.0000, 0.0000, nan`" in text  # omega_2 x 100
    assert "expected" in text


def test_gpt2_small_preset_renders():
    at = open_screen("softmax", sections=["tensors", "overflow"], preset="gpt2-small")
    text = page_text(at)
    assert "shape `(1024, 1024)`; showing its first 8 of 1,024 rows and first 8 of 1,024 columns" in text
    assert "d_k = 768" in text
    scaled = views(at)["scaled"]["meta"]
    assert scaled["rows"] == 1024 and scaled["overview"] and scaled["framed"]  # an overview of the 1024 x 1024 frames
    assert "subtracts the row maximum" in text  # the overflow section: how torch.softmax stays finite


def test_one_token_renders():
    at = open_screen("softmax", sections=["d-k"], input="random", tokens=1)
    assert formula(at).endswith("= 1.0000")
    assert "1/1 = 1.0000" in page_text(at)


def test_bad_d_k_and_scale_in_url_show_notes_and_render():
    for name, raw in (("d_k", "abc"), ("scale", "maybe")):
        at = open_screen("softmax", sections=["d-k"], **{name: raw})
        assert any(f"{name}={raw!r}" in w.value for w in at.warning), name
        assert views(at)["d_k"]["meta"]["frames"]["initial"] == 6 and views(at)["scaled"]["meta"]["frames"]["initial"] == 1
        assert formula(at).endswith("= 0.1500")
    at = open_screen("softmax", sections=["d-k"], d_k="100")  # a whole number, but not a power of two
    assert any("d_k = 100 is not a power of two" in w.value for w in at.warning)
    assert views(at)["d_k"]["meta"]["frames"]["initial"] == 6  # d_k = 64, the default


# --- the lesson first, every other section folded and idle until opened --------------------------------

SECTIONS = {  # section: (its title, what only it draws)
    "normalise": ("Three ways to normalise (ω = x · x, §3.3.1)", lambda at: "normalise" in views(at)),
    "d-k": ("Why √d_k: softmax sharpens as d_k grows", lambda at: "d_k" in views(at)),
    "temperature": ("Temperature: one more divisor before softmax", lambda at: "temperature" in views(at)),
    "overflow": ("Large scores: naive softmax overflows", lambda at: "`softmax_naive`: `nan, nan, nan`" in page_text(at)),
    "tensors": ("The tensors", lambda at: any(m.value.startswith("**`attn_scores (q · k)`**") for m in at.markdown)),
    "code": ("The PyTorch code of this step", lambda at: any("def softmax_naive" in c.value for c in at.code)),
    "why": ("Why it works", lambda at: "Why softmax and not a division by the sum?" in page_text(at)),
    "checks": ("Agreement with PyTorch", lambda at: any(" vs " in m.label for m in at.metric)),
    "mistakes": ("Common mistakes", lambda at: any("Each key's column sums to 1" in e.value for e in at.error)),
}
WORK = {  # section: the ui call only it makes
    "normalise": "normalisations", "d-k": "why_scaling_stack", "temperature": "show_temperature",
    "overflow": "overflow_demo", "tensors": "table", "checks": "softmax_agreement", "mistakes": "precedence_pitfall",
}


def test_the_lesson_runs_alone_and_each_section_runs_only_when_opened(monkeypatch):
    import collections
    import ui
    from screens import softmax_blocks as blocks
    calls = collections.Counter()
    for name in set(WORK.values()) | {"projection"}:
        # the screen calls blocks.x for the blocks its own file defines, ui.x for the rest
        owner = blocks if getattr(getattr(blocks, name, None), "__module__", "") == blocks.__name__ else ui
        real = getattr(owner, name)

        def counting(*args, _real=real, _name=name, **kwargs):
            # ω = x · x (projection "none") feeds only the sections: the lesson follows q · k
            calls[_name if _name != "projection" else f"projection:{args[1]}"] += 1
            return _real(*args, **kwargs)
        monkeypatch.setattr(owner, name, counting)
    at = open_screen("softmax")
    assert [e.label for e in at.expander] == [title for title, _ in SECTIONS.values()]  # drawn folded, in order
    assert set(calls) == {"projection:v1"}, calls  # the lesson's trace, nothing of any section
    assert not [name for name, (_, shows) in SECTIONS.items() if shows(at)]
    assert list(views(at)) == ["scaled"] and formula(at).endswith("= 0.1500")  # the lesson: its view, one weight by hand
    for name, (_, shows) in SECTIONS.items():
        calls.clear()
        at = open_screen("softmax", sections=[name])
        assert shows(at), name
        assert set(calls) - {"projection:v1", "projection:none"} == ({WORK[name]} if name in WORK else set()), (name, calls)
        assert [other for other, (_, drawn) in SECTIONS.items() if other != name and drawn(at)] == [], name


def test_the_lesson_holds_at_most_30_elements_at_both_presets():
    for params in ({}, {"scale": 0}, {"preset": "gpt2-small"}, {"preset": "gpt2-small", "scale": 0}):
        at = open_screen("softmax", **params)
        assert len(list(at.main)) <= 30, (params, len(list(at.main)))


def test_the_sharpness_metrics_say_they_are_medians_over_the_queries():
    at = open_screen("softmax")
    shown = metrics(at)
    rows = [max(float(v) for v in view_row(views(at)["scaled"], r, frame=1).values()) for r in range(6)]
    median = sum(sorted(rows)[2:4]) / 2  # six rows: the mean of the middle two, as a teacher computes it
    assert shown["median largest weight · softmax(ω / √2)"] == short(median)
    assert not [label for label in shown if label.startswith(("largest weight", "entropy"))]  # no unlabelled median


def test_at_gpt2_size_every_largest_list_names_the_keys_with_the_largest_scores():
    at = open_screen("softmax", sections=["normalise"], preset="gpt2-small")
    for name, order in (("normalise", views(at)["normalise"]), ("scaled", views(at)["scaled"])):
        meta = order["meta"]
        assert meta["rank"]["name"] == "scores ω" and meta["ranked"], name
        rank = order["rank"]["key"].to_numpy().reshape(-1, 1024, meta["rank"]["top"])[0]  # (T, 32): one order
        sources = ["cells"] + [f"also{n}" for n in range(len(meta["also"]))] if name == "normalise" else ["cells"]
        for source in sources:
            for frame in ((0, 1) if name == "scaled" else (0,)):
                for query in (1, 500):
                    # the ranked keys, and the lesson's key (key 1), whose number travels in every row
                    assert set(view_row(order, query, source, frame)) == set(rank[query].tolist()) | {0}, (name, source)
    softmax_row = view_row(views(at)["normalise"], 1, "also1")  # torch.softmax: 1.0000 on itself, 0.0000 elsewhere
    assert softmax_row[1] == "1.0000" and set(softmax_row) != set(range(32))  # not keys 1-32 by index
