"""House rules of docs/ARCHITECTURE.md that a test can check."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("streamlit", "plotly")


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_never_imports_streamlit_or_plotly_in_source():
    offenders = {str(p.relative_to(ROOT)): sorted(imported_roots(p) & set(FORBIDDEN))
                 for p in (ROOT / "core").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) >= 7  # the scan really saw core/


# The layers of docs/ARCHITECTURE.md: which of the project's own packages each layer may import.
MAY_IMPORT = {"core": {"core"}, "app": {"app", "core", "bench"}, "pages": {"pages", "app", "core"},
              "deploy": {"deploy", "app", "core"}}
PROJECT = {"core", "app", "pages", "bench", "deploy", "tests"}


def layer_breaches(root: Path) -> dict[str, list[str]]:
    """Each module of a layer in :data:`MAY_IMPORT` that imports a project package its layer may not."""
    breaches = {}
    for layer, allowed in MAY_IMPORT.items():
        for path in sorted((root / layer).rglob("*.py")):
            if bad := sorted((imported_roots(path) & PROJECT) - allowed):
                breaches[str(path.relative_to(root))] = bad
    return breaches


def test_each_layer_imports_only_the_layers_below_it():
    assert layer_breaches(ROOT) == {}
    assert "core" in imported_roots(ROOT / "pages" / "geto_lp.py")  # the scan reads a page's imports


def test_the_layer_scan_catches_core_importing_the_app(tmp_path):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "ok.py").write_text("import numpy\nfrom core.common import make_rng\n")
    assert layer_breaches(tmp_path) == {}
    (tmp_path / "core" / "bad.py").write_text("from app.ui.plots import show\nimport pages.geto_lp\n")
    assert layer_breaches(tmp_path) == {"core/bad.py": ["app", "pages"]}


def test_importing_all_of_core_loads_neither():
    modules = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                     for p in (ROOT / "core").rglob("*.py") if "migrations" not in p.parts)  # Alembic scripts
    code = (f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_app_pages_folder():
    assert not (ROOT / "app" / "pages").exists(), "Streamlit would auto-discover app/pages/"


def test_streamlit_config():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["gatherUsageStats"] is False
    assert config["server"]["headless"] is True
    assert "primaryColor" in config["theme"]
