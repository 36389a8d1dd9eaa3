"""attention_core.drawing.numbers: the number formats of issue 29 (thousands, one tolerance, even trailing zeros)."""
from attention_core.drawing import numbers


def test_plain_text_and_latex_numbers_separate_thousands():
    assert numbers.plain(18911.6121) == "18,911.6121" and numbers.plain(4096) == "4,096"
    assert numbers.plain(0.5) == "0.5" and numbers.plain(2.84e7) == "2.84 × 10⁷"
    assert numbers.latex(18911.6121) == "18{,}911.6121"  # a bare comma in st.latex would set a space after it
    assert numbers.latex(0.55) == "0.55" and numbers.latex(-0.00001) == "0" and numbers.latex(2.5e6) == r"2.500 \times 10^{6}"


def test_scientific_keeps_its_decimals_and_the_tolerance_is_written_one_way():
    assert numbers.scientific(4.8123e-7) == "4.8 × 10⁻⁷" and numbers.scientific(6e-8) == "6.0 × 10⁻⁸"
    assert numbers.scientific(0.0) == "0" and numbers.scientific(1e-5) == "10⁻⁵"
    assert numbers.scientific(0.0149, 2) == "1.49 × 10⁻²"
    assert numbers.within_tolerance(7.2e-7) == "≤ 10⁻⁵" and numbers.within_tolerance(2e-5) == "> 10⁻⁵"
    from attention_core.lessons import bonus_bench, efficiency
    assert efficiency.TOLERANCE == bonus_bench.TOLERANCE == numbers.TOLERANCE  # one tolerance, one way to write it


def test_places_keeps_trailing_zeros_and_drops_the_sign_of_zero():
    assert [numbers.places(v) for v in (1, 0.00934, 0.2080, -1e-9)] == ["1.0000", "0.0093", "0.2080", "0.0000"]
    assert numbers.places(-0.5, 2) == "-0.50" and numbers.places(1018.4986, 3) == "1,018.499"


def test_whole_numbers_separate_thousands_from_one_thousand_on():
    assert [numbers.whole(v) for v in (768, 999, 1000, 1024, 9216, 2147483647)] == \
        ["768", "999", "1,000", "1,024", "9,216", "2,147,483,647"]
    assert numbers.whole(0.5) == "0.5" and numbers.whole(-4096) == "-4,096"


def test_counts_inside_latex_are_separated_with_braced_commas():
    from attention_core.drawing.text import abridged_sum_latex
    assert numbers.latex_whole(1022) == "1{,}022" and numbers.latex_whole(6) == "6"  # a bare comma sets a space
    assert r"_{1{,}022\text{ future}}" in abridged_sum_latex(lambda j: f"e^{j}", 2, future=1022)


def test_significant_keeps_four_digits_a_reader_can_use():
    """Issue 35: "18,911.6121" as a score mean; four significant digits, separators, never an exponent."""
    assert numbers.significant(18911.6121) == "18,912" and numbers.significant(123.456) == "123.5"
    assert numbers.significant(1.23456) == "1.235" and numbers.significant(0.0123456) == "0.01235"
    assert numbers.significant(-0.49771) == "-0.4977" and numbers.significant(0) == "0"
    assert numbers.significant(2.84e7) == "2.84 × 10⁷" and numbers.significant(float("inf")) == "inf"


def test_a_long_listing_says_how_many_values_it_stands_for():
    # A teacher read: "1.0179, 1.0160, …." ended four sentences at GPT-2 small's size.
    assert numbers.listing([0.5, 0.25]) == "0.5000, 0.2500"
    assert numbers.listing(list(range(1024)), limit=2) == "0.0000, 1.0000, … (1,024 in all)"


def test_the_terms_of_a_softmax_formula_keep_four_decimals():
    # A teacher's read: e^{-0.09} beside e^{-0.3873} (trailing zeros dropped in one term only).
    import torch
    from attention_core.drawing.text import softmax_cell_latex
    formula, _ = softmax_cell_latex(torch.tensor([-0.09, -0.3873, 1234.5]) / 100, 0, 0, 0.3)
    assert r"e^{-0.0009} + e^{-0.0039} + e^{12.3450}" in formula, formula
    assert numbers.latex_fixed(-0.00001) == "0.0000" and numbers.latex_fixed(1088.728) == "1{,}088.7280"
