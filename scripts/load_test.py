"""A class on one Streamlit process, or on several behind HAProxy: a load test, a memory soak, a cold start.

The entry point; the code is the package scripts/load/ (its __init__ lists one job per module).
Usage, options and what is measured: `python scripts/load_test.py --help`, or scripts/load/cli.py.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/, so that `load` imports from anywhere

from load.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
