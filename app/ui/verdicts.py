"""The claims ledger on a page: the header every system page starts with, and its verdict strip.

Verdicts come from ``bench/results/<key>.json`` (see :mod:`core.common.claims`), read once per
change of the file. A negative verdict is drawn exactly like a positive one, in its own colour.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from core.common.claims import NOT_TESTED, STATUSES, Claim, Verdict, load_ledger, results_path, summary_line, tally

STYLE = {  # status -> (badge colour, icon)
    "reproduced": ("green", ":material/check_circle:"),
    "partly": ("orange", ":material/contrast:"),
    "not reproduced": ("red", ":material/cancel:"),
    "not tested": ("gray", ":material/help:"),
}
assert set(STYLE) == set(STATUSES)
CHIP_WIDTH = 128  # px: the widest status, "not reproduced", with its icon


_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[]$~<>|#"})


def plain(text: str) -> str:
    """``text`` escaped so that Streamlit's markdown shows it as written (``ε*(η)`` stays ``ε*(η)``)."""
    return str(text).translate(_MARKDOWN)


def _mtime(path: Path) -> float:
    return path.stat().st_mtime if path.exists() else 0.0


@st.cache_data(show_spinner=False, max_entries=64)
def _ledger(key: str, mtime: float) -> list[tuple[Claim, Verdict | None]]:
    return load_ledger(key)


def ledger(key: str) -> list[tuple[Claim, Verdict | None]]:
    """A system's (claim, verdict) pairs, re-read whenever its results file changes."""
    return _ledger(key, _mtime(results_path(key)))


def status_of(verdict: Verdict | None) -> str:
    return verdict.status if verdict is not None else NOT_TESTED


def badge(status: str, width: int | str = "content") -> None:
    color, icon = STYLE[status]
    st.badge(status, color=color, icon=icon, width=width)


def verdict_strip(key: str) -> None:
    """Each claim of the system: its status chip, figure and statement, and how it was measured."""
    entries = ledger(key)
    with st.container(border=True, key=f"verdicts-{key}"):
        if not entries:
            st.caption("No claims ledger yet: its benchmark has not written verdicts.")
            return
        counts = tally(status_of(v) for _, v in entries)
        st.markdown(f"**The paper's claims, as measured here** · {summary_line(counts)} · "
                    f"[all systems' claims](/claims)")
        for claim, verdict in entries:
            # A row of fixed-width chip, stretching text and a content-width button: ratio columns cut the
            # chip and the button to "repr…" and "How …" on a 1024 px projector.
            with st.container(horizontal=True, vertical_alignment="center", wrap=False, gap="small"):
                badge(status_of(verdict), width=CHIP_WIDTH)
                st.markdown(strip_line(claim, verdict), width="stretch")
                with st.popover("How measured", width="content"):
                    measured(claim, verdict)


def strip_line(claim: Claim, verdict: Verdict | None) -> str:
    """The strip's text for one claim: the figure in bold, then the claim."""
    figure = f"**{plain(verdict.figure)}** · " if verdict is not None and verdict.figure else ""
    return figure + plain(claim.statement)


def measured(claim: Claim, verdict: Verdict | None) -> None:
    """The popover's body: what is measured, against what, how the status follows, how to rerun it."""
    st.markdown(f"**Claim.** {plain(claim.statement)}\n\n**Measured.** {plain(claim.measure)}\n\n"
                f"**Checked against.** {plain(claim.oracle)}")
    if verdict is None:
        st.warning("No verdict in the shipped results: the benchmark has not judged this claim.")
        return
    st.markdown(f"**Verdict: {verdict.status}.** {plain(verdict.detail)}")
    if verdict.decision:
        st.markdown(f"**Decided by its rule.** {plain(verdict.decision.get('rule', ''))}. "
                    f"{plain(verdict.decided().removeprefix('Decided: '))}")
    if verdict.diagnosis:
        d = verdict.diagnosis
        st.markdown(f"**Why {verdict.status}.** {plain(d['why'][:1].upper() + d['why'][1:])} ({d['cause']}). "
                    f"{plain(d.get('evidence', ''))}")
    if verdict.command:
        st.code(verdict.command, language="bash")
    st.caption(f"Measured {verdict.measured_at}.")


def page_header(system) -> None:
    """Title, the paper's one-line claim, and the verdict strip: the top of every system page."""
    st.title(system.title)
    st.markdown(system.claim)
    verdict_strip(system.key)
