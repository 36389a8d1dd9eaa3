"""AppTest: /gpt2 with a tiny local GPT-2 ($GPT2_DIR), and with no weights at all (offline). No network."""
import time

import pytest
from huggingface_hub import constants

from attention_core.models import gpt2
import torch

from conftest import open_screen, page_text, view_row, views
from gpt2_tiny import save_tiny

SIZES = {"n_layer": 2, "n_head": 4, "n_embd": 64, "n_positions": 80}


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gpt2-screen")
    save_tiny(directory, **SIZES)
    return directory


@pytest.fixture
def tiny(tiny_dir, monkeypatch):
    monkeypatch.setenv("GPT2_DIR", str(tiny_dir))
    return tiny_dir


@pytest.fixture
def nothing(tmp_path, monkeypatch):
    """No $GPT2_DIR, an empty hub cache, offline mode: what a class laptop without the weights sees."""
    monkeypatch.delenv("GPT2_DIR", raising=False)
    (tmp_path / "empty-cache").mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def test_tiny_model_shows_tokens_every_head_labels_and_the_prediction(tiny):
    at = open_screen("gpt2", text="the cat sat on the mat")
    text = page_text(at)
    assert "7 GPT-2 tokens" in text and "`·cat`" in text and "`he`" in text
    assert "2 layers × 4 heads" in text
    assert "What GPT-2 predicts next:" in text and text.count("%") >= 5
    images = at.get("image")
    assert len(images) == 1 + 1 + 1  # the model view, its colour bar, the layer's head view: one image each
    grid = at.dataframe[0].value
    assert grid.shape == (2, 4) and set(grid.values.ravel()) <= set(gpt2_labels())
    assert "Layer 1, head 1:" in text
    assert not at.warning and not at.error


def gpt2_labels():
    from attention_core.models.head_labels import LABELS
    return LABELS.values()


def test_layer_and_head_come_from_the_url_and_bad_ones_fall_back(tiny):
    at = open_screen("gpt2", layer=2, head=3)
    assert "Layer 2, head 3:" in page_text(at)
    at = open_screen("gpt2", layer=9, head=3)
    assert any("Layer 9 does not exist" in w.value for w in at.warning)
    assert "Layer 1, head 3:" in page_text(at)


def test_every_layer_and_head_travel_in_the_view_and_the_url_picks_the_first(tiny):
    at = open_screen("gpt2", text="the cat sat on the mat", layer=2, head=4)
    assert not at.exception and "Layer 2, head 4:" in page_text(at)
    view = views(at)["gpt2_view"]
    frames = view["meta"]["frames"]
    assert [d["param"] for d in frames["dims"]] == ["layer", "head"] and frames["initial"] == 1 * 4 + 3
    model = gpt2.load_dir(tiny)
    ids = gpt2.load_tokenizer(tiny).encode("the cat sat on the mat")
    weights = torch.stack(model.attention_weights(torch.tensor([ids])))[:, 0]  # (layers, heads, T, T)
    for layer, head in ((0, 0), (1, 3), (1, 2)):
        for query in (0, 3, 6):
            sent = view_row(view, query, frame=layer * 4 + head)
            assert list(sent.values()) == [f"{w:.4f}" for w in weights[layer, head, query, : query + 1].tolist()]


def test_a_new_sentence_is_tokenized_and_shared(tiny):
    at = open_screen("gpt2")
    at.text_input(key="gpt2_text").set_value("the cat sat on the mat, the cat sat").run()
    assert not at.exception
    assert "11 GPT-2 tokens" in page_text(at)
    assert at.query_params["text"] == "the cat sat on the mat, the cat sat"


def test_more_than_64_tokens_are_cut_with_a_note(tiny):
    at = open_screen("gpt2", text=" cat" * 70)
    assert any("70 GPT-2 tokens" in w.value for w in at.warning)
    assert "64 GPT-2 tokens" in page_text(at)


def test_without_weights_the_screen_says_what_to_do_quickly(nothing):
    start = time.perf_counter()
    at = open_screen("gpt2")
    assert time.perf_counter() - start < 30  # the app's cold start; nothing waits on a network
    info = " ".join(i.value for i in at.info)
    assert "not on this server yet" in info
    assert "python -m attention_core.models.gpt2 --download" in info and "GPT2_DIR" in info
    assert all(name in info for name in gpt2.FILES)
    assert not at.get("image") and not at.error
    start = time.perf_counter()
    at.button[0].click().run()  # "Try to download GPT-2 now": offline mode answers at once
    assert time.perf_counter() - start < 10
    assert any("did not work" in w.value and "cannot be reached" in w.value for w in at.warning)
    assert not at.exception


def test_a_path_typed_on_the_screen_is_used(nothing, tiny_dir):
    at = open_screen("gpt2")
    at.text_input(key="gpt2_dir").set_value(str(tiny_dir)).run()
    assert not at.exception and "2 layers × 4 heads" in page_text(at)


def test_the_heads_screen_shows_a_gpt2_layer_through_the_books_trace(tiny):
    import torch
    at = open_screen("heads", weights="gpt2", layer="2", text="the cat sat on the mat", sections=["tensors"])
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    text = page_text(at)
    assert "layer 2 of OpenAI's GPT-2" in text
    assert at.select_slider(key="layer").options == ["1", "2"]  # the tiny model's layers, from its config
    # The maps are GPT-2's own attention of that layer: the book's trace equals the model's weights.
    model = gpt2.load_dir(str(tiny))
    ids, _ = gpt2.tokenize("the cat sat on the mat", str(tiny))
    expected = model.attention_weights(torch.tensor([ids]))[1][0, 0]  # layer 2, head 1: (T, T)
    drawn = at.dataframe[[i for i, f in enumerate(at.dataframe) if f.value.shape == expected.shape][0]].value
    torch.testing.assert_close(torch.tensor(drawn.values, dtype=torch.float32), expected, rtol=0, atol=1e-4)


def test_the_heads_screen_without_gpt2_weights_says_so_and_shows_random_heads(nothing):
    at = open_screen("heads", weights="gpt2", sections=["maps"])
    assert not at.exception
    assert any("GPT-2's weights are not on this server" in w.value for w in at.warning)
    assert len(at.get("vega_lite_chart")) == 2 and "heads_view" in views(at)  # the book's two random heads


def test_public_mode_hides_the_path_box_and_the_download_button(nothing, tiny_dir, monkeypatch):
    local = open_screen("gpt2")
    assert [t.key for t in local.main.text_input] == ["gpt2_dir"]  # (the sidebar has the room's code box)
    assert [b.label for b in local.main.button] == ["Try to download GPT-2 now"]
    monkeypatch.setenv("ATTENTION_PUBLIC", "1")
    at = open_screen("gpt2")
    assert not at.main.text_input and not at.main.button and not at.exception
    assert any("only its operator" in i.value for i in at.info)
    monkeypatch.setenv("GPT2_DIR", str(tiny_dir))  # the operator's copy still works
    at = open_screen("gpt2")
    assert "2 layers × 4 heads" in page_text(at) and not [t for t in at.text_input if t.key == "gpt2_dir"]


def test_a_secret_turns_public_mode_on(tmp_path, monkeypatch):
    import streamlit as st
    from streamlit import config
    from ui.server.public import public_mode
    (tmp_path / "secrets.toml").write_text("public = true\n")
    monkeypatch.delenv("ATTENTION_PUBLIC", raising=False)
    before = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(tmp_path / "nothing.toml")])
    st.secrets._reset()
    try:
        assert not public_mode()  # no secrets file: a local run
        config.set_option("secrets.files", [str(tmp_path / "secrets.toml")])
        st.secrets._reset()
        assert public_mode()
        monkeypatch.setenv("ATTENTION_PUBLIC", "0")  # the environment wins over the secret
        assert not public_mode()
    finally:
        config.set_option("secrets.files", before)
        st.secrets._reset()
