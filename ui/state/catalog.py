"""The screens, as the ui layer reads them: a stage's book seed, a screen's questions, its file and title.

main.py declares the registry's entries here on every run (AppTest runs it too), so the ui layer reads them without
importing the floor above it (app -> screens -> ui -> attention_core); screens/registry.py itself stays plain Python.
"""
SCREENS: dict = {}  # name ("scores", "home", ...) -> the registry's entry (screens.registry.Screen)


def declare(entries) -> None:
    """Called with every entry of screens/registry.py, in the sidebar's order (again on every run: the same)."""
    SCREENS.update((entry.name, entry) for entry in entries)


def screen(name: str):
    """The entry of screen `name`; KeyError names what is missing when the registry was never imported."""
    if not SCREENS:
        raise KeyError(f"{name!r}: no screen is declared yet (main.py declares them)")
    return SCREENS[name]
