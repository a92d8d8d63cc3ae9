"""app/main.py is the app ``streamlit run`` serves, and its lifespan runs the start-up once per process: the served
pages' modules imported, the heap they built frozen, the warm-up started; a bad setting stops it before anything
is imported. tests/e2e/test_startup_browser.py starts the real command."""

import ast

import pytest

from app.server import ROOT
from app.ui import warmup


@pytest.fixture()
def fresh(monkeypatch):
    """``warmup`` as in a process that has not started up yet, its imports and freeze recorded instead of done."""
    calls = []
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup, "page_modules", lambda: ["pages.grace", "pages.mcr2"])
    monkeypatch.setattr(warmup, "warm_modules", lambda: ["json"])
    monkeypatch.setattr(warmup, "import_page", lambda modules: calls.append(("import", list(modules))))
    monkeypatch.setattr(warmup, "freeze_heap", lambda: calls.append(("freeze",)))

    def warm_up(modules, delay=0):
        calls.append(("warm", list(modules), delay))
        warmup._thread = f"thread {len(calls)}"     # as the real one: the thread it started

    monkeypatch.setattr(warmup, "warm_up", warm_up)
    monkeypatch.setenv("PAPERLAB_WARM_DELAY", "7.5")
    return calls


def test_the_start_up_imports_the_pages_freezes_then_starts_the_warm_up_once(fresh, capsys):
    assert warmup.start_up() == "thread 3"
    assert fresh == [("import", ["pages.grace", "pages.mcr2"]),   # what a first view needs, before the server listens
                     ("freeze",),                                  # what the imports built is never walked again
                     ("warm", ["json"], 7.5)]                      # the heavy libraries, PAPERLAB_WARM_DELAY later
    assert "Paperlab start-up: 2 page modules imported" in capsys.readouterr().err
    assert warmup.start_up() == "thread 3" and len(fresh) == 3    # once per process: a second call does nothing more
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("variable", "raw"), [("PAPERLAB_WARM_DELAY", "soon"), ("PAPERLAB_WARM_DELAY", "-1"),
                                               ("PAPERLAB_WARM", "no_such_system")])
def test_a_bad_setting_stops_the_start_up_before_anything_is_imported(fresh, monkeypatch, variable, raw):
    monkeypatch.setattr(warmup, "page_modules", lambda: warmup._served(None) and ["pages.grace"])
    monkeypatch.setattr(warmup, "warm_modules", lambda: warmup._served(None) and ["json"])
    monkeypatch.setenv(variable, raw)
    with pytest.raises(ValueError, match=f"^{variable}: "):
        warmup.start_up()
    assert fresh == [] and warmup._thread is None


def test_a_bad_warm_delay_names_the_variable(monkeypatch):
    for raw in ("soon", "-1", "nan"):
        monkeypatch.setenv("PAPERLAB_WARM_DELAY", raw)
        with pytest.raises(ValueError, match="^PAPERLAB_WARM_DELAY: "):
            warmup.warm_delay()
    monkeypatch.delenv("PAPERLAB_WARM_DELAY")
    assert warmup.warm_delay() == 15.0


def test_streamlit_run_finds_the_app_and_its_lifespan_starts_up():
    """``streamlit run app/main.py`` serves an ``st.App`` only if it finds one there (by reading the file): the
    App must be bound to ``app`` at module level, serve the shell, and its lifespan must call the start-up."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app" / "main.py")
    assert found.is_asgi_app and found.import_string == "main:app"
    assert not discover_asgi_app(ROOT / "app" / "shell.py").is_asgi_app       # control: the shell is a plain script
    tree = ast.parse((ROOT / "app" / "main.py").read_text())
    lifespan = next(n for n in tree.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "lifespan")
    assert any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "start_up" for n in ast.walk(lifespan))


def test_a_served_app_does_not_watch_files_unless_make_dev_asks():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none" and config["server"]["runOnSave"] is False
    makefile = (ROOT / "Makefile").read_text()
    dev = makefile.split("\ndev:", 1)[1].split("\n\n", 1)[0]
    assert "streamlit run app/main.py" in dev and "--server.fileWatcherType auto" in dev
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "streamlit run app/main.py" in run and "fileWatcherType" not in run


def test_a_launch_the_readme_does_not_give_is_refused(tmp_path):
    from app.server import start_server

    with pytest.raises(ValueError, match="^launch: 'python -m app.serve' is not a launch command; allowed "):
        start_server(1, tmp_path / "log", launch="python -m app.serve")
    with pytest.raises(ValueError, match="^script: "):
        start_server(1, tmp_path / "log", script="anchor.py", launch="make run")
    assert not (tmp_path / "log").exists()
