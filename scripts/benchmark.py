"""How fast the app reacts, and how fast its math is: one command, one markdown report.

The entry point; the code is the package scripts/bench/ (its __init__ lists one concept per module).
Usage, options and what is measured: `python scripts/benchmark.py --help`, or scripts/bench/cli.py.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/, so that `bench` imports from anywhere

from bench.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
