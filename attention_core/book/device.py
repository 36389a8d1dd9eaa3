"""Where the numbers are computed: CUDA, then Apple MPS, then CPU, with a fallback to CPU."""
import shutil

import torch

DEVICE_CHOICES = ["auto", "cuda", "mps", "cpu"]


def available_devices() -> list[str]:
    found = []
    if torch.cuda.is_available():
        found.append("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        found.append("mps")
    return found + ["cpu"]


def pick_device(preference: str = "auto") -> tuple[str, str | None]:
    """The device to use and, when the preference cannot be met, a note saying why."""
    found = available_devices()
    if preference in ("auto", None, ""):
        return found[0], None
    if preference in found:
        return preference, None
    return "cpu", f"{preference.upper()} is not available here, so the numbers were computed on the CPU."


CUDA_INSTALL = "pip install -r requirements-cuda.txt"


def unused_gpu_note() -> str | None:
    """When an NVIDIA GPU is present but this torch build has no CUDA (the CPU wheel that
    requirements.txt pins on Linux), say so and how to install the build that uses it."""
    if torch.version.cuda is not None or shutil.which("nvidia-smi") is None:
        return None
    return (f"An NVIDIA GPU is present (nvidia-smi found), but this PyTorch build (torch {torch.__version__}) has "
            f"no CUDA support, so the GPU is not being used. To use it, install the CUDA build in this venv: "
            f"`{CUDA_INSTALL}`, then restart the app.")


def describe(device: str) -> str:
    """A short badge text: the device and, for a GPU, its name."""
    if device == "cuda":
        return f"GPU · {torch.cuda.get_device_name(0)}"
    if device == "mps":
        return "GPU · Apple MPS"
    return "CPU"


def run_with_fallback(compute, device: str):
    """Run `compute(device)`; if the device fails (out of memory, driver error), rerun on the CPU.

    Returns (result, device_used, note or None).
    """
    if device == "cpu":
        return compute("cpu"), "cpu", None
    try:
        return compute(device), device, None
    except (RuntimeError, torch.OutOfMemoryError) as error:  # CUDA/MPS errors are RuntimeErrors
        if device == "cuda":
            torch.cuda.empty_cache()
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        note = f"{device.upper()} failed ({first_line[:120]}); the numbers were computed on the CPU instead."
        return compute("cpu"), "cpu", note
