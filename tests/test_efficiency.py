"""attention_core.lessons.efficiency: the course and fused attention agree; timing, memory and sweep logic."""
import pytest
import torch

from attention_core.book import stages
from attention_core.drawing import numbers
from attention_core.lessons import efficiency


def test_course_and_sdpa_agree_within_1e_5_at_128_tokens_on_every_backend():
    q, k, v = efficiency.random_qkv(2, 12, 128, 64)
    mask = stages.causal_mask(128)
    with torch.no_grad():
        course = efficiency.course_attention(q, k, v, mask)
        assert course.shape == (2, 12, 128, 64)
        for backend in [None, *efficiency.available_backends("cpu")]:
            diff = stages.max_abs_diff(course, efficiency.fused_attention(q, k, v, backend))
            assert diff <= 1e-5, (backend, diff)
        # The mask matters: without it the outputs differ by far more than the tolerance.
        unmasked = stages.attend(q, k, v)
        assert stages.max_abs_diff(unmasked, efficiency.fused_attention(q, k, v)) > 1e-2


def test_backend_detection_finds_at_least_math_and_only_known_names():
    found = efficiency.available_backends("cpu")
    assert "math" in found
    assert set(found) <= set(efficiency.BACKENDS)


def test_weight_matrix_bytes():
    assert efficiency.weights_bytes(1, 12, 1024) == 50_331_648  # (1, 12, 1024, 1024) float32
    assert efficiency.weights_bytes(1, 12, 8192) == 3_221_225_472
    assert numbers.size_in_bytes(3_221_225_472) == "3.2 GB"
    assert efficiency.weights_bytes(2, 12, 1024, bytes_per_value=2) == 50_331_648


def test_token_sizes_are_powers_of_two_up_to_the_limit():
    assert efficiency.token_sizes(1000) == [128, 256, 512]
    assert efficiency.token_sizes(4096)[-1] == 4096
    assert efficiency.token_sizes(100) == []


def test_time_call_returns_a_positive_median():
    q, k, v = efficiency.random_qkv(1, 2, 128, 16)
    seconds = efficiency.time_call(lambda: efficiency.fused_attention(q, k, v), "cpu", repeats=3)
    assert seconds > 0


def test_time_call_takes_the_median_after_the_warm_up(monkeypatch):
    ticks = iter([0.0, 5.0, 10.0, 11.0, 20.0, 23.0])  # three calls lasting 5, 1 and 3 seconds
    monkeypatch.setattr(efficiency.time, "perf_counter", lambda: next(ticks))
    calls = []
    assert efficiency.time_call(lambda: calls.append(1), "cpu", repeats=3, warmup=2) == 3.0
    assert len(calls) == 5  # 2 warm-up calls are not timed


def test_peak_memory_course_holds_four_weight_matrices_fused_holds_none():
    b, h, T, d = 1, 4, 512, 32
    q, k, v = efficiency.random_qkv(b, h, T, d)
    mask = stages.causal_mask(T)
    weights = efficiency.weights_bytes(b, h, T)
    with torch.no_grad():
        out, course = efficiency.peak_bytes(lambda: efficiency.course_attention(q, k, v, mask), "cpu", (q, k, v, mask))
        _, fused = efficiency.peak_bytes(lambda: efficiency.fused_attention(q, k, v, "flash"), "cpu", (q, k, v, mask))
    assert out.shape == (b, h, T, d)
    assert 4 * weights <= course <= efficiency.predicted_peak_bytes("course", b, h, T, d)
    output = b * h * T * d * 4
    assert output <= fused < weights / 4  # the output and per-row statistics, no (T, T) tensor


def test_measure_size_reports_every_method_with_agreement():
    rows, used, note = efficiency.measure_size("cpu", 1, 2, 16, 128, 1, ("sdpa", "course", "math"))
    assert used == "cpu" and note is None
    assert [r["method"] for r in rows] == ["course", "sdpa", "math"]  # the reference goes first
    for row in rows:
        assert row["status"] == "ok" and row["seconds"] > 0 and row["peak_bytes"] > 0
    assert rows[0]["max_abs_diff"] is None
    assert all(r["max_abs_diff"] <= 1e-5 for r in rows[1:])


def test_measure_size_skips_what_would_not_fit_under_the_cpu_limit():
    rows, _, _ = efficiency.measure_size("cpu", 1, 2, 16, 256, 1, ("course", "sdpa"), memory_limit=100_000)
    by = {r["method"]: r for r in rows}
    assert by["course"]["status"].startswith("skipped") and by["course"]["seconds"] is None
    assert by["sdpa"]["status"] == "ok" and by["sdpa"]["max_abs_diff"] is None  # no reference to compare with


def _fake_measure(fail_at):
    def measure(device, num_tokens, methods):
        return ([{"tokens": num_tokens, "method": m,
                  "status": "out of memory" if num_tokens >= fail_at.get(m, 10**9) else "ok"} for m in methods],
                device, None)
    return measure


def test_sweep_drops_a_method_after_it_fails_and_reports_progress():
    steps = []
    rows, notes, used = efficiency.sweep(_fake_measure({"course": 512}), [128, 256, 512, 1024],
                                         ("course", "sdpa"), "cpu", on_step=lambda f, text: steps.append(f))
    course_sizes = [r["tokens"] for r in rows if r["method"] == "course"]
    assert course_sizes == [128, 256, 512]  # tried once at 512, failed, not tried at 1024
    assert [r["tokens"] for r in rows if r["method"] == "sdpa"] == [128, 256, 512, 1024]
    assert steps == sorted(steps) and steps[-1] == 1.0 and notes == [] and used == "cpu"


def test_sweep_stops_when_the_next_size_would_overrun_the_time_budget(monkeypatch):
    clock = iter(range(0, 1000, 10))  # every perf_counter call advances 10 s
    monkeypatch.setattr(efficiency.time, "perf_counter", lambda: next(clock))
    rows, notes, _ = efficiency.sweep(_fake_measure({}), [128, 256, 512], ("sdpa",), "cpu", time_budget_s=30)
    assert [r["tokens"] for r in rows] == [128]
    assert len(notes) == 1 and "Stopped before T = 256" in notes[0]


def test_sweep_continues_on_the_device_the_fallback_chose():
    seen = []

    def measure(device, num_tokens, methods):
        seen.append(device)
        return [{"tokens": num_tokens, "method": "sdpa", "status": "ok"}], "cpu", "CUDA failed; CPU instead."
    _, notes, used = efficiency.sweep(measure, [128, 256], ("sdpa",), "cuda")
    assert seen == ["cuda", "cpu"] and used == "cpu" and len(notes) == 2


@pytest.mark.gpu  # not in the default run (CI has no GPU): `python -m pytest -m gpu` on a CUDA machine
def test_on_cuda_course_and_fused_agree_and_peak_memory_is_measured():
    rows, used, _ = efficiency.measure_size("cuda", 1, 12, 64, 1024, 1, ("course", "sdpa"))
    by = {r["method"]: r for r in rows}
    assert used == "cuda"
    assert by["course"]["peak_bytes"] >= efficiency.weights_bytes(1, 12, 1024)
    assert by["sdpa"]["peak_bytes"] < efficiency.weights_bytes(1, 12, 1024)
    assert by["sdpa"]["max_abs_diff"] <= 1e-5
