"""The Claims page: every built system's claims with their measured verdicts, in one table.

It reads the shipped results files only (no system is imported), so its first view is fast. The
summary line counts every claim; the filters narrow the table and its CSV export.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.catalog import SYSTEMS, THEMES
from app.ui.controls import bound
from app.ui.verdicts import STYLE, ledger, status_of
from core.common.claims import CAUSES, STATUSES, summary_line, tally

COLUMNS = ("system", "status", "why", "figure", "claim", "how it follows", "measured", "checked against", "command",
           "measured on", "theme", "page")
EXPORT = (*COLUMNS, "cause", "evidence", "decision", "controls")   # the CSV carries the rule's record too
NO_CAUSE = "–"   # the cause column of a reproduced claim
ROW_PX = 35


def rows() -> pd.DataFrame:
    """One row per claim of every built system, in catalog order."""
    out = []
    for system in SYSTEMS:
        if not system.built:
            continue
        for claim, verdict in ledger(system.key):
            diagnosis = (verdict.diagnosis if verdict else None) or {}
            out.append({"system": system.title, "theme": system.theme, "claim": claim.statement,
                        "status": status_of(verdict), "figure": verdict.figure if verdict else "",
                        "cause": diagnosis.get("cause", NO_CAUSE), "why": diagnosis.get("why", ""),
                        "evidence": diagnosis.get("evidence", ""), "decision": verdict.decided() if verdict else "",
                        "controls": "; ".join(f"{c['name']} ({c['kind']})" for c in verdict.controls) if verdict
                        else "",
                        "how it follows": verdict.detail if verdict else "no verdict shipped",
                        "measured": claim.measure, "checked against": claim.oracle,
                        "command": verdict.command if verdict else "", "measured on": verdict.measured_at if verdict else "",
                        "page": f"/{system.key}", "key": system.key, "claim_id": claim.id})
    return pd.DataFrame(out, columns=[*EXPORT, "key", "claim_id"])


def filtered(table: pd.DataFrame, statuses, themes, causes=()) -> pd.DataFrame:
    """The rows whose status, cause and theme are among those chosen (nothing chosen: no filter)."""
    keep = pd.Series(True, index=table.index)
    if statuses:
        keep &= table["status"].isin(statuses)
    if causes:
        keep &= table["cause"].isin(causes)
    if themes:
        keep &= table["theme"].isin(themes)
    return table[keep]


def render() -> None:
    st.title("Claims")
    st.markdown("Every headline claim of every built paper, with the verdict its benchmark measured here: "
                "**reproduced** (the figure meets the claim and its null control fails it), **partly**, **not "
                "reproduced** or **not tested**, and, when not reproduced, why. Each verdict is derived by the "
                "claim's rule from the numbers in `bench/results/<system>.json`, with the command that reproduces "
                "them.")
    table = rows()
    counts = tally(table["status"])
    st.subheader(f"{summary_line(counts)} over {len(table)} claims of "
                 f"{table['key'].nunique()} systems", divider="gray")
    # One row each: in half a 1024 px column the four status pills are cut off.
    statuses = bound(st.pills, "Status", key="status", options=list(STATUSES), selection_mode="multi",
                     format_func=lambda s: f"{s} ({counts[s]})", default=[])
    found = table["cause"].value_counts()
    causes = bound(st.pills, "Why not reproduced", key="cause", options=[c for c in CAUSES if c in found],
                   selection_mode="multi", format_func=lambda c: f"{c} ({found[c]})", default=[],
                   help="; ".join(f"{c}: {words}" for c, words in CAUSES.items()))
    themes = bound(st.multiselect, "Theme", key="theme", options=[t for t in THEMES if t in set(table["theme"])],
                   default=[], placeholder="All themes")
    shown = filtered(table, statuses, themes, causes)
    st.caption(f"Showing {len(shown)} of {len(table)} claims.")
    st.dataframe(shown[list(COLUMNS)].style.map(_colour, subset=["status"]), hide_index=True, width="stretch",
                 height=min(ROW_PX * (len(shown) + 1) + 3, 1400), key="claims-table", column_config={
                     "system": st.column_config.TextColumn(width=200),
                     "status": st.column_config.TextColumn(width=115),
                     "why": st.column_config.TextColumn(width=220),
                     "figure": st.column_config.TextColumn(width=280),
                     "claim": st.column_config.TextColumn(width=560),
                     "how it follows": st.column_config.TextColumn(width=560),
                     "page": st.column_config.LinkColumn("page", display_text="open", width="small")})
    st.download_button("Download these claims (CSV)", shown[list(EXPORT)].to_csv(index=False),
                       file_name="paperlab-claims.csv", mime="text/csv", icon=":material/download:")


def _colour(status: str) -> str:
    palette = {"green": "#1b7f3b", "orange": "#b25e00", "red": "#c0262d", "gray": "#5f6368"}
    return f"color: {palette[STYLE[status][0]]}; font-weight: 600"


if __name__ == "__main__":
    render()
