"""The warm-up thread and a page's imports never build the same modules at once; a page goes first."""

import sys
import threading

from app.ui import warmup


def make_module(tmp_path, name, body=""):
    (tmp_path / f"{name}.py").write_text(f"import sys\nsys.modules['_warmup_log'].append({name!r})\n{body}")


def test_a_waiting_page_imports_before_the_warm_up_goes_on(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    log, started, release = [], threading.Event(), threading.Event()
    monkeypatch.setitem(sys.modules, "_warmup_log", log)
    monkeypatch.setitem(sys.modules, "_warmup_events", type("E", (), {"started": started, "release": release}))
    make_module(tmp_path, "wu_slow", "ev = sys.modules['_warmup_events']\nev.started.set()\nev.release.wait(30)\n")
    make_module(tmp_path, "wu_next")
    make_module(tmp_path, "wu_page")
    for name in ("wu_slow", "wu_next", "wu_page"):
        monkeypatch.delitem(sys.modules, name, raising=False)

    warm = threading.Thread(target=warmup._import_all, args=(["wu_slow", "wu_next"],))
    warm.start()
    assert started.wait(30)                     # the warm-up holds the lock inside wu_slow
    page = threading.Thread(target=warmup.import_page, args=(["wu_page"],))
    page.start()
    while not warmup._waiting:                  # the page has announced itself and waits for the lock
        threading.Event().wait(0.001)
    assert log == ["wu_slow"]                   # it cannot import while wu_slow is being built
    release.set()
    page.join(30), warm.join(30)
    assert not page.is_alive() and not warm.is_alive()
    assert log == ["wu_slow", "wu_page", "wu_next"]   # the page went before the warm-up's next module
    assert warmup._waiting == 0


def test_a_failing_page_import_is_left_for_the_page(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "_warmup_log", [])
    (tmp_path / "wu_broken.py").write_text("raise RuntimeError('broken on purpose')\n")
    warmup.import_page(["wu_broken", "wu_missing_module_xyz"])   # no exception here: the page reports it
    assert "wu_broken" not in sys.modules and warmup._waiting == 0


def test_the_warm_up_setting_names_what_to_import(monkeypatch):
    import pytest

    from app.catalog import BY_KEY, SYSTEMS

    built = [s for s in SYSTEMS if s.built]
    everything = sorted({m for s in built for m in s.warm})
    monkeypatch.delenv("PAPERLAB_WARM", raising=False)
    assert warmup.warm_modules() == everything
    assert warmup.warm_modules("none") == []
    assert warmup.warm_modules("interestingness") == sorted(BY_KEY["interestingness"].warm)
    assert "torch" not in warmup.warm_modules("interestingness")          # a study replica holds no torch
    assert warmup.warm_modules(" grace , robust_decisions ") == sorted(set(BY_KEY["grace"].warm)
                                                                      | set(BY_KEY["robust_decisions"].warm))
    monkeypatch.setenv("PAPERLAB_WARM", "none")
    assert warmup.warm_modules() == []
    with pytest.raises(ValueError, match="^PAPERLAB_WARM: 'no_such_system' is not a built system; allowed all, none"):
        warmup.warm_modules("grace,no_such_system")


def test_the_served_pages_are_the_page_modules_of_the_same_setting(monkeypatch):
    import pytest

    from app.catalog import EXTRAS, SYSTEMS

    monkeypatch.delenv("PAPERLAB_WARM", raising=False)
    everything = warmup.page_modules()
    assert everything[:len([s for s in SYSTEMS if s.built])] == [f"pages.{s.key}" for s in SYSTEMS if s.built]
    assert {f"pages.{e.key}" for e in EXTRAS} <= set(everything)
    assert warmup.page_modules("none") == []
    assert warmup.page_modules("interestingness") == ["pages.interestingness"] + [
        f"pages.{e.key}" for e in EXTRAS if e.system == "interestingness"]
    assert warmup.page_modules("grace, grace") == ["pages.grace"]          # a key named twice is one page
    with pytest.raises(ValueError, match="^PAPERLAB_WARM: 'nope' is not a built system"):
        warmup.page_modules("grace,nope")


def test_importing_before_serving_builds_the_modules_and_survives_a_broken_one(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "_warmup_log", [])
    make_module(tmp_path, "wu_now_a", "")
    (tmp_path / "wu_now_broken.py").write_text("raise RuntimeError('broken on purpose')\n")
    make_module(tmp_path, "wu_now_b", "")
    for name in ("wu_now_a", "wu_now_b", "wu_now_broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    warmup.import_page(["wu_now_a", "wu_now_broken", "wu_now_b"])      # no exception: the page reports it
    assert sys.modules["_warmup_log"] == ["wu_now_a", "wu_now_b"]       # in order, past the broken one
    assert "wu_now_broken" not in sys.modules and not warmup.IMPORTS._is_owned() and warmup._waiting == 0


def test_a_rerun_waits_for_an_import_in_flight(tmp_path, monkeypatch):
    # plotly reads pandas from sys.modules without importing it: a rerun that drew while the warm-up was half
    # way through pandas failed with "partially initialized module" (occupancy_irl's widget sweep).
    monkeypatch.syspath_prepend(str(tmp_path))
    started, release = threading.Event(), threading.Event()
    monkeypatch.setitem(sys.modules, "_warmup_log", [])
    monkeypatch.setitem(sys.modules, "_warmup_events", type("E", (), {"started": started, "release": release}))
    make_module(tmp_path, "wu_pandas_like", "ev = sys.modules['_warmup_events']\nev.started.set()\nev.release.wait(30)\n")
    monkeypatch.delitem(sys.modules, "wu_pandas_like", raising=False)
    warm = threading.Thread(target=warmup._import_all, args=(["wu_pandas_like"],))
    warm.start()
    assert started.wait(30) and warmup._half_built()
    rerun = threading.Thread(target=warmup.import_page, args=(["threading"],))   # already built: a rerun
    rerun.start()
    for _ in range(30_000):                    # it announces itself and waits (without the fix: returns at once)
        if warmup._waiting or not rerun.is_alive():
            break
        threading.Event().wait(0.001)
    assert rerun.is_alive() and warmup._waiting == 1   # not drawing next to a half-built module
    release.set()
    rerun.join(30), warm.join(30)
    assert not rerun.is_alive() and not warmup._half_built() and warmup._waiting == 0


def test_the_warm_up_freezes_what_its_imports_built(tmp_path, monkeypatch):
    import gc

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "_warmup_log", [])
    make_module(tmp_path, "wu_heap", "BUILT = [[i] for i in range(5000)]\n")   # 5001 tracked lists
    monkeypatch.delitem(sys.modules, "wu_heap", raising=False)
    gc.unfreeze()
    try:
        warmup._import_all(["wu_heap"])
        frozen = gc.get_freeze_count()
        assert frozen >= 5001 and "wu_heap" in sys.modules
        tracked = {id(o) for o in gc.get_objects()}       # a collection's generations no longer hold them
        assert id(sys.modules["wu_heap"].BUILT) not in tracked
    finally:
        gc.unfreeze()
    assert id(sys.modules["wu_heap"].BUILT) in {id(o) for o in gc.get_objects()}   # control: unfrozen, walked
