"""app.serve imports the served pages' modules, freezes the heap they built, starts the warm-up, then runs
Streamlit on app/main.py with the options passed on."""

import sys

from app import serve
from app.ui import warmup


def test_serve_imports_the_pages_starts_the_warm_up_then_streamlit_with_the_options(monkeypatch):
    calls = []
    monkeypatch.setattr(warmup, "page_modules", lambda: ["pages.grace"])
    monkeypatch.setattr(warmup, "import_page", lambda modules: calls.append(("import", list(modules))))
    monkeypatch.setattr(warmup, "freeze_heap", lambda: calls.append(("freeze",)))
    monkeypatch.setattr(warmup, "warm_up", lambda modules, delay=0: calls.append(("warm", list(modules), delay)))
    monkeypatch.setenv("PAPERLAB_WARM_DELAY", "7.5")
    monkeypatch.setattr(warmup, "warm_modules", lambda: ["json"])
    from streamlit.web import cli

    monkeypatch.setattr(cli, "main", lambda: calls.append(("streamlit", list(sys.argv))) or 0)
    monkeypatch.setattr(sys, "argv", ["serve"])
    assert serve.main(["--server.port", "8123"]) == 0
    assert calls[0] == ("import", ["pages.grace"])     # before the server listens
    assert calls[1] == ("freeze",)                     # what the imports built is never walked again
    assert calls[2] == ("warm", ["json"], 7.5)
    name, argv = calls[3]
    assert name == "streamlit" and argv[:2] == ["streamlit", "run"] and argv[2].endswith("app/main.py")
    assert argv[3:] == ["--server.port", "8123", "--server.fileWatcherType", "none"]


def test_the_file_watcher_is_off_unless_the_command_line_sets_it():
    assert serve.served([]) == ["--server.fileWatcherType", "none"]
    assert serve.served(["--server.fileWatcherType", "auto"]) == ["--server.fileWatcherType", "auto"]
    assert serve.served(["--server.fileWatcherType=poll", "--server.port", "1"]) == [
        "--server.fileWatcherType=poll", "--server.port", "1"]


def test_a_bad_warm_delay_names_the_variable(monkeypatch):
    import pytest

    for raw in ("soon", "-1", "nan"):
        monkeypatch.setenv("PAPERLAB_WARM_DELAY", raw)
        with pytest.raises(ValueError, match="^PAPERLAB_WARM_DELAY: "):
            warmup.warm_delay()
    monkeypatch.delenv("PAPERLAB_WARM_DELAY")
    assert warmup.warm_delay() == 15.0
