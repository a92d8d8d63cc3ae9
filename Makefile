# Two commands for a fresh clone on a machine with Python 3.11:
#   make run    create .venv, install the app, launch it on http://localhost:8501 (streamlit run app/main.py)
#   make test   create .venv, install the app and the test tools, run the whole suite
#   make test-fast        the suite without claim reproductions, browser tests and slow tests
#   make dev              make run with reloads: the file watcher on, a rerun on every save
#   make lint             ruff check . (the rules in ruff.toml); .ci/run runs it before the tests
#   make screenshots      refresh the docs/*.png screenshots from the browser tests, on purpose
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501

.PHONY: run dev test test-fast lint screenshots bench clean

# Two workers use both cores; XDIST= runs everything in one process.
XDIST ?= -n 2 --dist loadgroup

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m streamlit run app/main.py --server.port $(PORT)

dev: $(VENV)/.runtime
	$(PY) -m streamlit run app/main.py --server.port $(PORT) --server.fileWatcherType auto --server.runOnSave true

test: $(VENV)/.dev
	$(PY) -m pytest $(XDIST) --durations=30

test-fast: $(VENV)/.dev
	$(PY) -m pytest $(XDIST) -m "not claim and not e2e and not slow"

lint: $(VENV)/.dev
	$(PY) -m ruff check .

screenshots: $(VENV)/.dev
	PAPERLAB_SCREENSHOTS=docs $(PY) -m pytest -m e2e tests/e2e

bench: $(VENV)/.dev
	$(PY) bench/app.py

clean:
	rm -rf $(VENV) .pytest_cache
