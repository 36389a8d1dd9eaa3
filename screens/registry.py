"""The one list of screens: the app's navigation, the tests and the scripts all read it.

Plain Python (no Streamlit), so tests and scripts can import it. An entry declares what the rest of the app
needs to know about a screen: where it sits in the navigation, and, for the chapter's stages, the seed of the book's
weights and the predict-first questions. The screen's own lesson is its file, and its folded sections' bodies (worked
blocks, common mistakes, readers' questions) sit beside it in screens/<name>_blocks.py. The tests read this list:
a new stage gets the quiz, the sections, the bad-input and the every-screen tests without a test of its own.
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from attention_core.book.inputs import MAX_TOKENS
from attention_core.lessons import memory_layout as memory
from attention_core.lessons import kv_cache
from attention_core.lessons import gqa as gqa_lesson
from attention_core.lessons import latent as latent_lesson
from attention_core.lessons import questions as q
from attention_core.lessons import sliding_window as swa
from attention_core.lessons import rope
from attention_core.lessons.presets import Param, declare

SCREENS_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Screen:
    title: str
    url_path: str  # "" for the home screen
    file: str  # relative to the app's folder, e.g. "screens/scores.py"
    icon: str  # a bundled Material icon (works offline)
    section: str
    stage: "Stage | None" = None  # one of the chapter's stages: they share the sidebar's inputs and sizes
    # Class mode's questions: computed from the tensors the screen shows (attention_core/lessons/questions.py)
    questions: Callable[..., list] | None = None
    # The screen's own URL parameters (its controls), beside the app's shared ones in presets.PARAMS
    params: dict[str, Param] = field(default_factory=dict, hash=False, compare=False)

    @property
    def name(self) -> str:
        """The screen's short name: its URL path, or "home"."""
        return self.url_path or "home"


@dataclass(frozen=True)
class Stage:
    """What a stage of chapter 3 declares beyond its screen."""
    # torch.manual_seed before the book builds this step's weights, so the book preset reproduces its printed
    # tensors: SelfAttention_v1 and the walk-through of 3.4.1 use 123; SelfAttention_v2, whose weights the masking
    # section reuses, uses 789.
    book_seed: int


SCREENS = [
    Screen("Home", "", "screens/home.py", ":material/home:", "Start"),
    Screen("1 · Attention scores", "scores", "screens/scores.py", ":material/grid_on:",
           "Chapter 3, stage by stage",
           stage=Stage(book_seed=123), questions=q.scores_questions),
    Screen("2 · Softmax and √d_k", "softmax", "screens/softmax.py", ":material/functions:",
           "Chapter 3, stage by stage",
           stage=Stage(book_seed=123), questions=q.softmax_questions,
           params={"scale": Param(bool, True),
                   "temperature": Param(float, 1.0, 0.25, 4.0)}),  # scores ÷ (√d_k · τ) before softmax
    Screen("3 · Causal mask", "mask", "screens/mask.py", ":material/visibility_off:",
           "Chapter 3, stage by stage",
           stage=Stage(book_seed=789), questions=q.mask_questions,
           params={"context_length": Param(int, 6, 1, MAX_TOKENS)}),
    Screen("4 · Dropout", "dropout", "screens/dropout.py", ":material/grain:",
           "Chapter 3, stage by stage",
           stage=Stage(book_seed=789), questions=q.dropout_questions,
           params={"dropout": Param(float, 0.5, 0.0, 1.0), "dropout_seed": Param(int, 123, 0, 2**31 - 1),
                   "train": Param(bool, True)}),
    Screen("5 · Multi-head attention", "heads", "screens/heads.py", ":material/view_column:",
           "Chapter 3, stage by stage",
           stage=Stage(book_seed=123), questions=q.heads_questions),
    Screen("Heads in memory", "memory", "screens/memory.py", ":material/memory_alt:", "Chapter 3, stage by stage",
           questions=q.memory_questions,
           # a small multi-head split (every float drawn) and one picked element: 1-based in the URL; the screen
           # shows PyTorch's 0-based index, value − 1
           params={"mem_tokens": Param(int, 6, 1, memory.MAX_TOKENS), "mem_heads": Param(int, 2, 1, memory.MAX_HEADS),
                   "mem_head_dim": Param(int, 3, 1, memory.MAX_HEAD_DIM),
                   "mem_token": Param(int, 3, 1, memory.MAX_TOKENS), "mem_head": Param(int, 2, 1, memory.MAX_HEADS),
                   "mem_dim": Param(int, 1, 1, memory.MAX_HEAD_DIM)}),
    # Attention as LLMs run it: the book's chapter-4 bonus code (ch04/03-06, and RoPE from pkg/llms_from_scratch).
    # Each new stage replaces its own marker line below with its Screen entry (the sidebar's order).
    Screen("KV cache", "kv-cache", "screens/kv_cache.py", ":material/cached:", "Attention as LLMs run it",
           stage=Stage(book_seed=123), questions=kv_cache.kv_cache_questions,
           # the prompt's length (tokens fed at once by the first call) and the step (forward call) the lesson follows
           params={"kv_prompt": Param(int, 2, 1, MAX_TOKENS), "kv_step": Param(int, 3, 1, MAX_TOKENS)}),
    Screen("Sliding window", "sliding-window", "screens/sliding_window.py", ":material/view_week:",
           "Attention as LLMs run it", stage=Stage(book_seed=123), questions=swa.sliding_window_questions,
           # W, the keys each query sees (itself included); 1 to the tokens there are (the screen says so above)
           params={"sliding_window": Param(int, 3, 1, MAX_TOKENS)}),
    Screen("Shared keys: grouped-query attention", "gqa", "screens/gqa.py", ":material/group_work:",
           "Attention as LLMs run it", stage=Stage(book_seed=123), questions=gqa_lesson.gqa_questions,
           # GroupedQueryAttention's key/value heads: a divisor of the screen's num_heads (the shared `heads`)
           params={"kv_groups": Param(int, 1, 1, 1024)}),
    Screen("A latent cache", "latent", "screens/latent.py", ":material/compress:", "Attention as LLMs run it",
           stage=Stage(book_seed=123), questions=latent_lesson.latent_questions,
           # MultiHeadLatentAttention's latent_dim, 1 to 2 · d_out; 0 = d_out / 4 (latent.auto_latent)
           params={"latent_dim": Param(int, 0, 0, 2048)}),
    Screen("Rotary positions (RoPE)", "rope", "screens/rope.py", ":material/rotate_right:", "Attention as LLMs run it",
           stage=Stage(book_seed=123), questions=rope.rope_questions,
           # where the sentence starts (one of rope.OFFSETS: the view's frames), and the dials' positions (0-based,
           # as the book's code counts them)
           params={"rope_offset": Param(int, 0, 0, max(rope.OFFSETS)),
                   "rope_m": Param(int, 4, 0, rope.MAX_POSITION), "rope_n": Param(int, 1, 0, rope.MAX_POSITION)}),
    Screen("What heads learn", "trained", "screens/trained.py", ":material/model_training:", "What attention learns",
           questions=q.trained_questions,
           # the task, the training step shown (-1 = the last), the heads switched off ("1.2,2.1" = layer.head,
           # 1-based), the probe typed as symbols, and the controls of "Train it yourself"
           params={"task": Param(str, "repeat", choices=("repeat", "sort", "reverse")),
                   "step": Param(int, -1, -1, 100_000), "off": Param(str, ""), "probe": Param(str, ""),
                   "train_layers": Param(int, 2, 1, 3), "train_heads": Param(int, 4, 1, 8),
                   "train_steps": Param(int, 1500, 50, 5000), "train_seed": Param(int, 0, 0, 2**31 - 1),
                   "train_lr": Param(float, 3e-3, 1e-4, 3e-2)}),
    Screen("Why √d_k: experiments", "why-scaling", "screens/why_scaling.py", ":material/science:",
           "Going further", params={"d_k": Param(int, 64, 1, 1024)}),
    Screen("Efficiency: fused attention", "efficiency", "screens/efficiency.py", ":material/speed:",
           "Going further"),
    Screen("Eight ways to write it", "implementations", "screens/implementations.py", ":material/stacks:",
           "Going further"),
    Screen("Real GPT-2 heads", "gpt2", "screens/gpt2.py", ":material/psychology:", "Going further"),
]

BY_NAME = {s.name: s for s in SCREENS}
for _screen in SCREENS:
    declare(_screen.params)
STAGES = [s for s in SCREENS if s.stage]
STAGE_PATHS = [s.url_path for s in STAGES]  # their URL paths: the warm-up's list, the load and benchmark scripts'


def sections() -> dict[str, list[Screen]]:
    """Screens grouped by section, in order (the navigation's layout)."""
    grouped: dict[str, list[Screen]] = {}
    for screen in SCREENS:
        grouped.setdefault(screen.section, []).append(screen)
    return grouped
