"""AppTest: /memory draws the split as memory, its table's strides are PyTorch's, the error is caught and shown."""
import pytest
import torch

from conftest import chart_frames, open_screen, page_text
from screens.registry import BY_NAME, SCREENS


def test_registered_after_heads_with_the_stage_screens():
    names = [s.name for s in SCREENS]
    assert names.index("memory") == names.index("heads") + 1
    assert BY_NAME["memory"].section == BY_NAME["heads"].section and BY_NAME["memory"].file == "screens/memory.py"


@pytest.mark.parametrize("preset", ["book", "gpt2-small"])
def test_the_screen_shows_pytorch_s_strides_and_error(preset):
    at = open_screen("memory", preset=preset)
    assert "Heads in memory" in [t.value for t in at.title]
    table = at.dataframe[0].value
    at.slider(key="mem_heads").set_value(3).run()
    at.slider(key="mem_head_dim").set_value(2).run()
    T = at.slider(key="mem_tokens").value
    table = at.dataframe[0].value
    queries = torch.randn(1, T, 6)  # any (b, T, d_out) projection has these strides
    heads = queries.view(1, T, 3, 2).transpose(1, 2)
    back = torch.randn(1, 3, T, 2).transpose(1, 2)
    assert list(table["stride"])[:3] == [str(queries.stride()), str(queries.view(1, T, 3, 2).stride()),
                                         str(heads.stride())]
    assert list(table["stride"])[5:7] == [str(back.stride()), str(back.contiguous().stride())]
    assert list(table["contiguous"]) == ["yes", "yes", "no", "yes", "yes", "no", "yes", "yes"]
    assert list(table["what it did"])[6] == "copy"
    text = page_text(at)
    assert "RuntimeError: view size is not compatible with input tensor's size and stride" in text
    assert "d_in = " + ("3" if preset == "book" else "768") in text
    frames = chart_frames(at)
    assert len(frames) == 5  # the storage, right and wrong split, the context before and after contiguous()
    storage = frames[0][1][0]
    assert len(storage) == T * 6 and storage["picked"].sum() == 1
    picked = storage[storage["picked"]].iloc[0]
    assert picked["offset"] == int(table["storage offset"].iloc[0])


def test_one_head_has_nothing_to_copy():
    at = open_screen("memory")
    at.slider(key="mem_heads").set_value(1).run()
    assert not at.exception
    assert "`view` works without `contiguous()`" in page_text(at)
    assert "With one head both calls give the same tensor" in page_text(at) and "mixes colours" not in page_text(at)
    assert "copy" not in list(at.dataframe[0].value["what it did"])


def test_a_pick_past_a_shrunk_slider_falls_back():
    at = open_screen("memory")
    at.selectbox(key="mem_token").set_value(6).run()  # 1-based, as in the URL
    at.slider(key="mem_tokens").set_value(3).run()
    assert not at.exception
    assert at.selectbox(key="mem_token").value == 3  # the last of 3 tokens


def test_class_mode_asks_three_questions_first():
    at = open_screen("memory", quiz=1)
    assert "Predict first" in page_text(at)
    assert len(at.dataframe) == 0  # the screen waits for the predictions
    radios = [r for r in at.main.radio if r.key.startswith("quiz:")]
    inputs = [t for t in at.main.text_input if t.key.startswith("quiz:")]
    assert len(radios) == 2 and len(inputs) == 1
    assert "Is the result contiguous?" in radios[0].label and "stride of dimension 1" in inputs[0].label
    radios[0].set_value("no")
    inputs[0].set_value("3")
    radios[1].set_value("yes")
    next(b for b in at.main.button if b.key.endswith(":check")).click().run()
    assert not at.exception
    assert len(at.dataframe) >= 2 and len(at.success) == 3  # all right, with PyTorch's numbers


@pytest.mark.parametrize("params", [dict(input="random", tokens=1), dict(input="sentence", text="hello"),
                                    dict(input="random", tokens=3, d_out=1)])
def test_tiny_inputs_still_draw(params):
    at = open_screen("memory", **params)
    assert not at.exception and not at.error
    T = min(3, params.get("tokens", 1)) if params.get("input") == "random" else 1
    assert at.dataframe[0].value["shape"].iloc[0].startswith(f"(1, {T}, ")
    assert "`view` works without `contiguous()`" in page_text(at) if T == 1 else "RuntimeError" in page_text(at)


def test_pickers_drawing_and_tuples_count_from_zero_as_pytorch_does():
    """Issue 29: the pickers said "dim 1", drawn at "dim 0", in the tuple (0, 2, 3). One convention now, PyTorch's
    0-based index, said once; the URL keeps its 1-based values, so an old link opens the same element."""
    at = open_screen("memory", mem_token=3, mem_head=2, mem_dim=1)  # 1-based in the URL: the third token, ...
    boxes = {key: at.selectbox(key=key) for key in ("mem_token", "mem_head", "mem_dim")}
    shown = {key: box.options[list(range(1, len(box.options) + 1)).index(box.value)] for key, box in boxes.items()}
    assert shown["mem_token"].startswith("token 2 · ") and shown["mem_head"] == "head 1" and shown["mem_dim"] == "dim 0"
    assert boxes["mem_head"].options == ["head 0", "head 1"] and boxes["mem_dim"].options == ["dim 0", "dim 1", "dim 2"]
    text = page_text(at)
    assert text.count("Indices here are PyTorch's, counted from 0") == 1
    assert "`queries[0, 2, 3]` before the split and `[0, 1, 2, 0]` after it" in text  # head_dim 3: 1 * 3 + 0
    table = at.dataframe[0].value
    picked = dict(zip(table["the chapter's code"], table["picked element"]))
    assert picked["queries = self.W_query(x)"] == "(0, 2, 3)" and picked["queries = queries.transpose(1, 2)"] == "(0, 1, 2, 0)"
    frames = [frame for _, (frame, *_) in chart_frames(at)]
    storage, right = frames[0], frames[1]
    T = at.slider(key="mem_tokens").value
    assert sorted(set(storage["label"]), key=lambda s: int(s[1:])) == [f"t{t}" for t in range(T)]
    assert storage.loc[storage["picked"], "label"].tolist() == ["t2"] and storage.loc[storage["picked"], "col"].tolist() == [3]
    assert sorted(set(right["panel_name"])) == ["head 0", "head 1"]
    cell = right[right["picked"]].iloc[0]
    assert (cell["panel_name"], cell["row"], cell["col"], cell["token"], cell["head"]) == ("head 1", 2, 0, 2, 1)
    assert "token 0's 6 floats, then token 1's" in text and "head 0 reads offsets 0…2" in text
    assert not any(s in text for s in ("token 1's 6 floats", "head 1 reads offsets", "head 2's"))


def test_the_storage_pictures_are_big_enough_for_a_room():
    """Issue 29: about 180 px wide with 9 px labels. Presenter mode grows cells, cell text and axes together."""
    from conftest import chart_specs

    def sizes(at):
        spec = chart_specs(at)[0]  # the storage of queries: one layer of cells and their text
        text = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "text")
        return spec["width"]["step"], text["mark"]["fontSize"], text["encoding"]["x"]["axis"]["labelFontSize"]
    cell, font, axis = sizes(open_screen("memory"))
    assert cell >= 36 and font >= 14 and axis >= 12
    cell, font, axis = sizes(open_screen("memory", presenter=1))
    assert cell >= 56 and font >= 22 and axis >= 20  # 6 floats a line: 336 px and more, text of 22 px
