"""A run of scripts/slides.py at another preset leaves out the screens that preset does not change (deck/presets.py),
and says so: checked against what AppTest shows at both presets."""
import sys
from pathlib import Path

import pytest

from conftest import open_screen
from screens.registry import BY_NAME

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from deck import cli, presets  # noqa: E402
from deck.figures import arrow_records  # noqa: E402

GPT2 = [("preset", "gpt2-small")]
LEFT_OUT = presets.unchanged(list(BY_NAME), GPT2)
KEPT_NON_STAGE = [s for s in BY_NAME if s not in LEFT_OUT and not BY_NAME[s].stage]


def shown(at) -> list:
    """What the main column shows, element by element: tables and charts by their values (their Arrow bytes
    differ from run to run for equal data; a table's floats not at all, since /efficiency and /implementations
    time their code live in tables), the rest by their protobuf."""
    found = []

    def walk(node):
        children = getattr(node, "children", None)
        if children:
            for child in children.values():
                walk(child)
            return
        proto = getattr(node, "proto", None)
        if proto is None:
            return
        if node.type in ("arrow_data_frame", "dataframe", "table"):  # floats blanked: /efficiency's live timings
            found.append((node.type, node.value.map(lambda v: "float" if isinstance(v, float) else v).to_dict()))
        elif node.type == "vega_lite_chart":
            found.append((node.type, proto.spec, [arrow_records(d.data.data) for d in proto.datasets]))
        else:
            found.append((node.type, proto.SerializeToString()))

    walk(at.main)
    return found


def test_the_fields_a_preset_changes_come_from_the_app():
    changed = presets.changed_fields(GPT2)
    assert {"preset", "x", "tokens", "labels", "d_out", "input_kind", "seed_for"} <= changed, changed
    assert not changed & {"text", "device", "colour", "presenter", "downloads", "quiz", "notes"}, changed
    assert "text" in presets.changed_fields(GPT2 + [("text", "A sentence of my own")])  # /gpt2 reads it: kept
    assert presets.changed_fields([("preset", "book")]) == set()


def test_the_left_out_screens_are_the_non_stages_that_read_no_preset_setting():
    assert LEFT_OUT and "home" in LEFT_OUT and "memory" not in LEFT_OUT
    assert not any(BY_NAME[s].stage for s in LEFT_OUT)
    assert presets.settings_read("s = ui.current()\nn = s.tokens\nui.current().x\nsettings.device\nother.d_out\n") == {
        "tokens", "x", "device"}
    assert presets.reads_preset("gpt2", {"text"}) == "reads settings.text" and not presets.reads_preset("gpt2", {"x"})
    assert presets.reads_preset("home", {"notes"})  # a URL note shows on every screen


@pytest.mark.parametrize("screen", LEFT_OUT)
def test_a_left_out_screen_shows_the_same_at_both_presets(screen):
    book, gpt2 = shown(open_screen(screen, sections="all")), shown(open_screen(screen, sections="all", preset="gpt2-small"))
    assert len(book) == len(gpt2) and book == gpt2, [a[0] for a, b in zip(book, gpt2) if a != b]


@pytest.mark.parametrize("screen", KEPT_NON_STAGE)
def test_a_kept_screen_that_is_no_stage_does_change_with_the_preset(screen):
    assert shown(open_screen(screen, sections="all")) != shown(open_screen(screen, sections="all", preset="gpt2-small"))


def test_the_run_leaves_them_out_says_which_and_why_and_keeps_named_screens(tmp_path, capsys):
    parse = cli.make_parser().parse_args
    assert cli.chosen_screens(parse([]), GPT2) == ([s for s in BY_NAME if s not in LEFT_OUT], LEFT_OUT)
    for params in ([], [("preset", "book")], [("quiz", "1")]):  # the book preset: every screen
        assert cli.chosen_screens(parse([]), params) == (list(BY_NAME), [])
    assert cli.chosen_screens(parse(["--keep-unchanged"]), GPT2) == (list(BY_NAME), [])
    assert cli.chosen_screens(parse(["--screens", "home", "scores"]), GPT2) == (["home", "scores"], [])
    stale = tmp_path / "01-home__preset-gpt2-small__01.png"  # from an earlier run with --keep-unchanged
    stale.write_bytes(b"png")
    cli.leave_out(tmp_path, LEFT_OUT, GPT2, figures=False)
    said = capsys.readouterr().out
    assert all(s in said for s in LEFT_OUT) and "does not change them" in said
    assert (tmp_path / "left-out__preset-gpt2-small.txt").read_text().strip() == said.strip()
    assert not stale.exists()
