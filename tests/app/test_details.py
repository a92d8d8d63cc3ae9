"""The Details section (app.ui.details): its body runs only while the visitor has it open."""

from streamlit.testing.v1 import AppTest


def page():
    import streamlit as st

    from app.ui.details import details

    st.title("Details")
    calls = st.session_state.setdefault("body_runs", [])
    for _ in details("Details: the numbers", key="details"):
        calls.append(1)
        st.dataframe({"a": [1, 2, 3]})
        st.download_button("JSON", "{}", file_name="x.json")


def test_closed_details_send_their_label_and_nothing_inside():
    at = AppTest.from_function(page).run()
    assert [e.label for e in at.expander] == ["Details: the numbers"]
    assert not at.dataframe and not at.get("download_button") and at.session_state["body_runs"] == []


def test_open_details_run_their_body_once_per_run():
    at = AppTest.from_function(page)
    at.session_state["details"] = True
    at.run()
    assert len(at.dataframe) == 1 and at.dataframe[0].value["a"].tolist() == [1, 2, 3]
    assert [b.proto.label for b in at.get("download_button")] == ["JSON"]
    assert at.session_state["body_runs"] == [1]
    at.session_state["details"] = False     # the visitor closes it: the body stops running
    at.run()
    assert not at.dataframe and at.session_state["body_runs"] == [1]


def eager_details(source: str) -> list[str]:
    """The lines of ``source`` that open a Details section with a plain (eager) ``st.expander``."""
    import re

    return [line.strip() for line in source.splitlines() if re.search(r"st\.expander\(\s*[\"']Details", line)]


def test_no_page_opens_its_details_eagerly():
    from pathlib import Path

    assert eager_details('    with st.expander("Details: configuration"):\n')     # the scan's control
    assert not eager_details('    for _ in details("Details: configuration"):\n')
    pages = Path(__file__).resolve().parents[2] / "pages"
    found = {p.name: eager_details(p.read_text()) for p in pages.glob("*.py")}
    assert not {k: v for k, v in found.items() if v}
