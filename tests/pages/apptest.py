"""Opening Paperlab pages through Streamlit's AppTest, as a visitor arriving from the home page."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

MAIN = str(Path(__file__).resolve().parents[2] / "app" / "shell.py")


def open_page(key: str, timeout: float = 120, details: bool = False, pictures: bool = False, **params) -> AppTest:
    """The shell first, then ``pages/<key>.py`` with ``params`` in its URL; fails on any exception.
    ``details``: with the page's Details section open (:mod:`app.ui.details`; closed on a first view).
    ``pictures``: as a session's first view, whose figures are shipped pictures (:mod:`app.ui.pictures`);
    by default as an interactive session, whose figures are charts the tests can read."""
    from app.ui.pictures import INTERACTIVE

    at = AppTest.from_file(MAIN, default_timeout=timeout)
    if not pictures:
        at.session_state[INTERACTIVE] = True
    at.run()
    at.switch_page(f"../pages/{key}.py")
    if details:
        at.session_state["details"] = True
    for name, value in params.items():  # as if the page's URL carried them
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def charts(at: AppTest) -> dict[str, dict]:
    """Every plotly chart on the page as its figure JSON, by the chart's key (or its position)."""
    import json

    out = {}
    for i, chart in enumerate(at.get("plotly_chart")):
        ident = chart.proto.id
        out[ident[ident.find("chart-"):] if "chart-" in ident else str(i)] = json.loads(chart.proto.spec)
    return out


def values(trace: dict, axis: str = "y"):
    """A trace's ``x``/``y``/``z`` as a numpy array, whether plotly wrote a list or typed base64."""
    import base64

    import numpy as np

    data = trace.get(axis)
    if isinstance(data, dict) and "bdata" in data:
        array = np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"]))
        shape = data.get("shape")
        if isinstance(shape, str):
            shape = [int(n) for n in shape.split(",")]
        return array.reshape(shape) if shape else array
    try:
        return np.asarray(data, dtype=float)
    except (TypeError, ValueError):    # category labels
        return np.asarray(data, dtype=object)
