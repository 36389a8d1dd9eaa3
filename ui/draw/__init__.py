"""One route onto the screen: heatmaps and rows, the attention view, Vega specs and images, tables and notes
(display.py), agreement and mistake boxes (checks.py), downloads, the code."""
