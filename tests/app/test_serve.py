"""app.serve runs Streamlit on app/main.py after starting the warm-up, passing Streamlit's options on."""

import sys

from app import serve
from app.ui import warmup


def test_serve_starts_the_warm_up_then_streamlit_with_the_options(monkeypatch):
    calls = []
    monkeypatch.setattr(warmup, "warm_up", lambda modules: calls.append(("warm", list(modules))))
    monkeypatch.setattr(warmup, "warm_modules", lambda: ["json"])
    from streamlit.web import cli

    monkeypatch.setattr(cli, "main", lambda: calls.append(("streamlit", list(sys.argv))) or 0)
    monkeypatch.setattr(sys, "argv", ["serve"])
    assert serve.main(["--server.port", "8123"]) == 0
    assert calls[0] == ("warm", ["json"])
    name, argv = calls[1]
    assert name == "streamlit" and argv[:2] == ["streamlit", "run"] and argv[2].endswith("app/main.py")
    assert argv[3:] == ["--server.port", "8123"]
