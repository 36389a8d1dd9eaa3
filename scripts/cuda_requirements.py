"""Write requirements-cuda.txt from requirements.txt: the same pins, PyTorch's CUDA build of torch.

    python scripts/cuda_requirements.py      # after any change to requirements.txt

tests/test_requirements.py fails while the two files disagree.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = """# requirements.txt for Linux with an NVIDIA GPU: the same pins, but PyTorch's CUDA build of torch
# 2.13.0 instead of the +cpu one. Made by scripts/cuda_requirements.py; do not edit by hand.
#   python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements-cuda.txt && streamlit run app.py
# pip takes torch 2.13.0 from PyTorch's CUDA 12.8 index; should that index lack it, PyPI's Linux
# wheel of 2.13.0 is a CUDA build too. About 2.5 GB more to download than the CPU build.
--extra-index-url https://download.pytorch.org/whl/cu128
torch==2.13.0

"""


def main() -> None:
    source = (ROOT / "requirements.txt").read_text()
    marker = "# The app's own direct dependencies."
    assert marker in source, f"requirements.txt has no line {marker!r} to start from"
    (ROOT / "requirements-cuda.txt").write_text(HEADER + source[source.index(marker):])


if __name__ == "__main__":
    main()
