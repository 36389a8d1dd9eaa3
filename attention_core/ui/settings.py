"""What the shared sidebar decided for this run: a leaf module every UI module may import."""
from dataclasses import dataclass

import torch

from attention_core.presets import BOOK_SEEDS


@dataclass
class Settings:
    preset: str
    x: torch.Tensor  # (T, d_in) on the CPU
    tokens: list[str]
    labels: list[str]  # unique axis labels
    d_out: int
    seed: int
    device: str
    device_note: str | None
    notes: list[str]  # what was wrong with the URL or the typed sentence, shown on every screen

    def seed_for(self, stage: str) -> int:
        """The book preset uses the book's seed for each stage; otherwise the chosen seed."""
        return BOOK_SEEDS[stage] if self.preset == "book" else self.seed
