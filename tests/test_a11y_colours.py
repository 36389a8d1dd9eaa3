"""Colours that tell series apart stay apart for readers with colour blindness (issue 38, WCAG 1.4.1).

Simulated with Machado, Oliveira and Fernandes (2009) at full severity on linear RGB, compared in CIELAB (ΔE 1976).
The old /implementations pair (#e15759, #59a14f) was ΔE 0.9 apart under deuteranopia here, as the audit measured.
"""
import itertools

import numpy as np
import pytest

from attention_core.drawing import charts, memory_charts
from attention_core.drawing.colour import CATEGORICAL_HEX, METHOD_HEX, MASKED_HEX, rgb_of

APART = 10.0  # ΔE: clearly different side by side (2.3 is a just-noticeable difference)

MACHADO = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}


def linear(rgb) -> np.ndarray:
    c = np.asarray(rgb, dtype=float) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(lin: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ lin
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a, b, vision: str | None) -> float:
    la, lb = linear(a), linear(b)
    if vision:
        la, lb = (np.clip(np.array(MACHADO[vision]) @ x, 0, 1) for x in (la, lb))
    return float(np.linalg.norm(lab(la) - lab(lb)))


def closest(colours, vision):
    return min((delta_e(a, b, vision), a, b) for a, b in itertools.combinations(colours, 2))


def test_the_simulation_reproduces_the_audits_bad_pair():
    assert closest([rgb_of("#e15759"), rgb_of("#59a14f")], "deuteranopia")[0] < 2  # the audit's ΔE 0.9


PALETTES = {
    "categorical (/implementations)": [rgb_of(h) for h in CATEGORICAL_HEX],
    "methods (/efficiency)": [rgb_of(h) for name, h in METHOD_HEX.items() if h != MASKED_HEX],
    "heads (/memory)": list(memory_charts.HEAD_HUES),
}


@pytest.mark.parametrize("vision", [None, *MACHADO])
@pytest.mark.parametrize("palette", list(PALETTES))
def test_every_pair_of_series_colours_stays_apart(palette, vision):
    gap, a, b = closest(PALETTES[palette], vision)
    assert gap >= APART, (palette, vision, a, b, round(gap, 1))


def test_lines_carry_a_second_cue_beside_colour():
    import pandas as pd
    frame = pd.DataFrame({"tokens": [128, 256] * 3, "label": ["a", "a", "b", "b", "c", "c"], "ms": [1, 2, 3, 4, 5, 6]})
    spec = charts.finished(charts.loglog(frame, "ms", "t", "ms", dict(zip("abc", CATEGORICAL_HEX))))
    for channel in ("strokeDash", "shape"):
        rng = spec["encoding"][channel]["scale"]["range"]
        assert len({str(r) for r in rng}) == 3, channel  # each line its own dash and point shape


def test_every_chart_is_one_named_picture_for_a_screen_reader():
    import altair as alt
    base = alt.Chart(alt.Data(values=[{"x": 1, "y": 2}]))
    layered = alt.layer(base.mark_rect().encode(x="x:O", y="y:O"), base.mark_text().encode(x="x:O", y="y:O",
                                                                                              text="y:Q"))
    spec = charts.finished(layered.properties(title="attn_weights"))
    assert spec["description"] == "attn_weights"
    assert all(layer["mark"]["aria"] is False for layer in spec["layer"])
