"""The repository stands on its own: no file names a path outside it, every link in the docs resolves,
the README stays short, and docs/PAPERS.md states the verdicts the ledger stores."""

import re
import subprocess
from pathlib import Path

import pytest

from bench import papers
from core.common.claims import Claim, Verdict

ROOT = Path(__file__).resolve().parents[1]
README_LINES = 180

# A relative path written with leading "../": the dots, then at least one name.
UPWARD = re.compile(r"(?<![\w./-])((?:\.\./)+)([\w.{}-]+(?:/[\w.{}-]+)*)")
UP = "../"  # the controls below write their outside paths as UP + name, so this file names none
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def tracked_text_files(root: Path) -> list[str]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return [n for n in names.decode().split("\0") if n and (root / n).is_file()]


def outside_paths(root: Path, relpath: str, text: str) -> list[str]:
    """The ``../`` paths in ``text`` (the file ``relpath`` of the repository ``root``) that name
    something outside the repository: a path that climbs above the root from the file's own folder,
    or one whose first two or more names are not a top-level entry of the repository and do not exist
    from the file's folder (a note in a sibling folder of the checkout, named from a module two
    folders deep). A single name (``"../etc"``, a bad input a test feeds a validator) is not a
    reference to a file."""
    root = root.resolve()
    here = (root / relpath).parent
    top = {p.name for p in root.iterdir()}
    found = []
    for match in UPWARD.finditer(text):
        dots, rest = match.groups()
        target = (here / dots / rest).resolve()
        climbs = not target.is_relative_to(root)
        names = rest.split("/")
        foreign = len(names) >= 2 and names[0] not in top and not target.exists()
        if climbs or foreign:
            found.append(match.group(0))
    return found


def test_no_tracked_file_names_a_path_outside_the_repository():
    offenders = {}
    files = tracked_text_files(ROOT)
    for name in files:
        try:
            text = (ROOT / name).read_text()
        except UnicodeDecodeError:
            continue  # pictures and other binaries
        if paths := outside_paths(ROOT, name, text):
            offenders[name] = paths
    assert offenders == {}
    assert len(files) > 300  # the scan saw the repository


def test_the_scan_finds_outside_paths_and_leaves_inside_ones(tmp_path):
    for folder in ("core/pkg", "bench", "app", "pages", "docs"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "pages" / "demo.py").write_text("")
    assert outside_paths(tmp_path, "README.md", f"see {UP}shared/DESIGN.md") == [f"{UP}shared/DESIGN.md"]
    assert outside_paths(tmp_path, "core/pkg/mod.py", f"``{UP}shared/seeds/abstracts.txt``") == \
        [f"{UP}shared/seeds/abstracts.txt"]
    assert outside_paths(tmp_path, "docs/x.md", f"[up]({UP}{UP}elsewhere.md)") == [f"{UP}{UP}elsewhere.md"]
    # inside: a page path from bench/ or app/, a docs link up to the root, a bad input a test feeds a validator
    assert outside_paths(tmp_path, "bench/b.py", 'PAGE = "../pages/demo.py"') == []
    assert outside_paths(tmp_path, "docs/x.md", "[code](../core/pkg/mod.py)") == []
    assert outside_paths(tmp_path, "core/pkg/t.py", 'load("../etc")') == []


def test_the_scan_flags_a_tracked_file_that_names_the_design_notes(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "notes.py").write_text(f'"""From ``{UP}shared/DESIGN.md``."""\n')
    subprocess.run(["git", "-C", str(tmp_path), "add", "core/notes.py"], check=True)
    [name] = tracked_text_files(tmp_path)
    assert outside_paths(tmp_path, name, (tmp_path / name).read_text()) == [f"{UP}shared/DESIGN.md"]


def anchors(markdown: str) -> set[str]:
    """The anchors of a markdown file's headings, as GitHub makes them (lower case, punctuation dropped,
    spaces to hyphens)."""
    headings = re.findall(r"^#+ (.+)$", markdown, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def broken_links(root: Path, relpath: str, text: str) -> list[str]:
    """Relative links and images in the markdown ``text`` (the file ``relpath``) that do not resolve to
    a file or folder inside ``root``, or name a heading their markdown file does not have; web addresses
    are left alone."""
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        path = ((root / relpath).parent / name).resolve() if name else (root / relpath).resolve()
        if not path.is_relative_to(root.resolve()) or not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in anchors(path.read_text()):
            broken.append(target)
    return broken


@pytest.mark.parametrize("name", ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
def test_every_relative_link_in_the_docs_resolves(name):
    text = (ROOT / name).read_text()
    assert broken_links(ROOT, name, text) == []
    assert LINK.search(text)  # the scan saw links


def test_the_link_check_refuses_missing_and_outside_targets(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "home.png").write_text("")
    (tmp_path / "docs" / "STUDY.md").write_text("# Study\n\n## 3. Deploying it (PostgreSQL behind nginx)\n")
    text = ("# Top\n![home](docs/home.png) [web](https://example.org) [here](#top) [gone](docs/GONE.md) "
            f"[out]({UP}shared/DESIGN.md) [deploy](docs/STUDY.md#3-deploying-it-postgresql-behind-nginx) "
            "[nowhere](docs/STUDY.md#4-monitoring) [lost](#bottom)")
    (tmp_path / "README.md").write_text(text)
    assert broken_links(tmp_path, "README.md", text) == ["docs/GONE.md", f"{UP}shared/DESIGN.md",
                                                          "docs/STUDY.md#4-monitoring", "#bottom"]


def test_the_readme_is_short_and_leads_to_the_docs():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_LINES
    targets = set(LINK.findall(text))
    assert {"docs/ARCHITECTURE.md", "docs/STUDY.md", "docs/PAPERS.md"} <= targets


def test_papers_states_the_verdicts_the_ledger_stores():
    text = papers.PAPERS.read_text()
    keys = [key for _, key in papers.sections(text)]
    stale = [key for key in keys if papers.block_in(text, key) != papers.stored_block(key)]
    assert stale == [], "run python bench/papers.py"
    assert len(keys) == 19


def test_a_stale_or_missing_claim_table_is_caught():
    claim = Claim("exact", "The LP is exact.", "objective gap", "POT's LP")
    good = Verdict("exact", "reproduced", "gap 1e-15", "both agree", "python bench/x.py", "2026-01-02")
    block = papers.claims_block("x", [(claim, good)])
    assert "| The LP is exact. | **reproduced** | gap 1e-15 |" in block and "`python bench/x.py`" in block
    text = "## X (`x`)\n\n<!-- claims:x -->\nold\n<!-- /claims:x -->\n"
    assert papers.block_in(text, "x") == "old"
    fresh = papers.with_block(text, "x", block)
    assert papers.block_in(fresh, "x") == block and fresh.startswith("## X (`x`)")
    worse = papers.claims_block("x", [(claim, Verdict("exact", "not reproduced", "gap 0.1", "apart", "c", "d"))])
    assert papers.block_in(fresh, "x") != worse  # a changed verdict makes the stored table stale
    untested = papers.claims_block("x", [(claim, Verdict("exact", "not tested", "", "no bench yet", "", "d"))])
    assert "| **not tested** | – |" in untested and "Nothing measures these claims yet" in untested
    with pytest.raises(ValueError, match=r"key: docs/PAPERS.md has no <!-- claims:y --> markers; allowed keys x"):
        papers.with_block(text, "y", block)


def uncited_papers(text: str) -> int:
    """How many times ``text`` names a NeurIPS 2026 paper without pointing to docs/PAPERS.md right after
    (within the next 40 characters, across a line break)."""
    return sum("docs/PAPERS.md" not in " ".join(text[m.end():m.end() + 60].split())[:40]
               for m in re.finditer(r"NeurIPS 2026", text))


def test_docstrings_cite_a_paper_by_its_title_and_docs_papers():
    missing = {str(p.relative_to(ROOT)): n for folder in ("core", "pages", "bench") for p in (ROOT / folder).rglob("*.py")
               if (n := uncited_papers(p.read_text()))}
    assert missing == {}
    assert sum(p.read_text().count("docs/PAPERS.md") for p in (ROOT / "core").rglob("*.py")) > 50  # the scan saw them


def test_the_citation_scan_counts_a_bare_paper_reference():
    cited = '.. [1] "Looped reasoning LMs" (NeurIPS 2026,\n       ``docs/PAPERS.md``).\n'
    bare = '.. [1] "Looped reasoning LMs", NeurIPS 2026 (abstract only).\n'
    assert uncited_papers(cited) == 0 and uncited_papers(bare) == 1 and uncited_papers(cited + bare + bare) == 2


def test_writing_a_systems_verdicts_rewrites_its_table_in_papers(tmp_path, monkeypatch):
    import json

    from bench import mcr2, report

    stored = json.loads((report.DEFAULT_RESULTS / "mcr2.json").read_text())
    asked = []
    monkeypatch.setattr(papers, "write", lambda keys: asked.append(list(keys)))
    monkeypatch.setattr(report, "RESULTS", tmp_path)            # a scratch results folder: the docs are left alone
    report.write_results("mcr2", dict(stored), mcr2.table(stored), verdicts=mcr2.verdicts)
    assert asked == [] and (tmp_path / "mcr2.json").is_file()
    monkeypatch.setattr(report, "DEFAULT_RESULTS", tmp_path)    # the project's own folder: its table follows
    report.write_results("mcr2", dict(stored), mcr2.table(stored), verdicts=mcr2.verdicts)
    assert asked == [["mcr2"]]
    assert json.loads((tmp_path / "mcr2.json").read_text())["verdicts"] == stored["verdicts"]
