"""Python and the browser draw the same colour for the same value.

The attention view's own JavaScript (view_core.mjs's colourAt and shadeColours, run in node by
tests/js/colours_as_drawn.mjs) ramps the stops Python sends, Vega (the Altair heatmaps, rendered by vl-convert)
draws the scale spec Python sends; colour.py's ColourScale colours the same values.
"""
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd
import pytest
import torch
import vl_convert
from PIL import Image

from attention_core.drawing import colour, head_images
from attention_core.drawing.view_data import stored_cells, view_payload

ROOT = Path(__file__).resolve().parents[1]


def browser(asked: list) -> list:
    """What colours_as_drawn.mjs answers for `asked` (its docstring says what each item holds)."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("node is missing in CI (Debian: apt-get install nodejs)")
        pytest.skip("node is not installed (Debian: apt-get install nodejs)")
    run = subprocess.run([node, "tests/js/colours_as_drawn.mjs"], input=json.dumps(asked), cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


# (scale, domain, values): inside, at and beyond each end; 0.125 on 0..1 falls halfway between two stops, where
# a channel ends in .5 (222.5) and the two sides must round it the same way.
CASES = [
    (colour.WEIGHTS, (0.0, 1.0), [-0.1, 0.0, 0.125, 0.3, 0.5, 0.77, 1.0, 1.4]),
    (colour.SHARE, (-1.5, 2.25), [-np.inf, -3.0, -1.5, -0.2, 0.0, 0.4, 1.1, 2.25, 5.0]),
    (colour.SCORES, (-3.0, 3.0), [-4.0, -3.0, -1.2, 0.0, 0.7, 3.0, 9.0]),
    (colour.SCORES, (0.0, 2.5), [0.0, 0.6, 1.25, 2.5]),  # one-sided: white to red
    (head_images.SCALE, head_images.SCALE.fixed, [-5.0, -3.0, -1.0, 0.0, 0.5, 3.0, 7.0]),
]


@pytest.mark.parametrize("scale, domain, values", CASES, ids=["weights", "share", "scores", "scores+", "heads"])
def test_the_browsers_ramp_on_the_sent_stops_gives_pythons_colour_for_each_value(scale, domain, values):
    t, missing = scale.fractions(np.array(values), domain)  # where Python puts each value on the palette
    assert not missing.any()
    [drawn] = browser([{"stops": scale.stops(), "t": t.tolist()}])
    assert [tuple(rgb) for rgb in drawn] == [scale.colour(value, domain) for value in values]


@pytest.mark.parametrize("kind, scale", [("weights", colour.SHARE), ("weights", colour.WEIGHTS),
                                         ("scores", colour.SCORES)], ids=["share", "weights", "scores"])
def test_the_view_fills_each_cell_of_a_payload_with_pythons_colour_for_its_value(kind, scale):
    T = 12
    scores = torch.randn(T, T, generator=torch.Generator().manual_seed(5), dtype=torch.float64) * 2  # (T, T)
    scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
    matrix = (scores if kind == "scores" else torch.softmax(scores, dim=-1)).numpy()  # (T, T)
    payload = view_payload(matrix, [str(t) for t in range(T)], kind, scale)
    meta = payload["meta"]
    assert meta["stops"] == list(scale.hex)  # the browser's only palette is the one Python sends
    [drawn] = browser([{"stops": meta["stops"], "masked": "masked", "shades": payload["cells"]["shade"].tolist()}])
    rgb = np.array([[int(c) for c in css.removeprefix("rgb(").removesuffix(")").split(",")] for css in drawn])
    i, j = stored_cells(T, T, meta["layout"])
    expected = scale.image(scale.values(matrix))[i, j]  # colour.py's pixels of the same cells
    # A shade is one of 255 steps along the palette: at most half a step (under 1.5 of 255 per channel on these
    # palettes) off the exact colour, and each side rounds.
    assert np.abs(rgb - expected).max() <= 2, kind


@pytest.mark.parametrize("scale, domain, values", CASES[:4], ids=["weights", "share", "scores", "scores+"])
def test_vega_draws_pythons_colour_for_each_value_on_the_scale_python_gives_it(scale, domain, values):
    # Vega-Lite interpolates a range of colours in HCL unless told otherwise: 5 of 255 off between the stops.
    values = [v for v in values if np.isfinite(v)]
    cells = pd.DataFrame({"n": [str(n) for n in range(len(values))], "v": values})
    chart = alt.Chart(cells).mark_rect().encode(
        x=alt.X("n:N", axis=None, sort=None),
        color=alt.Color("v:Q", scale=alt.Scale(**scale.vega(domain)), legend=None),
    ).properties(width=20 * len(values), height=10).configure_view(strokeWidth=0)
    png = Image.open(io.BytesIO(vl_convert.vegalite_to_png(chart.to_dict(), scale=1))).convert("RGB")
    pixels = np.asarray(png)  # (height, width, 3)
    width = pixels.shape[1]
    drawn = [tuple(int(c) for c in pixels[pixels.shape[0] // 2, int((n + 0.5) * width / len(values))])
             for n in range(len(values))]
    assert drawn == [scale.colour(value, domain) for value in values]
