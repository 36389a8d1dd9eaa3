"""Device choice, and the note when an NVIDIA GPU is present but torch is the CPU build."""
import torch

from attention_core.book import device
from conftest import open_screen

_REAL_IS_AVAILABLE = torch.cuda.is_available


def _pretend(monkeypatch, nvidia_smi: bool, cuda_version):
    monkeypatch.setattr(device.shutil, "which", lambda name: "/usr/bin/nvidia-smi" if nvidia_smi and
                        name == "nvidia-smi" else None)
    monkeypatch.setattr(torch.version, "cuda", cuda_version)
    # The CPU build cannot use a GPU: on a CUDA machine the screens would otherwise compute there, with no note.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda_version is not None and _REAL_IS_AVAILABLE())


def test_a_gpu_with_the_cpu_build_of_torch_gets_a_note_with_the_command(monkeypatch):
    _pretend(monkeypatch, nvidia_smi=True, cuda_version=None)
    note = device.unused_gpu_note()
    assert note is not None and "not being used" in note and device.CUDA_INSTALL in note


def test_no_note_with_the_cuda_build_or_without_a_gpu(monkeypatch):
    _pretend(monkeypatch, nvidia_smi=True, cuda_version="12.8")
    assert device.unused_gpu_note() is None
    _pretend(monkeypatch, nvidia_smi=False, cuda_version=None)
    assert device.unused_gpu_note() is None


def test_the_device_badge_shows_the_note_on_a_screen(monkeypatch):
    _pretend(monkeypatch, nvidia_smi=True, cuda_version=None)
    at = open_screen("scores")
    assert any(device.CUDA_INSTALL in box.value for box in at.info), [box.value for box in at.info]
    _pretend(monkeypatch, nvidia_smi=False, cuda_version=None)
    at = open_screen("scores")
    assert not any(device.CUDA_INSTALL in box.value for box in at.info)


def test_the_install_command_names_a_file_that_exists():
    from pathlib import Path
    assert (Path(__file__).resolve().parents[1] / device.CUDA_INSTALL.split()[-1]).is_file()
