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


def test_pickers_and_drawing_count_from_one_and_pytorchs_index_is_named_as_such():
    """Issue 35: one convention across the app, tokens and heads counted from 1 on screen (the URL too); /memory
    shows PyTorch's 0-based index only where it names it as PyTorch's (the code's indices, the table's tuples)."""
    at = open_screen("memory", mem_token=3, mem_head=2, mem_dim=1)  # the third token, the second head, the first dim
    boxes = {key: at.selectbox(key=key) for key in ("mem_token", "mem_head", "mem_dim")}
    shown = {key: box.options[list(range(1, len(box.options) + 1)).index(box.value)] for key, box in boxes.items()}
    assert shown["mem_token"].startswith("token 3 · ") and shown["mem_head"] == "head 2" and shown["mem_dim"] == "dim 1"
    assert boxes["mem_head"].options == ["head 1", "head 2"] and boxes["mem_dim"].options == ["dim 1", "dim 2", "dim 3"]
    text = page_text(at)
    assert text.count("PyTorch's indices count from 0") == 1
    assert "token 3, head 2, dim 1, is PyTorch's `queries[0, 2, 3]` before the split and `[0, 1, 2, 0]` after it" in text
    table = at.dataframe[0].value
    picked = dict(zip(table["the chapter's code"], table["picked element (PyTorch's index, from 0)"]))
    assert picked["queries = self.W_query(x)"] == "(0, 2, 3)" and picked["queries = queries.transpose(1, 2)"] == "(0, 1, 2, 0)"
    frames = [frame for _, (frame, *_) in chart_frames(at)]
    storage, right = frames[0], frames[1]
    T = at.slider(key="mem_tokens").value
    assert sorted(set(storage["label"]), key=lambda s: int(s[1:])) == [f"t{t}" for t in range(1, T + 1)]
    assert storage.loc[storage["picked"], "label"].tolist() == ["t3"] and storage.loc[storage["picked"], "col"].tolist() == [3]
    assert sorted(set(right["panel_name"])) == ["head 1", "head 2"]
    cell = right[right["picked"]].iloc[0]
    # Drawn where the picker says: head 2's panel, token 3's row, dim 1's column (token and head keep PyTorch's index).
    assert (cell["panel_name"], cell["row"], cell["col"], cell["token"], cell["head"]) == ("head 2", 3, 1, 2, 1)
    assert "token 1's 6 floats, then token 2's" in text and "head 1 reads offsets 0…2" in text
    assert not any(s in text for s in ("token 0", "head 0", "dim 0"))


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
