"""An accessibility audit of every screen with axe-core in Debian's Chromium (WCAG 2.1 A and AA).

    python scripts/a11y.py                          # every screen, book preset and gpt2-small, every section open
    python scripts/a11y.py --screens softmax mask --presets book --details

axe-core (scripts/vendor/axe.min.js, shipped with its licence so the check runs offline) is the engine most audits use.
A violation's node belongs to the app when it sits in the main area or in the sidebar's own widgets; the rest
(Streamlit's page navigation, its header) is Streamlit's own, listed and left alone. tests/test_a11y_browser.py
fails on any violation of the app's own above `minor`.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from local_server import ROOT, chromium_page, streamlit_server, wait_idle  # noqa: E402

AXE = ROOT / "scripts" / "vendor" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
ABOVE_MINOR = ("moderate", "serious", "critical")
# Where the app's own elements live: the main area and the widgets the app puts in the sidebar.
APP_AREAS = '[data-testid="stMain"], [data-testid="stSidebarUserContent"]'

RUN = """async ([tags, areas]) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => {
    const el = document.querySelector(n.target[0]) ;
    const inApp = n.target.length > 1 || (el && el.closest(areas) !== null);  // a target in a shadow root: the view
    return {target: n.target.join(' >> '), app: inApp, summary: (n.failureSummary || '').slice(0, 200)};
  })}));
}"""


def audit(page) -> list[dict]:
    """axe's violations on the page as it is now, each node marked app (ours) or not (Streamlit's own)."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN, [TAGS, APP_AREAS])


def split(violations: list[dict]) -> tuple[list[dict], list[dict]]:
    """(the app's own, Streamlit's own): each a list of (rule, impact, node) rows."""
    ours, theirs = [], []
    for v in violations:
        for node in v["nodes"]:
            (ours if node["app"] else theirs).append({"id": v["id"], "impact": v["impact"], "help": v["help"], **node})
    return ours, theirs


def open_screen(page, base: str, screen: str, preset: str, params: str = "open=all") -> None:
    path = "" if screen == "home" else screen
    page.goto(f"{base}/{path}?preset={preset}&{params}")
    wait_idle(page, timeout_ms=180_000)


def main() -> None:
    from screens.registry import SCREENS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--screens", nargs="*", default=[s.name for s in SCREENS])
    parser.add_argument("--presets", nargs="*", default=["book", "gpt2-small"])
    parser.add_argument("--details", action="store_true", help="print every node of the app's own")
    args = parser.parse_args()
    print("| screen | preset | app's own above minor | app's own minor | Streamlit's own |")
    print("|---|---|---:|---:|---:|")
    with streamlit_server() as (base, _proc, _log), chromium_page(1600, 1000) as page:
        for preset in args.presets:
            for name in args.screens:
                open_screen(page, base, name, preset)
                ours, theirs = split(audit(page))
                serious = [n for n in ours if n["impact"] in ABOVE_MINOR]
                print(f"| {name} | {preset} | {len(serious)} | {len(ours) - len(serious)} | {len(theirs)} |", flush=True)
                if args.details:
                    for n in ours:
                        print(f"    {n['impact']:8} {n['id']}: {n['target'][:120]}  {n['summary'][:120]}")


if __name__ == "__main__":
    main()
