"""The catalog names the nineteen papers of docs/PAPERS.md, each with a theme, claim and valid page."""

import ast
import importlib
from pathlib import Path

from app.catalog import BY_KEY, EXTRA_PAGES, SYSTEMS, THEMES, by_theme
from bench.papers import PAPERS, sections

ROOT = Path(__file__).resolve().parents[1]


def test_nineteen_systems_exactly_the_papers_of_the_docs():
    papers = sections(PAPERS.read_text())  # the project's specification: one section per paper
    assert len(papers) == len(SYSTEMS) == 19
    assert [key for _, key in papers] == [s.key for s in SYSTEMS]
    assert all(title == BY_KEY[key].title for title, key in papers)


def test_the_section_scan_reads_titles_and_keys_and_nothing_else():
    text = "# The papers\n\n## Looped LMs (`looped_lm`)\n\n## Not a paper\n### Deeper (`mcr2`)\n## Two (`a_b`)\n"
    assert sections(text) == [("Looped LMs", "looped_lm"), ("Two", "a_b")]


def test_every_entry_is_complete():
    for system in SYSTEMS:
        assert system.title and system.claim.endswith(".")
        assert system.theme in THEMES, system.key
        assert len(system.claim) <= 220, f"{system.key}: the claim is a one-liner"


def test_grouping_keeps_theme_order_and_every_system():
    groups = by_theme()
    assert list(groups) == [t for t in THEMES if t in groups]
    assert sorted(s.key for systems in groups.values() for s in systems) == sorted(BY_KEY)
    assert set(groups) == set(THEMES)  # every theme has at least one system


def test_built_pages_exist_with_render_and_match_their_key():
    for system in SYSTEMS:
        if system.built:
            assert system.page == f"pages.{system.key}"
            module = importlib.import_module(system.page)
            assert callable(module.render)


def test_every_page_module_is_registered():
    modules = {p.stem for p in (ROOT / "pages").glob("*.py") if p.stem != "__init__"}
    registered = {s.key for s in SYSTEMS if s.built}
    assert modules == registered | set(EXTRA_PAGES)
    assert all(BY_KEY[owner].built for owner in EXTRA_PAGES.values())


def stray_entries(folder: Path, pages: set[str], owners: set[str]) -> list[str]:
    """What in ``folder`` (pages/) is neither a page module ``<page>.py`` nor a built system's helper package
    ``_<owner>/``: a package with an ``__init__.py`` of which no module is a page (defines ``render``)."""
    stray = []
    for entry in sorted(folder.iterdir()):
        if entry.name in ("__init__.py", "__pycache__"):
            continue
        if entry.is_file() and entry.suffix == ".py" and entry.stem in pages:
            continue
        helper = entry.is_dir() and entry.name.startswith("_") and entry.name[1:] in owners
        if helper and (entry / "__init__.py").is_file() and not any(
                isinstance(node, ast.FunctionDef) and node.name == "render"
                for module in entry.rglob("*.py") for node in ast.parse(module.read_text()).body):
            continue
        stray.append(entry.name)
    return stray


def test_pages_holds_only_pages_and_the_study_helper_package():
    built = {s.key for s in SYSTEMS if s.built}
    assert stray_entries(ROOT / "pages", built | set(EXTRA_PAGES), built) == []
    assert (ROOT / "pages" / "_interestingness" / "__init__.py").is_file()  # the scan saw the helper package


def test_the_scan_refuses_stray_files_and_foreign_or_page_holding_packages(tmp_path):
    folder = tmp_path / "pages"
    (folder / "_study").mkdir(parents=True)
    for path in ("__init__.py", "study.py", "_study/__init__.py", "_study/store.py"):
        (folder / path).write_text("def study_store():\n    pass\n")
    assert stray_entries(folder, {"study"}, {"study"}) == []
    (folder / "helpers.py").write_text("X = 1\n")                      # a non-page module beside the pages
    (folder / "_ghost").mkdir()                                         # a helper package of no built system
    (folder / "_ghost" / "__init__.py").write_text("")
    (folder / "notes.txt").write_text("")
    assert stray_entries(folder, {"study"}, {"study"}) == ["_ghost", "helpers.py", "notes.txt"]
    (folder / "_study" / "page.py").write_text("def render():\n    pass\n")  # a page hidden in the helpers
    assert "_study" in stray_entries(folder, {"study"}, {"study"})
    (folder / "_study" / "page.py").unlink()
    (folder / "_study" / "__init__.py").unlink()                        # not a package
    assert "_study" in stray_entries(folder, {"study"}, {"study"})
