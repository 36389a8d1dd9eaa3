"""One route onto the screen: heatmaps and rows, Vega specs and images, downloads, the code."""
