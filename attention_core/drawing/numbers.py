"""Every number the app prints, formatted in one place (plain Python: charts, notes and screens share it)."""
import math

import torch


def short(number: float) -> str:
    """4 decimals without trailing zeros: 0.55 stays 0.55, 0.95440 becomes 0.9544."""
    text = f"{number:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fixed(number: float, decimals: int = 4) -> str:
    """A fixed number of decimals, with nan and ±inf spelled out (a masked cell shows -inf)."""
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "-inf" if number < 0 else "inf"
    return f"{number:.{decimals}f}"


def places(number: float, decimals: int = 4) -> str:
    """A fixed number of decimals, trailing zeros kept so that a column's digits line up ("1.0000" beside
    "0.0093"), thousands separated, and never "-0.0000" for a tiny negative that rounds to zero."""
    text = f"{number:,.{decimals}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text


def whole(number: float) -> str:
    """A count or a size as a reader sees it: 768 stays 768, 1024 becomes 1,024 and 2147483647 2,147,483,647
    (not 2.14748e+09); 0.5 stays 0.5. Not for years, ids or token labels ("t1024" is a name, not a quantity)."""
    return f"{number:,.0f}" if abs(number) >= 1_000 else f"{number:g}"


def size_in_bytes(count: float) -> str:
    """Decimal units, as disk and GPU makers use: 3,221,225,472 bytes -> 3.2 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{int(count)} bytes"


def listing(values, limit: int = 8) -> str:
    """The first `limit` values of a tensor as text: 4 decimals, or scientific once they overflow it; a longer one
    says how many there are ("…, 1.0160, … (1,024 in all)"): a sentence's full stop never follows a bare "…"."""
    flat = torch.as_tensor(values).flatten()
    shown = [f"{float(v):.4f}" if abs(float(v)) < 1e5 else f"{float(v):.3e}" for v in flat[:limit]]
    return ", ".join(shown) + (f", … ({flat.numel():,} in all)" if flat.numel() > limit else "")


TOLERANCE = 1e-5  # every screen's "agrees": a max |difference| up to this is float32 rounding
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain(number: float) -> str:
    """A number as plain text (captions, legends, tables), never LaTeX: `short` from 10^-4 to 10^5 with
    thousands separators (18,911.6121), else "1.121 × 10⁶" or "10⁻⁵" with Unicode superscripts."""
    if not math.isfinite(number):
        return fixed(number)
    if number == 0 or 1e-4 <= abs(number) < 1e5:
        text = f"{number:,.4f}".rstrip("0").rstrip(".")  # short(), with separators: not for st.latex
        return "0" if text in ("-0", "") else text
    return scientific(number, 3, trim=True)


def significant_decimals(number: float, digits: int = 4) -> int:
    """The decimals that keep `digits` significant digits of a finite, non-zero number below 10^5 (at least 0)."""
    return max(0, digits - 1 - math.floor(math.log10(abs(number))))


def significant(number: float, digits: int = 4) -> str:
    """A measured size to `digits` significant digits, with thousands separators and never in exponent form:
    18911.6121 -> "18,912", 123.456 -> "123.5", 1.23456 -> "1.235", 0.0123456 -> "0.01235", from 10^5 as plain()
    writes it ("2.84 × 10⁷"). For scores' means and
    spreads, whose 4th decimal at 18,911 says nothing a reader can use."""
    if number == 0 or not math.isfinite(number):
        return "0" if number == 0 else fixed(number)
    if abs(number) >= 1e5:  # as plain() writes it: 2.84 × 10⁷
        return scientific(number, digits - 2, trim=True)
    decimals = significant_decimals(number, digits)
    return places(round(number, decimals), decimals)


def scientific(number: float, decimals: int = 1, trim: bool = False) -> str:
    """Plain-text scientific notation: 4.8e-07 -> "4.8 × 10⁻⁷", 1e-05 -> "10⁻⁵" (a mantissa of 1 is left out),
    0 -> "0". A fixed number of decimals (differences, gradients: one column, one look); trim drops trailing zeros."""
    if number == 0 or not math.isfinite(number):
        return "0" if number == 0 else fixed(number)
    mantissa, exponent = f"{number:.{decimals}e}".split("e")
    if trim:
        mantissa = mantissa.rstrip("0").rstrip(".")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    return power if float(mantissa) == 1 else f"{mantissa} × {power}"


def reproducing_digits(agrees, least: int = 4, most: int = 6) -> int | None:
    """The fewest digits (least … most) at which a formula worked out with rounded numbers gives, step by step,
    the numbers it shows: agrees(digits) recomputes each shown step from the shown (rounded) numbers before it, as a
    student with a calculator would. None where no count does (an exponential amplifies its exponent's rounding):
    the formula then writes ≈ for its rounded steps. 0.2041 / (0.2041 + 0.1659) is 0.5516, not the 0.5517 beside it;
    0.20408 / (0.20408 + 0.16586) gives 0.5517."""
    return next((digits for digits in range(least, most + 1) if agrees(digits)), None)


def within_tolerance(difference: float) -> str:
    """The agreement claim in words, the same on every screen: "≤ 10⁻⁵" or "> 10⁻⁵"."""
    return f"{'≤' if difference <= TOLERANCE else '>'} {plain(TOLERANCE)}"


def latex_whole(number: int) -> str:
    """A count inside st.latex, thousands separated as in the prose beside it: 1024 -> "1{,}024" (a bare comma in
    math mode is punctuation and gets a space after it)."""
    return whole(number).replace(",", "{,}")


def latex_fixed(number: float, decimals: int = 4) -> str:
    """A number for st.latex with `decimals` decimals kept (terms of one sum side by side: e^{-0.0900} beside
    e^{-0.3873}, not e^{-0.09}), braced thousands separators; from 10^5 as latex() writes it."""
    if abs(number) >= 1e5:
        return latex(number)
    text = f"{number:,.{decimals}f}"
    return text.removeprefix("-") if float(text.replace(",", "")) == 0 else text.replace(",", "{,}")


def latex(number: float) -> str:
    """A number for st.latex: `short` below 10^5 with braced thousands separators (1088.728 -> "1{,}088.728", as
    the prose beside it writes 1,088.728), else a × 10^n."""
    if abs(number) < 1e5:
        text = f"{number:,.4f}".rstrip("0").rstrip(".")  # short(), with separators
        return "0" if text in ("-0", "") else text.replace(",", "{,}")
    mantissa, exponent = f"{number:.3e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"
