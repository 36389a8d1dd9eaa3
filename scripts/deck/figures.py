"""--figures: every Altair chart of every screen as SVG and PNG, rendered offline by vl-convert (no browser)."""
import json
import math
import os
import time
from pathlib import Path
from xml.etree import ElementTree

from screens.registry import BY_NAME

from .cutting import HEIGHT, WIDTH
from .naming import numbered, slug, stem, with_presenter


def arrow_records(raw: bytes) -> list[dict]:
    """Streamlit's Arrow bytes as Vega-Lite rows; NaN and infinities become null (JSON has none)."""
    import pyarrow as pa
    rows = pa.ipc.open_stream(raw).read_all().to_pylist()
    return [{k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}
            for row in rows]


def standalone(proto) -> dict:
    """The chart's Vega-Lite spec with its data put back in (Streamlit sends the data beside it)."""
    spec = json.loads(proto.spec)
    for dataset in proto.datasets:
        spec.setdefault("datasets", {})[dataset.name] = arrow_records(dataset.data.data)
    if proto.HasField("data") and proto.data.data:
        spec["data"] = {"values": arrow_records(proto.data.data)}
    if "mark" in spec or "layer" in spec:  # one view: size it as a 16:9 figure where it has no size
        height = spec.get("height") if isinstance(spec.get("height"), (int, float)) else None
        if "width" not in spec:
            spec["width"] = round(height * 16 / 9) if height else 960
        if "height" not in spec:
            spec["height"] = round(spec["width"] * 9 / 16) if isinstance(spec["width"], (int, float)) else 540
    return spec


def chart_title(spec: dict) -> str:
    for view in [spec] + spec.get("layer", []):
        title = view.get("title")
        if isinstance(title, dict):
            title = title.get("text")
        if isinstance(title, list):
            title = " ".join(map(str, title))
        if title:
            return str(title)
    return "chart"


def run_screen(app: Path, screen: str, params: list[tuple[str, str]], timeout: float):
    """The screen as AppTest runs it: the entry script with the URL parameters, then the page. The repository's
    app.py is the server (an st.App): AppTest runs the page script it serves, main.py."""
    from streamlit.testing.v1 import AppTest
    page = app.parent / "main.py" if app.name == "app.py" and (app.parent / "main.py").exists() else app
    at = AppTest.from_file(str(page), default_timeout=timeout)
    for name, raw in params:
        at.query_params[name] = raw
    at.run()
    if BY_NAME[screen].url_path:
        at.switch_page(BY_NAME[screen].file).run()
        # The URL's open= reached the first screen AppTest ran (home): give the same sections to this one.
        wanted = dict(params).get("open")
        if wanted and "sections:open" in at.session_state:
            opened = dict(at.session_state["sections:open"])
            opened[BY_NAME[screen].url_path] = set(wanted.split(","))
            at.session_state["sections:open"] = opened
            at.run()
    return at


def not_charts(at) -> list[str]:
    """What --figures leaves out: images and diagrams, which are not Vega-Lite charts."""
    return [f"{len(at.get(kind))} {what}" for kind, what in
            (("image", "image(s) drawn with st.image"), ("graphviz_chart", "graphviz diagram(s)"),
             ("bidi_component", "attention view(s), drawn by the browser: in the screenshots"))
            if len(at.get(kind))]


def export_figures(args, params: list[tuple[str, str]], screens: list[str]) -> int:
    """Every Altair chart of every screen as SVG, and as PNG scaled to fit a slide (1920x1080 x scale)."""
    import vl_convert as vlc
    os.environ.setdefault("STREAMLIT_LOGGER_LEVEL", "error")  # AppTest's "missing ScriptRunContext" noise
    out, failed = Path(args.out), 0
    for screen in screens:
        began = time.time()
        at = run_screen(Path(args.app), screen, with_presenter(params, args.presenter, args.sections), args.timeout)
        lessons = {e.value for box in at.expander if box.label == "Common mistakes" for e in box.error}  # wrong on purpose
        problems = ([str(e.value).splitlines()[0] for e in at.exception]
                    + [str(e.value) for e in at.error if e.value not in lessons])
        named = stem(numbered(screen, screens), params)  # sorts in the sidebar's order
        for stale in out.glob(f"{named}__chart[0-9][0-9]_*.*"):  # from an earlier run
            stale.unlink()
        files = []
        for i, chart in enumerate(at.get("vega_lite_chart"), 1):
            spec = standalone(chart.proto)
            name = f"{named}__chart{i:02d}_{slug(chart_title(spec), 50)}"
            svg = vlc.vegalite_to_svg(json.dumps(spec, allow_nan=False))
            root = ElementTree.fromstring(svg)
            width, height = float(root.get("width")), float(root.get("height"))
            png = vlc.svg_to_png(svg, scale=args.scale * min(WIDTH / width, HEIGHT / height))
            (out / f"{name}.svg").write_text(svg, encoding="utf-8")
            (out / f"{name}.png").write_bytes(png)
            files += [out / f"{name}.svg", out / f"{name}.png"]
        skipped = not_charts(at)
        print(f"{screen}: {len(files) // 2} chart(s) in {time.time() - began:.1f} s"
              + (f" (not charts, skipped: {', '.join(skipped)})" if skipped else "")
              + "".join(f"\n  {f}" for f in files))
        for problem in problems:
            failed += 1
            print(f"ERROR on screen {screen}: {problem}")
    return failed
