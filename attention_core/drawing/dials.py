"""RoPE's dials as one SVG picture: a panel per pair of dimensions, with the query's and the key's pair drawn as
arrows from the origin, faint before the turn and solid after it.

Python computes every coordinate (attention_core.lessons.rope.dial_rows) and writes the picture; the browser only
shows it, as an image. Why not Vega: /rope redraws its dials on every move of the head or a position, and Vega's
update of a faceted chart cost ~35 ms of the browser's time a move (book preset, head slider: 172 ms with the Vega
dials, 136 ms without them, same hour). The titles are pair numbers and angles written here: no visitor text.
"""
from xml.sax.saxutils import escape

PANEL = 240  # px of a panel's square plot
LEFT, TOP, BOTTOM, GAP = 40, 30, 26, 22  # tick labels on the left, the title above, tick labels below, between panels
LEGEND = 34  # the legend's row under the panels
FONT = 14  # px before presenter mode's scale (1.6 on a projector: 22 px)
GRID = (-1.0, -0.5, 0.0, 0.5, 1.0)  # grid lines, as fractions of the reach; labelled at the ends and 0 only
LABELLED = (-1.0, 0.0, 1.0)


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.1e}"


def dials_svg(panels: list[tuple[str, list[dict]]], reach: float, colours: dict, scale: float = 1.0,
              columns: int = 4) -> str:
    """panels: (title, arrows) each, arrows {"vector": "q" or "k", "x0", "y0": before the turn, "x", "y": after};
    reach: the half-width of every panel's axes (the same for all, so lengths compare); colours: vector -> CSS
    colour; scale: presenter mode's font scale. Returns an SVG document with its own width and height."""
    font = round(FONT * scale)
    side = round(PANEL * scale)
    left, top, bottom, gap = (round(v * scale) for v in (LEFT, TOP, BOTTOM, GAP))
    per_row = max(1, min(columns, len(panels)))
    rows = -(-len(panels) // per_row)
    cell_w, cell_h = left + side + gap, top + side + bottom + gap
    width, height = per_row * cell_w, rows * cell_h + round(LEGEND * scale)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="sans-serif" font-size="{font}" role="img">',
           "<title>RoPE dials: query and key pairs before and after the turn</title>"]
    for n, (title, arrows) in enumerate(panels):
        ox, oy = (n % per_row) * cell_w + left, (n // per_row) * cell_h + top
        at = lambda x, y: (ox + (x + reach) / (2 * reach) * side, oy + (reach - y) / (2 * reach) * side)  # noqa: E731
        out.append(f'<text x="{ox + side / 2:.1f}" y="{oy - round(8 * scale)}" text-anchor="middle" '
                   f'font-weight="bold">{escape(title)}</text>')
        for fraction in GRID:  # the grid, the axes through 0 darker, and the tick labels
            v = fraction * reach
            (gx, _), (_, gy) = at(v, 0), at(0, v)
            shade = "#888" if fraction == 0 else "#e4e4e4"
            out.append(f'<line x1="{gx:.1f}" y1="{oy}" x2="{gx:.1f}" y2="{oy + side}" stroke="{shade}"/>')
            out.append(f'<line x1="{ox}" y1="{gy:.1f}" x2="{ox + side}" y2="{gy:.1f}" stroke="{shade}"/>')
            if fraction in LABELLED:
                out.append(f'<text x="{gx:.1f}" y="{oy + side + font + 2}" text-anchor="middle" fill="#444">'
                           f'{_number(v)}</text>')
                out.append(f'<text x="{ox - 5}" y="{gy + font / 3:.1f}" text-anchor="end" fill="#444">{_number(v)}</text>')
        cx, cy = at(0, 0)
        # every faint arrow first, then the solid ones: a faint arrow drawn over a solid one muddied its colour
        for (xk, yk), opacity in ((("x0", "y0"), 0.3), (("x", "y"), 1.0)):
            for arrow in arrows:
                colour = escape(colours[arrow["vector"]], {'"': "&quot;"})
                px, py = at(arrow[xk], arrow[yk])
                out.append(f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{px:.1f}" y2="{py:.1f}" stroke="{colour}" '
                           f'stroke-width="{3 * scale:.1f}" stroke-opacity="{opacity}" stroke-linecap="round"/>')
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="{4.5 * scale:.1f}" fill="{colour}" '
                           f'fill-opacity="{opacity}"/>')
    y = rows * cell_h + round(LEGEND * scale / 2)
    x = left
    for name, colour in colours.items():  # the legend: each vector's colour, then what faint and solid mean
        word = {"q": "q (query)", "k": "k (key)"}.get(name, name)
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 22 * scale:.0f}" y2="{y}" stroke="{escape(colour)}" '
                   f'stroke-width="{3 * scale:.1f}"/>')
        out.append(f'<text x="{x + 28 * scale:.0f}" y="{y + font / 3:.1f}">{escape(word)}</text>')
        x += round((40 + 8 * len(word)) * scale)
    out.append(f'<text x="{x}" y="{y + font / 3:.1f}" fill="#555">faint: before the turn · solid: turned</text>')
    out.append("</svg>")
    return "\n".join(out)
