"""The app's own CSS, injected once a run by the sidebar: presenter mode's type size, the room's counts in projector
type, and a phone's screen (390 px wide) made readable and tappable.

Static text only: nothing a visitor typed reaches it. Elements are found by the keys the app gives its containers
(`st.container(key=...)` becomes the class `st-key-<key>`) and by Streamlit's data-testid names, which its own tests
rely on. The theme (colours, fonts, base size) is in .streamlit/config.toml.
"""
import streamlit as st

PHONE_MAX_PX = 640  # a phone held upright, and narrow windows; Streamlit stacks columns below 640 px too
TAP_PX = 44  # WCAG 2.5.5's target size: each answer a student taps in class mode

# Streamlit sizes its text in rem, so one root size enlarges all of it, except st.dataframe's canvas and st.table's
# cells (14 px whatever the root size): presenter mode draws a tensor as an st.table (ui.table), sized here.
# Inline code (not a code block: code inside a pre keeps its size) is 0.75 em of its text: 14.4 px in a caption, a
# radio option or an expander's title, too small for a room. At least a caption's own size (0.875rem, 19.25 px)
# keeps it: a slide is scaled down only until its captions reach 16 px (scripts/deck/cutting.py), and inline code
# at 18 px then came out at 15 px ("-1e9" in a mistake's title on /mask, scaled to 0.83).
# A map drawn as an image fills its column's width, as tall as it is wide: 1,400 px for GPT-2's whole 1,024-token
# map, taller than a projector's 1,080 px, so its caption and colour bar fell on the next slide. At most IMAGE_PX tall,
# drawn whole inside that box (a square map 700 px, at the left), it leaves them room below it on the same screen.
# (At 760, /mask's two maps at GPT-2, their captions and the formula comparing them were 36 px too tall for a slide.)
IMAGE_PX = 700
PRESENTER = ('html { font-size: 22px; } code:not(pre code) { font-size: max(0.8em, 0.875rem) !important; } '
             '[data-testid="stTable"] :is(th, td) { font-size: 0.8rem; } '
             f'[data-testid="stImage"] img {{ max-height: {IMAGE_PX}px; object-fit: contain; object-position: left top; }}')

ALWAYS = f"""
/* The room's counts, read from the back of a classroom: the bars' labels in heading type, thick bars. */
.st-key-room-counts [data-testid="stProgress"] p {{ font-size: 1.6rem; line-height: 1.3; }}
.st-key-room-counts [data-testid="stProgress"] [role="progressbar"] > div {{ height: 0.9rem; }}

/* A displayed formula: Streamlit's box scrolls sideways and clips up and down, and a fraction of long numbers reached
   4-6 px past it, so the numerator's top was cut ("0.0008395" on /mask at GPT-2). Room above and below it. */
.katex-display {{ padding: 0.3em 0; }}

/* A metric's label wraps: Streamlit cuts it at its column's edge ("each head vs F.scaled_dot_product_attent…" in three
   columns of a laptop's window, or of a slide drawn larger). */
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"], [data-testid="stMetricLabel"] p {{
  white-space: normal; overflow: visible; text-overflow: clip; overflow-wrap: anywhere; }}

/* Inline code in a caption: Streamlit draws it at 0.75 em of a 14 px caption, 10.5 px. */
[data-testid="stCaptionContainer"] code {{ font-size: 0.875em; }}

/* Class mode's answers (a student's own and a room's): every option, box and button at least 44 px each way. */
[class*="st-key-predict-"] [data-testid="stRadioOption"] {{
  min-height: {TAP_PX}px; min-width: {TAP_PX}px; align-items: center; padding-right: 0.5rem; }}
[class*="st-key-predict-"] [data-testid="stTextInput"] [data-baseweb="input"],
[class*="st-key-predict-"] [data-baseweb="select"] > div,
[class*="st-key-predict-"] [data-testid="stButton"] button {{ min-height: {TAP_PX}px; min-width: {TAP_PX}px; }}

/* Contrast (WCAG 1.4.3, 4.5 : 1): Streamlit draws captions in its text colour at 60 % (#828180 on white, 3.9 : 1) and
   their inline code, and code in a callout, in lighter colours still (2.6-3.7 : 1). Solid greys and the text's own
   colour instead: #5c5c5c is 6.7 : 1 on white, 6.4 : 1 on the code's grey. */
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] * {{ opacity: 1; }}
[data-testid="stCaptionContainer"] {{ color: #5c5c5c; }}
[data-testid="stCaptionContainer"] code, [data-testid^="stAlert"] code,
[data-testid^="stAlert"] pre .token {{ color: inherit !important; }}
/* Python in a code block: Prism's blue keywords (#1c83e1) and green strings (#09ab3b) are 3.6 and 2.8 : 1 on the
   code's grey; these are 6.2 : 1. */
[data-testid="stCode"] .token.keyword, [data-testid="stCode"] .token.builtin,
[data-testid="stCode"] .token.class-name, [data-testid="stCode"] .token.function {{ color: #0b5cad; }}
[data-testid="stCode"] .token.string, [data-testid="stCode"] .token.triple-quoted-string {{ color: #0a6b2c; }}  /* a command in a blue box: Prism's #00a4d4, 2.6 : 1 */

/* The home screen's pipeline: left to right where it fits, top to bottom on a phone (screens/home.py draws both). */
.st-key-pipeline-narrow {{ display: none; }}
"""

PHONE = f"""
@media (max-width: {PHONE_MAX_PX}px) {{
  .st-key-pipeline-wide {{ display: none; }}
  .st-key-pipeline-narrow {{ display: block; }}
  /* KaTeX splits a formula into unbreakable pieces after each top-level = and + (TeXbook p. 173), and its display
     style keeps them on one line; on a phone they wrap like text. A piece wider than the phone still scrolls
     (Streamlit's overflow-x: auto). */
  .katex-display > .katex, .katex-display > .katex > .katex-html {{ white-space: normal; }}
  .katex-display > .katex > .katex-html > .base {{ margin: 0.3em 0; }}  /* a fraction's lines clear the next */
}}
"""


def sheet(presenter: bool) -> str:
    """The whole style sheet: static text, the same for every visitor (tests hold that no other HTML is drawn)."""
    return f"<style>{ALWAYS}{PHONE}{PRESENTER if presenter else ''}</style>"


def inject(presenter: bool) -> None:
    """The app's style sheet, once a run (a style-only st.html takes no room on the page)."""
    st.html(sheet(presenter))
