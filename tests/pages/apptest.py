"""Opening Paperlab pages through Streamlit's AppTest, as a visitor arriving from the home page."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

MAIN = str(Path(__file__).resolve().parents[2] / "app" / "main.py")


def open_page(key: str, timeout: float = 120, **params) -> AppTest:
    """The shell first, then ``pages/<key>.py`` with ``params`` in its URL; fails on any exception."""
    at = AppTest.from_file(MAIN, default_timeout=timeout).run()
    at.switch_page(f"../pages/{key}.py")
    for name, value in params.items():  # as if the page's URL carried them
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at
