"""One plotly look for every page.

Pages build figures with plotly as usual and draw them with :func:`show`, which applies the
Paperlab template (registered once, on import) instead of Streamlit's own chart theme.
"""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
FONT = "Inter, Source Sans Pro, Helvetica, Arial, sans-serif"

pio.templates["paperlab"] = go.layout.Template(
    layout=go.Layout(
        colorway=COLORS,
        font=dict(family=FONT, size=13, color="#262730"),
        title=dict(font=dict(size=15), x=0.0, xanchor="left"),
        margin=dict(l=50, r=20, t=50, b=45),
        hovermode="x unified",
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1.0),
        xaxis=dict(showgrid=True, gridcolor="#ECECEC", zeroline=False),
        yaxis=dict(showgrid=True, gridcolor="#ECECEC", zeroline=False),
        colorscale=dict(sequential="Viridis", diverging="RdBu"),
    )
)
TEMPLATE = "plotly_white+paperlab"


def themed(fig: go.Figure) -> go.Figure:
    fig.update_layout(template=TEMPLATE)
    return fig


def show(fig: go.Figure, key: str | None = None, height: int | None = None) -> None:
    """Draw ``fig`` in the Paperlab theme at the container's width."""
    themed(fig)
    if height is not None:
        fig.update_layout(height=height)
    st.plotly_chart(fig, theme=None, key=key, config={"displaylogo": False})
