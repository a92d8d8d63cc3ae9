"""Download buttons for any result dataclass: JSON (everything) and CSV (its table view)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core.common.results import result_to_frame, result_to_json


def export_buttons(result: Any, name: str, *, key: str | None = None) -> None:
    """Two buttons side by side: ``<name>.json`` and ``<name>.csv`` (see core.common.results)."""
    key = key or name
    with st.container(horizontal=True):
        st.download_button("JSON", result_to_json(result), file_name=f"{name}.json", mime="application/json",
                           icon=":material/download:", key=f"{key}-json", on_click="ignore")
        st.download_button("CSV", result_to_frame(result).to_csv(index=False), file_name=f"{name}.csv",
                           mime="text/csv", icon=":material/download:", key=f"{key}-csv", on_click="ignore")
