"""One plotly look for every page.

Pages build figures with plotly as usual and draw them with :func:`show`, which applies the
Paperlab template instead of Streamlit's own chart theme. The template (``plotly_white`` with the
Paperlab layout on top) is merged once, on import, registered as ``paperlab`` and made plotly's
default, so every figure built afterwards starts with it, rather than naming a ``"a+b"`` template per
figure, which re-merges and re-validates both templates on every draw: a large share of the server's
time on a warm first view.

One layout rule keeps titles and legends apart (:func:`legend_clear_of_title`): the title sits at the
top left, and a legend that would share the space above the plot goes to the bottom of the figure
(``yref="container"``, so plotly grows the bottom margin for it instead of covering the axis title);
so does a legend a page placed below the plot, which would otherwise fall outside the figure.
"""

from __future__ import annotations

import contextlib

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from app.ui import pictures

# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
FONT = "Inter, Source Sans Pro, Helvetica, Arial, sans-serif"

_LAYOUT = go.layout.Template(
    layout=go.Layout(
        colorway=COLORS,
        font=dict(family=FONT, size=13, color="#262730"),
        title=dict(font=dict(size=15), x=0.0, xanchor="left"),
        margin=dict(l=50, r=20, t=50, b=45),
        hovermode="x unified",
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left", x=0.0),
        xaxis=dict(showgrid=True, gridcolor="#ECECEC", zeroline=False),
        yaxis=dict(showgrid=True, gridcolor="#ECECEC", zeroline=False),
        colorscale=dict(sequential="Viridis", diverging="RdBu"),
    )
)
TEMPLATE = "paperlab"
pio.templates[TEMPLATE] = pio.templates.merge_templates("plotly_white", _LAYOUT)
pio.templates.default = TEMPLATE


def themed(fig: go.Figure) -> go.Figure:
    """``fig`` in the Paperlab template (a no-op for figures built since this module was imported)."""
    current = fig.layout.template.layout
    if current.font.family != FONT or current.colorway != COLORS or current.plot_bgcolor != "white":
        fig.update_layout(template=TEMPLATE)
    return fig


def legend_clear_of_title(fig: go.Figure) -> go.Figure:
    """Move a legend placed above the plot to the figure's bottom when the figure has a title, and one placed
    below the plot (``y < 0`` on the plot's scale) to the figure's bottom too, keeping its horizontal place:
    plotly grows the margin for a legend there, whereas below the plot it falls outside the figure once
    the axis titles take the bottom margin."""
    legend = fig.layout.legend
    on_plot = legend.yref in (None, "paper")
    above = legend.y is not None and legend.y >= 1.0 and on_plot
    below = legend.y is not None and legend.y < 0.0 and on_plot
    inside = legend.x is not None and legend.x > 1.0     # a legend to the right of the plot keeps its place
    if fig.layout.title.text and above and not inside:
        fig.update_layout(legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left",
                                      x=0.0))
    elif below and not inside:
        fig.update_layout(legend=dict(yref="container", yanchor="bottom", y=0.0))
    return fig


def show(fig: go.Figure, key: str | None = None, height: int | None = None) -> None:
    """Draw ``fig`` in the Paperlab theme at the container's width, its legend clear of its title: as its
    shipped picture on a session's first view when one matches (:mod:`app.ui.pictures`), else as a chart."""
    legend_clear_of_title(themed(fig))
    if height is not None:
        fig.update_layout(height=height)

    def chart() -> None:
        box = pictures.capture(fig)
        with st.container(key=box) if box else contextlib.nullcontext():
            st.plotly_chart(fig, theme=None, key=key, config={"displaylogo": False})

    pictures.draw(fig, key, chart)
