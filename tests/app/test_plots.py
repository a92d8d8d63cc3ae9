"""The one layout rule of app/ui/plots.py: a figure's legend never shares the space above the plot with its title."""

import plotly.graph_objects as go

from app.ui.plots import TEMPLATE, legend_clear_of_title, themed


def two_traces(**layout):
    fig = go.Figure([go.Scatter(y=[0, 1], name="a"), go.Scatter(y=[1, 0], name="b")])
    fig.update_layout(**layout)
    return fig


def test_a_titled_figure_with_a_legend_on_top_gets_it_at_the_bottom():
    fig = legend_clear_of_title(two_traces(title="Loss", legend=dict(orientation="h", y=1.02, x=1.0, xanchor="right")))
    assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0.0 and fig.layout.legend.yanchor == "bottom"


def test_a_legend_below_the_plot_goes_to_the_figures_bottom_where_plotly_makes_room():
    for title in ("Loss", None):
        fig = legend_clear_of_title(two_traces(title=title, legend=dict(orientation="h", x=0.5, xanchor="center",
                                                                         y=-0.22, yanchor="top")))
        legend = fig.layout.legend
        assert (legend.yref, legend.y, legend.yanchor) == ("container", 0.0, "bottom")
        assert (legend.x, legend.xanchor, legend.orientation) == (0.5, "center", "h")    # its horizontal place kept


def test_legends_elsewhere_and_untitled_figures_keep_their_place():
    inside = legend_clear_of_title(two_traces(title="Loss", legend=dict(x=0.99, y=0.02, xanchor="right")))
    assert inside.layout.legend.y == 0.02 and inside.layout.legend.yref is None
    untitled = legend_clear_of_title(two_traces(legend=dict(orientation="h", y=1.02)))
    assert untitled.layout.legend.y == 1.02
    right = legend_clear_of_title(two_traces(title="Loss", legend=dict(x=1.02, y=1.0)))
    assert right.layout.legend.x == 1.02 and right.layout.legend.y == 1.0


def test_the_template_puts_legends_at_the_bottom():
    fig = themed(two_traces(title="Loss"))
    legend = fig.layout.template.layout.legend
    assert fig.layout.template is not None and TEMPLATE.endswith("paperlab")
    assert legend.yref == "container" and legend.y == 0.0 and legend.orientation == "h"


def test_a_figure_built_before_the_theme_gets_the_whole_template():
    import plotly.io as pio

    plain = two_traces(template="plotly")            # as a figure built before app.ui.plots was imported
    assert plain.layout.template.layout.font.family != pio.templates[TEMPLATE].layout.font.family
    fig = themed(plain)
    ours = pio.templates[TEMPLATE].layout
    assert fig.layout.template.layout.font.family == ours.font.family
    assert fig.layout.template.layout.colorway == ours.colorway
    assert fig.layout.template.layout.plot_bgcolor == "white"      # plotly_white underneath
    assert fig.layout.template.data.scatter == pio.templates["plotly_white"].data.scatter


def test_figures_start_in_the_template_and_keep_their_own_layout():
    fig = themed(two_traces(title="Loss", font=dict(size=20)))
    assert fig.layout.font.size == 20                                 # the figure's own setting wins
    assert fig.layout.template.layout.font.size == 13
    assert fig.to_dict()["layout"]["template"]["layout"]["colorway"][0] == "#0072B2"
