"""charts.present.readable: every text a figure draws at least the style's size and dark, titles
wrapped to the chart, heatmap cell numbers only where they fit."""

import numpy as np
from plotly.subplots import make_subplots

from attnviz.charts.head_grid import head_grid
from attnviz.charts.line_charts import variance_chart
from attnviz.charts.present import contrast_on_white, readable
from attnviz.charts.style import PRESENT, SCREEN, legend_px, legend_rows, text_px
from attnviz.lessons.scaling import dot_product_variance


def test_every_text_of_a_line_chart_is_at_least_the_style_size_and_dark():
    fig = variance_chart(dot_product_variance((1, 2, 4, 8), 200, 0), mark_d_k=4)
    fig.update_layout(xaxis_tickfont=dict(size=9, color="#bbbbbb"))  # small and pale
    readable(fig, PRESENT)
    layout = fig.layout
    fonts = [layout.font, layout.legend.font, layout.xaxis.tickfont, layout.yaxis.tickfont]
    fonts += [layout.xaxis.title.font, layout.yaxis.title.font]
    fonts += [note.font for note in layout.annotations]
    assert all(font.size >= PRESENT.text_px for font in fonts)
    assert all(contrast_on_white(f.color) >= 4.5 for f in fonts if f.color is not None)


def test_a_title_wider_than_the_chart_wraps_and_grows_the_top_margin():
    fig = make_subplots()
    fig.update_layout(title="Rows' entropy (1 = uniform, 0 = one-hot) against d_k " * 2, height=300)
    fig.update_layout(margin=dict(t=40))
    readable(fig, PRESENT.column(0.5))
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) >= 2
    assert all(text_px(line, fig.layout.title.font.size) <= 560 for line in lines)
    assert fig.layout.margin.t > 40 and fig.layout.height > 300


def test_heatmap_cell_numbers_are_dropped_where_they_do_not_fit():
    A = np.full((3, 3), 0.25)
    wide = head_grid([A, A], list("abc"), list("abc"))
    narrow = head_grid([A] * 8, list("abc"), list("abc"), columns=8)
    assert readable(wide, PRESENT).data[0].texttemplate
    assert all(not t.texttemplate for t in readable(narrow, PRESENT).data if t.type == "heatmap")
    assert readable(head_grid([A], list("abc"), list("abc")), SCREEN).data[0].textfont.size >= 12


def test_contrast_reads_the_colour_forms_plotly_takes():
    assert round(contrast_on_white("#000000"), 1) == 21.0
    assert contrast_on_white("#fff") == 1.0
    assert contrast_on_white("rgb(38, 39, 48)") > 4.5
    assert contrast_on_white("steelblue") is None


def test_a_legend_at_the_bottom_sits_below_the_axis_title_and_the_chart_grows_for_it():
    """The line charts' legend is at the figure's bottom (Plotly makes room for it under the x
    axis's title), not at a fraction of the plot's height that larger text reaches; on a
    projector the figure grows by what its larger rows need."""
    fig = variance_chart(dot_product_variance((1, 2, 4, 8), 200, 0), mark_d_k=4)
    legend = fig.layout.legend
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")
    shown = [t for t in fig.data if t.showlegend is not False and t.name]
    assert legend_rows(fig) == -(-len(shown) // 2)  # two entries a row
    height = fig.layout.height
    readable(fig, PRESENT)
    grown = legend_px(fig, PRESENT.text_px) - legend_px(fig, SCREEN.text_px)
    assert grown > 0 and fig.layout.height == height + grown
    paper = make_subplots()  # a legend elsewhere: no growth for it
    paper.update_layout(height=300, legend=dict(orientation="h", y=-0.2))
    assert readable(paper, PRESENT).layout.height == 300
