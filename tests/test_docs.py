"""The Python blocks of README.md and docs/*.md run, as the pages claim; docs/url.md names every URL parameter.

A reader copies these blocks into a notebook, so a block that fails is a broken promise (the README's
trained-model example once imported modules that had moved). Every ```python block runs, each in a fresh
interpreter started from the repository's root, offline, with a time limit, unless the line right above its
fence says why it cannot: `<!-- does not run: it needs the GPT-2 weights -->`. Such a block is still compiled.
"""
import ast
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OPENING = re.compile(r"^ {0,3}(`{3,})\s*([\w+-]*)")  # a fence: its backticks and its language
DOES_NOT_RUN = re.compile(r"^ {0,3}<!--\s*does not run\b(.*?)-->\s*$")
TIMEOUT_S = 120  # each block takes seconds; the limit is for a shared, busy machine


def fenced_blocks(text: str) -> list[tuple[int, str, str, str | None]]:
    """Every fenced block: (line of its opening fence, language, code, the line above it or None)."""
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        opening = OPENING.match(lines[i])
        if not opening:
            i += 1
            continue
        ticks, language = opening.groups()
        end = next((j for j in range(i + 1, len(lines)) if re.fullmatch(rf" {{0,3}}{ticks}`*\s*", lines[j])), None)
        if end is None:
            raise ValueError(f"line {i + 1}: a fence that never closes")
        found.append((i + 1, language, "\n".join(lines[i + 1:end]), lines[i - 1] if i else None))
        i = end + 1
    return found


def python_blocks():
    """pytest params: one per ```python block, with the reason it does not run (None: it runs)."""
    params = []
    for page in PAGES:
        for line, language, code, above in fenced_blocks(page.read_text(encoding="utf-8")):
            if language != "python":
                continue
            marker = DOES_NOT_RUN.match(above or "")
            reason = marker.group(1).strip(" :") if marker else None
            params.append(pytest.param(code, reason, id=f"{page.relative_to(ROOT)}:{line}"))
    return params


BLOCKS = python_blocks()


@pytest.mark.parametrize("code, reason", BLOCKS)
def test_python_block(code, reason):
    if reason is not None:
        assert reason, "a block marked `does not run` must say why: <!-- does not run: why -->"
        compile(code, "<block>", "exec")  # it cannot run here, but it must still be Python
        return
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONDONTWRITEBYTECODE="1")
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the block ran past {TIMEOUT_S} s: keep the docs' blocks quick, or mark it as not running")
    assert done.returncode == 0, f"the block failed (exit {done.returncode}):\n{done.stderr[-3000:]}"


def test_the_readme_has_a_block_that_runs():
    """Guards the parser: if it stopped finding blocks, every test above would pass by running nothing."""
    ids = [p.id for p in BLOCKS if p.values[1] is None]
    assert any(i.startswith("README.md:") for i in ids), ids
    assert any(i.startswith("docs/trained.md:") for i in ids), ids


def test_every_does_not_run_marker_sits_above_a_python_block():
    """A marker left above prose or a bash block (after an edit moved the code) would hide nothing, silently."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        above_python = {line - 1 for line, language, _, _ in fenced_blocks(text) if language == "python"}
        for number, line in enumerate(text.split("\n"), start=1):
            if DOES_NOT_RUN.match(line):
                assert number in above_python, f"{page.relative_to(ROOT)}:{number}: no ```python block right below"


def test_fenced_blocks_reads_fences_as_markdown_does():
    text = "\n".join(["<!-- does not run: why -->", "```python", "x = 1", "```", "```bash", "```python",
                      "```", "    ```python", "indented four spaces: code, not a fence"])
    assert fenced_blocks(text) == [(2, "python", "x = 1", "<!-- does not run: why -->"),
                                   (5, "bash", "```python", "```")]
    with pytest.raises(ValueError):
        fenced_blocks("```python\nx = 1\n")


def test_url_reference_names_every_parameter():
    from attention_core.lessons.presets import PARAMS

    reference = (ROOT / "docs" / "url.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_0-9]+)`", reference))
    assert not sorted(set(PARAMS) - named), "docs/url.md lacks these URL parameters"


def test_readme_is_short_and_undated():
    """The README is for a teacher (issue 30): measured figures, with their dates, live in docs/."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.split("\n")) <= 200
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b|\b\d\d:\d\d UTC\b|load average", text)


def headings(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lowercase, punctuation dropped, spaces as dashes."""
    prose = re.sub(r"(?ms)^ {0,3}```.*?^ {0,3}```", "", text)  # a `# comment` in a code block is no heading
    titles = re.findall(r"(?m)^#{1,6}\s+(.*?)\s*$", prose)
    return {re.sub(r"[^\w\- ]", "", title.replace("`", "").lower()).replace(" ", "-") for title in titles}


def test_links_between_the_pages_resolve():
    """Text moved from the README into docs/: a link to a file or a heading that is not there fails here."""
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # https://...: not checked offline
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists() or (anchor and linked.suffix == ".md"
                                       and anchor not in headings(linked.read_text(encoding="utf-8"))):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken


def test_the_readme_names_what_ci_uses_python_and_debian_packages():
    """Issue 38: the README's Python version and the Debian packages the tests need are those CI and the container
    use (.ci/run, deploy/Dockerfile), read from those files, so a newcomer's machine matches CI's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    python = re.search(r"FROM python:(\d+\.\d+)", (ROOT / "deploy" / "Dockerfile").read_text()).group(1)
    assert re.search(rf"You need Python {re.escape(python)}\b", readme), python
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    installed = set(re.findall(r"missing\+=\(([\w-]+)\)", ci))
    named = re.search(r"`apt-get install ([^`]+)`", readme).group(1).split()
    assert installed and set(named) == installed, (named, installed)
    run, test = (re.search(rf"pip install -r ({name}) && {after}", readme) for name, after in
                 (("requirements.txt", "streamlit run app.py"), ("requirements-dev.txt", "python -m pytest")))
    assert run and test
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text()  # the tests install the app's pins


def test_the_container_copies_every_file_the_app_imports():
    """deploy/Dockerfile copies the app file by file: every top-level module and package that app.py and main.py
    reach (read from their imports, and from what those import in turn) is among them, so the image starts."""
    copied = set()
    for line in (ROOT / "deploy" / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            copied.update(part.rstrip("/") for part in line.split()[1:-1])
    local = {p.stem if p.suffix == ".py" else p.name for p in ROOT.iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.name not in ("tests", "scripts")}
    reached, todo = set(), ["app", "main"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        files = [ROOT / f"{name}.py"] if (ROOT / f"{name}.py").exists() else list((ROOT / name).rglob("*.py"))
        for path in files:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                todo += [n.split(".")[0] for n in names if n.split(".")[0] in local]
    wanted = {f"{name}.py" if (ROOT / f"{name}.py").exists() else name for name in reached}
    assert wanted <= copied, sorted(wanted - copied)
