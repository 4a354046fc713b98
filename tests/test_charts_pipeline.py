"""The pipeline diagram: well-formed SVG holding the live shapes and what the softmax sees."""

import xml.etree.ElementTree as ET

from attnviz.charts.pipeline import pipeline_svg
from attnviz.charts.style import FAMILIES

SVG = "{http://www.w3.org/2000/svg}"


def texts(svg):
    return [el.text for el in ET.fromstring(svg).iter(f"{SVG}text")]


def test_the_boxes_carry_the_sizes_given():
    shown = texts(pipeline_svg(7, 12, 5, 3))
    for title, shape in [
        ("X", "7 × 12"),
        ("Q", "7 × 5"),
        ("K", "7 × 5"),
        ("V", "7 × 3"),
        ("S = QKᵀ", "7 × 7"),
        ("S'", "7 × 7"),
        ("A", "7 × 7, rows sum to 1"),
        ("Output = AV", "7 × 3"),
    ]:
        assert shown[shown.index(title) + 1] == shape


def test_each_box_is_drawn_in_its_familys_colour():
    root = ET.fromstring(pipeline_svg(6, 8, 4, 4))
    strokes = [rect.get("stroke") for rect in root.iter(f"{SVG}rect")]
    assert strokes == [FAMILIES[f][2] for f in ("X", "Q", "K", "V", "S", "S", "A", "O")]


def test_the_arrows_say_what_scaling_temperature_and_mask_do():
    plain = texts(pipeline_svg(6, 8, 4, 4))
    assert "÷ √d_k" in plain and "softmax" in plain and "+ M" not in " ".join(plain)
    off = texts(pipeline_svg(6, 8, 4, 4, scale=False, masked=True, temperature=0.5))
    assert "no scaling" in off and "/ 0.5 + M" in off
    assert "+ M" in texts(pipeline_svg(6, 8, 4, 4, masked=True))
