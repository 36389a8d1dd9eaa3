"""gpt2.locate/load with the hub: the cache is used, a download happens once, offline fails fast. No network."""
import shutil
import socket
import time

import huggingface_hub
import pytest
from huggingface_hub import constants

from attention_core.models import gpt2
from gpt2_tiny import save_tiny

SIZES = {"n_layer": 1, "n_head": 2, "n_embd": 16, "n_positions": 16}


def put_in_cache(cache, files_from, revision="0123456789abcdef0123456789abcdef01234567"):
    """The hub cache's layout for repo "gpt2": models--gpt2/snapshots/<rev>/..., refs/main = <rev>."""
    repo = cache / "models--gpt2"
    snapshot = repo / "snapshots" / revision
    snapshot.mkdir(parents=True)
    for name in gpt2.FILES:
        shutil.copy(files_from / name, snapshot / name)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)
    return snapshot


@pytest.fixture
def cache(tmp_path, monkeypatch):
    empty = tmp_path / "hub-cache"
    empty.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(empty))
    return empty


@pytest.fixture
def tiny(tmp_path):
    source = tmp_path / "tiny"
    save_tiny(source, **SIZES)
    return source


def no_network(*_, **__):
    raise AssertionError("the network was used")


def test_a_cached_copy_is_used_without_the_network(cache, tiny, monkeypatch):
    snapshot = put_in_cache(cache, tiny)
    monkeypatch.setattr(gpt2, "hub_reachable", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    assert gpt2.locate("gpt2", download=True) == snapshot
    model = gpt2.load("gpt2")
    assert model.config.n_embd == 16
    assert gpt2.tokenize("the cat", "gpt2")[1] == ["t", "he", " cat"]


def test_the_hub_id_is_downloaded_once_then_read_from_the_cache(cache, tiny, monkeypatch):
    real = huggingface_hub.snapshot_download
    downloads = []

    def fake_snapshot_download(repo_id, **kwargs):
        if kwargs.get("local_files_only"):
            return real(repo_id, **kwargs)
        downloads.append((repo_id, kwargs.get("tqdm_class")))
        return str(put_in_cache(cache, tiny))  # what a real download leaves behind

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    monkeypatch.setattr(gpt2, "hub_reachable", lambda seconds=3.0: True)
    progress = object()
    first = gpt2.load("gpt2", tqdm_class=progress)
    assert downloads == [("gpt2", progress)]
    second = gpt2.load("gpt2")
    assert downloads == [("gpt2", progress)]  # the second load found the cache
    assert first.config == second.config


def test_offline_mode_fails_at_once_with_a_reason(cache, monkeypatch):
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(socket, "create_connection", no_network)
    start = time.perf_counter()
    with pytest.raises(gpt2.WeightsUnavailable, match="cannot be reached"):
        gpt2.load("gpt2")
    assert time.perf_counter() - start < 1.0


def test_without_download_only_the_cache_is_read(cache, monkeypatch):
    monkeypatch.setattr(gpt2, "hub_reachable", no_network)
    with pytest.raises(gpt2.WeightsUnavailable, match="not in the Hugging Face cache"):
        gpt2.locate("gpt2")


def test_a_hanging_network_is_given_up_on_quickly(monkeypatch):
    def hang(*_, **__):  # a resolver or firewall that never answers
        time.sleep(5)
        raise OSError("timed out")

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(socket, "create_connection", hang)
    start = time.perf_counter()
    assert gpt2.hub_reachable(seconds=0.3) is False
    assert time.perf_counter() - start < 1.0


def test_a_path_that_is_not_there_is_not_sent_to_the_hub(monkeypatch, tmp_path):
    monkeypatch.setattr(huggingface_hub, "snapshot_download", no_network)
    with pytest.raises(gpt2.WeightsUnavailable, match="is not a directory"):
        gpt2.locate(str(tmp_path / "nothing" / "here"), download=True)
