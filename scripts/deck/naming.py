"""File names and URL parameters: what every mode (screenshots, figures) names and opens alike."""
import re
import unicodedata


def slug(text: str, limit: int = 60) -> str:
    """ASCII letters, digits, dots and dashes only: safe on every file system."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.")[:limit].strip("-.") or "x"


def stem(screen: str, params: list[tuple[str, str]]) -> str:
    tag = "_".join(f"{slug(k, 20)}-{slug(v, 30)}" for k, v in params)
    return f"{slug(screen)}__{tag}" if tag else slug(screen)


def with_presenter(params: list[tuple[str, str]], presenter: bool, sections: str = "all") -> list[tuple[str, str]]:
    """The URL parameters a screen is opened with: presenter=1 added unless off or set in --params, and
    open=<--sections> (every folded section open by default) unless --params names `open` itself.
    File names come from --params alone, so the defaults leave them as they were."""
    given = {name for name, _ in params}
    return (params + ([("presenter", "1")] if presenter and "presenter" not in given else [])
            + ([("open", sections)] if sections not in ("", "none") and "open" not in given else []))


def numbered(screen: str, run: list[str]) -> str:
    """The screen's name after its place in the sidebar (screens/registry.py), so that file names sort in the
    sidebar's order: "01-home", "02-scores", ... A screen outside the registry (--app) comes after them, in the
    run's order."""
    from screens.registry import BY_NAME
    order = list(BY_NAME)
    if screen in BY_NAME:
        place = order.index(screen) + 1
    else:
        place = len(order) + 1 + [s for s in run if s not in BY_NAME].index(screen)
    return f"{place:02d}-{screen}"
