"""The suite's end-of-run check (tests/conftest.py) sees what a test would write into the checkout."""

import subprocess

from tests.conftest import changed_paths, checkout_state


def git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_a_written_file_and_a_rewritten_one_are_both_reported(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "home.png").write_bytes(b"v1")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one")
    clean = checkout_state(tmp_path)
    assert clean == {}
    (tmp_path / "docs" / "home.png").write_bytes(b"v2")
    (tmp_path / "stray.json").write_text("{}")
    dirty = checkout_state(tmp_path)
    assert changed_paths(clean, dirty) == ["docs/home.png", "stray.json"]
    (tmp_path / "docs" / "home.png").write_bytes(b"v3")     # already modified, modified again
    assert changed_paths(dirty, checkout_state(tmp_path)) == ["docs/home.png"]
    assert changed_paths(dirty, dirty) == []


def test_outside_a_repository_there_is_nothing_to_check(tmp_path):
    assert checkout_state(tmp_path) is None
