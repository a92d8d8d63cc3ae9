"""Small tables in a page's first screen, drawn static.

An ``st.dataframe`` is an interactive grid whose browser code (about 1.3 MB: the grid and Arrow) is fetched and
evaluated before the first view's picture is painted: malora's first view was half a second faster without its
grid (bench/results/HISTORY.md, "Served start-up"). A table of a few rows needs no grid: :func:`static_table`
draws it with ``st.table``, from the entry bundle, with its numbers formatted to the column's precision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

MISSING = "–"


def styled(columns: Mapping[str, Sequence], formats: Mapping[str, str] | None = None,
           number_format: str = "{:.3f}") -> Styler:
    """``columns`` (name → values, one row per value) as a styled frame: a number column formatted with
    ``formats[name]`` if given, else with ``number_format``; a missing value shown as a dash."""
    frame = pd.DataFrame(dict(columns))
    numeric = [name for name in frame.columns
               if pd.api.types.is_numeric_dtype(frame[name]) and not pd.api.types.is_bool_dtype(frame[name])]
    return frame.style.format({name: (formats or {}).get(name, number_format) for name in numeric}, na_rep=MISSING)


def static_table(columns: Mapping[str, Sequence], formats: Mapping[str, str] | None = None,
                 number_format: str = "{:.3f}") -> None:
    """Draw ``columns`` as a static table without an index, formatted as :func:`styled` says."""
    st.table(styled(columns, formats, number_format), hide_index=True)
