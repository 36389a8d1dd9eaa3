"""A tiny attention-only transformer made of the book's MultiHeadAttention, trained on toy tasks.

    from attention_core.models import training
    result = training.train("repeat", steps=1500, seed=0)   # about 20 s on 2 CPU cores
    result.model, result.history, result.snapshots
    model = training.load("repeat")                          # the shipped checkpoint

The model is token + position embeddings, then `layers` blocks of `x = x + MultiHeadAttention(
LayerNorm(x))`, a final LayerNorm and a linear layer to the vocabulary. There is no MLP: every
bit of computation that mixes tokens is done by the heads, so what they learn is the whole story.
"""
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.models.toy_tasks import TASKS, make_batch, probe

__all__ = ["TASKS", "make_batch", "train", "load", "load_run", "AttentionOnlyTransformer", "TrainResult",
           "DEFAULTS", "CHECKPOINTS"]

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
# The shipped configuration of each task (scripts/train_checkpoints.py trains exactly these).
DEFAULTS = dict(seed=0, layers=2, heads=4, d_model=64, lr=3e-3, batch_size=64, snapshot_every=50)
STEPS = {"repeat": 1500, "sort": 1000, "reverse": 400}  # the default number of steps per task


class AttentionOnlyTransformer(nn.Module):
    def __init__(self, vocab_size: int, context_length: int, d_model: int = 64, layers: int = 2, heads: int = 4):
        super().__init__()
        self.vocab_size, self.context_length = vocab_size, context_length
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(context_length, d_model)
        self.norms = nn.ModuleList([nn.LayerNorm(d_model) for _ in range(layers)])
        self.attention_modules = nn.ModuleList(
            [MultiHeadAttention(d_model, d_model, context_length, 0.0, heads) for _ in range(layers)])
        self.final_norm = nn.LayerNorm(d_model)
        self.out_head = nn.Linear(d_model, vocab_size)

    def run(self, ids: torch.Tensor, record: bool = False):
        """(logits (b, T, vocab), each layer's attention input (b, T, d), each layer's weights (b, h, T, T))."""
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.tok_emb(ids) + self.pos_emb(positions)  # (b, T, d)
        inputs, weights = [], []
        for norm, mha in zip(self.norms, self.attention_modules):
            h = norm(x)
            if record:
                trace = mha.trace(h)
                inputs.append(h)
                weights.append(trace["attn_weights"])  # (b, h, T, T)
                x = x + trace["context_vec"]
            else:
                x = x + mha(h)  # the residual: each layer adds what its heads found
        return self.out_head(self.final_norm(x)), inputs, weights

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.run(ids)[0]  # (b, T, vocab)

    def attention_inputs(self, ids: torch.Tensor) -> list[torch.Tensor]:
        return self.run(ids, record=True)[1]

    def attention_weights(self, ids: torch.Tensor) -> list[torch.Tensor]:
        return self.run(ids, record=True)[2]


@dataclass
class TrainResult:
    task: str
    config: dict
    model: AttentionOnlyTransformer
    history: dict = field(default_factory=lambda: {"step": [], "loss": [], "accuracy": []})
    snapshots: dict = field(default_factory=dict)  # step -> (layers, heads, T, T) float16 weights on the probe
    probe: torch.Tensor | None = None  # (T,) the probe sequence of the snapshots


def build_model(task: str, seed: int, layers: int, heads: int, d_model: int) -> AttentionOnlyTransformer:
    spec = TASKS[task]
    return build_seeded(AttentionOnlyTransformer, seed, spec.vocab_size, spec.context_length, d_model, layers, heads)


def masked_loss(logits, targets, loss_mask):
    """Cross-entropy and accuracy over the predictable targets only."""
    picked, wanted = logits[loss_mask], targets[loss_mask]  # (n, vocab), (n,)
    return F.cross_entropy(picked, wanted), (picked.argmax(-1) == wanted).float().mean()


@torch.no_grad()
def snapshot(model: AttentionOnlyTransformer, ids: torch.Tensor) -> torch.Tensor:
    """Every head's weights on one sequence: (layers, heads, T, T), float16 on the CPU (small to keep)."""
    return torch.cat(model.attention_weights(ids[None].to(next(model.parameters()).device))).half().cpu()


def train(task: str, *, steps: int | None = None, seed: int = 0, device: str = "cpu", layers: int = 2,
          heads: int = 4, d_model: int = 64, lr: float = 3e-3, batch_size: int = 64,
          snapshot_every: int = 50, progress=None, stop_after: int | None = None) -> TrainResult:
    """Train from scratch with AdamW, deterministic from `seed` (a private generator for the data).

    The learning rate stays at `lr` for two thirds of the steps, then falls linearly to 0.
    stop_after ends the run early, as if interrupted (the schedule still counts to `steps`).

    progress(step, steps, loss, accuracy, model) is called every 10 steps (a progress bar, a curve).
    """
    steps = STEPS[task] if steps is None else steps
    config = dict(steps=steps, seed=seed, layers=layers, heads=heads, d_model=d_model, lr=lr,
                  batch_size=batch_size, snapshot_every=snapshot_every)
    model = build_model(task, seed, layers, heads, d_model).to(device).eval()  # dropout is 0 anyway
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    # Constant, then down to 0 over the last third: the final steps settle instead of jittering.
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda done: min(1.0, 3 * (steps - done) / steps))
    result = TrainResult(task, config, model, probe=probe(task))
    result.snapshots[0] = snapshot(model, result.probe)
    last = min(stop_after or steps, steps)
    for step in range(1, last + 1):
        inputs, targets, loss_mask = (t.to(device) for t in make_batch(task, batch_size, generator))
        loss, accuracy = masked_loss(model(inputs), targets, loss_mask)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()
        loss, accuracy = float(loss.detach()), float(accuracy)
        for name, number in (("step", step), ("loss", loss), ("accuracy", accuracy)):
            result.history[name].append(number)
        if step % snapshot_every == 0 or step == last:
            result.snapshots[step] = snapshot(model, result.probe)
        if progress is not None and (step % 10 == 0 or step == last):
            progress(step, steps, loss, accuracy, model)
    return result


# --- checkpoints ---------------------------------------------------------------------------------

def checkpoint_path(task: str) -> Path:
    return CHECKPOINTS / f"{task}.pt"


def save(result: TrainResult, path: Path) -> None:
    steps = sorted(result.snapshots)
    torch.save({
        "task": result.task, "config": result.config,
        "state_dict": {k: v for k, v in result.model.state_dict().items() if not k.endswith(".mask")},
        "history": torch.tensor([result.history[k] for k in ("step", "loss", "accuracy")]),  # (3, steps)
        "snapshot_steps": torch.tensor(steps),
        "snapshots": quantize(torch.stack([result.snapshots[s] for s in steps])),  # uint8: a quarter of float32
        "probe": result.probe,
    }, path)


def quantize(weights: torch.Tensor) -> torch.Tensor:
    """Attention weights (0..1) as bytes: 1/255 steps are finer than any colour on screen."""
    return (weights.float() * 255).round().to(torch.uint8)


def dequantize(stored: torch.Tensor) -> torch.Tensor:
    return (stored.float() / 255).half()


@contextmanager
def one_thread():
    """Run on one CPU thread, then restore the thread count (scripts and tests only: it is process-wide)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def train_shipped(task: str, stop_after: int | None = None, progress=None) -> TrainResult:
    """Exactly the run whose result is shipped in checkpoints/ (scripts/train_checkpoints.py);
    `stop_after` ends it early (its first steps are the shipped run's first steps).

    On one CPU thread: a matrix product can add in another order on another thread count, and
    bit-for-bit reproduction needs the same order. (One thread is also the fastest at this size.)
    """
    with one_thread():
        return train(task, steps=STEPS[task], progress=progress, stop_after=stop_after, **DEFAULTS)


def load_run(task: str, path: Path | None = None) -> TrainResult:
    """The shipped run of a task: model (eval, CPU), history and snapshots. Loaded with weights_only."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; one of {', '.join(TASKS)}")
    saved = torch.load(path or checkpoint_path(task), map_location="cpu", weights_only=True)
    c = saved["config"]
    model = build_model(task, c["seed"], c["layers"], c["heads"], c["d_model"])
    missing, unexpected = model.load_state_dict(saved["state_dict"], strict=False)
    if unexpected or any(not k.endswith(".mask") for k in missing):  # the masks are rebuilt by __init__
        raise ValueError(f"{task} checkpoint does not fit the model: missing {missing}, unexpected {unexpected}")
    history = {k: row.tolist() for k, row in zip(("step", "loss", "accuracy"), saved["history"])}
    history["step"] = [int(s) for s in history["step"]]
    snapshots = {int(s): dequantize(w) for s, w in zip(saved["snapshot_steps"], saved["snapshots"])}
    return TrainResult(task, c, model.eval(), history, snapshots, saved["probe"])


def load(task: str) -> AttentionOnlyTransformer:
    """The shipped trained model of a task (eval mode, CPU)."""
    return load_run(task).model
