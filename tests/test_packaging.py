"""Dockerfile, requirements, README, Makefile and CI agree with each other (Docker cannot run here)."""

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMED = {"streamlit", "plotly", "torch", "numpy", "scipy", "pennylane", "networkx", "pyvista", "scikit-learn",
         "pot", "transformers", "safetensors", "sqlalchemy", "alembic", "psycopg"}


def requirement_lines(name):
    lines = [line.split("#")[0].strip() for line in (ROOT / name).read_text().splitlines()]
    return [line for line in lines if line]


def pinned(name):
    pins = {}
    for line in requirement_lines(name):
        if line.startswith("-r "):
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[a-z,]+\])?==([0-9][A-Za-z0-9.+-]*)", line)
        assert match, f"{name}: {line!r} is not pinned with =="
        pins[match.group(1).lower()] = match.group(3)
    return pins


def test_runtime_requirements_are_pinned_and_complete():
    pins = pinned("requirements.txt")
    assert pins["torch"] == "2.13.0"
    assert NAMED <= set(pins), NAMED - set(pins)


def test_dev_requirements_extend_runtime():
    assert requirement_lines("requirements-dev.txt")[0] == "-r requirements.txt"
    assert {"pytest", "pytest-timeout", "playwright"} <= set(pinned("requirements-dev.txt"))


def dockerfile():
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            instructions.append((word.upper(), rest.strip()))
    return instructions


def test_dockerfile_base_libraries_user_and_entry():
    ins = dockerfile()
    get = lambda word: [rest for w, rest in ins if w == word]  # noqa: E731
    assert re.fullmatch(r"python:3\.11\.\d+-slim-(bookworm|trixie)(@sha256:[0-9a-f]{64})?", get("FROM")[0])
    apt = " ".join(r for r in get("RUN") if "apt-get install" in r)
    assert {"libegl1", "libgl1-mesa-dri"} <= set(apt.split())
    env = " ".join(get("ENV"))
    assert "VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow" in env.split()
    assert any("useradd" in r for r in get("RUN"))
    users = get("USER")
    assert users and users[-1] not in ("root", "0")
    assert get("WORKDIR") == ["/app"]
    assert get("EXPOSE") == ["8501"]
    assert "/_stcore/health" in get("HEALTHCHECK")[0]
    cmd = get("CMD")[-1]
    argv = eval(cmd) if cmd.startswith("[") else shlex.split(cmd)  # noqa: S307 (our own file)
    assert argv == ["streamlit", "run", "app/main.py", "--server.address=0.0.0.0"]   # the command the README gives
    # The user switch comes after the install, so pip installs system-wide as root.
    order = [w for w, _ in ins]
    assert order.index("USER") > max(i for i, (w, r) in enumerate(ins) if w == "RUN" and "pip install" in r)


def test_dockerfile_installs_exactly_requirements_txt():
    ins = dockerfile()
    copies = [rest.split() for w, rest in ins if w == "COPY"]
    assert ["requirements.txt", "."] in copies
    pip_runs = [rest for w, rest in ins if w == "RUN" and "pip install" in rest]
    assert pip_runs == ["pip install -r requirements.txt"]


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", readme, flags=re.S)
    commands = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    assert "make run" in commands and "make test" in commands and "streamlit run app/main.py" in commands
    assert "docs/home.png" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in [line.strip() for line in ci.splitlines()]
    assert "set -euo pipefail" in ci and "apt-get install" in ci and "chromium" in ci
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^run:.*\n\t.*-m streamlit run app/main\.py ", makefile, flags=re.M)   # the same command
    assert re.search(r"^test:.*\n\t.*-m pytest", makefile, flags=re.M)


def test_readme_lists_every_system():
    from app.catalog import SYSTEMS

    readme = (ROOT / "README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith("| [`")]
    assert [line.split(" | ")[:2] for line in rows] == [[f"| [`{s.key}`](docs/{s.key}.png)", s.title] for s in SYSTEMS]
