"""requirements.txt is what Streamlit Community Cloud installs: every package pinned, CPU-only torch.

The file is read as text (no install): every requirement is `name==version`, torch has the `+cpu`
pin on Linux (PyTorch's CPU index) and the plain pin elsewhere, and the pins are a closed set: every
dependency that a pinned package declares (read from its installed metadata, with markers evaluated
for Linux, macOS and Windows under Python 3.11 to 3.13) is pinned too, so no resolver picks a
version of its own from either index.
"""
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REQUIREMENTS = Path(__file__).resolve().parents[1] / "requirements.txt"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TORCH = "2.13.0"

PLATFORMS = {  # the marker variables that differ between the three systems
    "linux": {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"},
    "darwin": {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix"},
    "win32": {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt"},
}
PYTHONS = ["3.11", "3.12", "3.13"]


def _lines() -> list[str]:
    """Logical lines without comments or blanks (no line continuations are used)."""
    lines = []
    for raw in REQUIREMENTS.read_text().splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def _options() -> list[str]:
    return [line for line in _lines() if line.startswith("-")]


def _requirements() -> list[Requirement]:
    return [Requirement(line) for line in _lines() if not line.startswith("-")]


def _environment(platform: str, python: str) -> dict:
    return default_environment() | PLATFORMS[platform] | {"python_version": python,
                                                           "python_full_version": python + ".0"}


def _pins_for(platform: str, python: str) -> dict[str, str]:
    """name -> pinned version of the lines whose marker applies on that system."""
    env = _environment(platform, python)
    pins = {}
    for req in _requirements():
        if req.marker is None or req.marker.evaluate(env):
            name = canonicalize_name(req.name)
            assert name not in pins, f"{req.name} is pinned twice for {platform}"
            pins[name] = str(req.specifier).removeprefix("==")
    return pins


def test_every_requirement_is_pinned_to_one_exact_version():
    reqs = _requirements()
    assert len(reqs) > 10  # the whole tree, not only the four direct dependencies
    for req in reqs:
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{req} is not pinned with =="
        assert "*" not in specs[0].version, f"{req} uses a wildcard"
        assert not req.url and not req.extras, f"{req}: plain name==version only"


def test_the_only_option_is_pytorchs_cpu_index_as_an_extra_index():
    # An --index-url would replace PyPI for everything; the CPU index must only be added.
    assert _options() == [f"--extra-index-url {CPU_INDEX}"]


def test_the_apps_direct_dependencies_have_the_checked_versions():
    pins = _pins_for("linux", "3.12")
    assert {n: pins[n] for n in ("streamlit", "altair", "pandas")} == {
        "streamlit": "1.67.0", "altair": "6.3.0", "pandas": "3.1.1"}


@pytest.mark.parametrize("python", PYTHONS)
def test_linux_gets_the_cpu_build_and_macos_and_windows_the_plain_release(python):
    assert _pins_for("linux", python)["torch"] == f"{TORCH}+cpu"
    assert _pins_for("darwin", python)["torch"] == TORCH
    assert _pins_for("win32", python)["torch"] == TORCH


def test_the_torch_lines_carry_the_platform_markers():
    torch_lines = [line for line in _lines() if canonicalize_name(line.split("==")[0]) == "torch"]
    assert sorted(torch_lines) == sorted([f'torch=={TORCH}+cpu ; sys_platform == "linux"',
                                          f'torch=={TORCH} ; sys_platform != "linux"'])


def _installed_pin_mismatches(pins: dict[str, str]) -> list[str]:
    wrong = []
    for name, version in pins.items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{name} not installed")
            continue
        if installed != version:
            wrong.append(f"{name} {installed} installed, {version} pinned")
    return wrong


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
@pytest.mark.parametrize("python", PYTHONS)
def test_the_pins_are_closed_under_the_declared_dependencies(platform, python):
    """Every dependency of a pinned package, on that system, is pinned (names from installed metadata)."""
    pins = _pins_for(platform, python)
    env = _environment(platform, python) | {"extra": ""}
    missing = set()
    for name in pins:
        try:
            declared = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            pytest.skip(f"{name} is not installed here (install requirements-dev.txt to check the closure)")
        for spec in declared:
            dep = Requirement(spec)
            if dep.marker is not None and not dep.marker.evaluate(env):
                continue
            if canonicalize_name(dep.name) not in pins:
                missing.add(f"{dep.name} (needed by {name})")
            elif not dep.specifier.contains(pins[canonicalize_name(dep.name)], prereleases=True):
                missing.add(f"{dep.name}=={pins[canonicalize_name(dep.name)]} does not satisfy {name}'s {dep}")
    assert not missing, sorted(missing)


def test_this_environment_has_exactly_the_pinned_versions():
    """The venv the tests run in was installed from this file (else the closure check reads other metadata)."""
    here = "linux" if sys.platform.startswith("linux") else sys.platform
    pins = _pins_for(here if here in PLATFORMS else "linux", f"{sys.version_info.major}.{sys.version_info.minor}")
    assert _installed_pin_mismatches(pins) == []


def test_the_cuda_requirements_are_requirements_txt_with_the_cuda_torch():
    """requirements-cuda.txt (Linux with an NVIDIA GPU) pins the same tree, only torch differs."""
    cuda_file = REQUIREMENTS.with_name("requirements-cuda.txt")
    cuda_lines = [raw.split(" #", 1)[0].strip() for raw in cuda_file.read_text().splitlines()]
    cuda_lines = [line for line in cuda_lines if line and not line.startswith("#")]
    cuda_reqs = {canonicalize_name(Requirement(line).name): Requirement(line) for line in cuda_lines
                 if not line.startswith("-")}
    cpu_reqs = [r for r in _requirements() if canonicalize_name(r.name) != "torch"]
    assert {canonicalize_name(r.name): str(r) for r in cpu_reqs} == {
        name: str(r) for name, r in cuda_reqs.items() if name != "torch"}
    torch_req = cuda_reqs["torch"]
    assert str(torch_req.specifier) == f"=={TORCH}" and torch_req.marker is None  # no +cpu, any platform
    assert [line for line in cuda_lines if line.startswith("-")] == [
        "--extra-index-url https://download.pytorch.org/whl/cu128"]
