# Two commands for a fresh clone on a machine with Python 3.11:
#   make run    create .venv, install the app, launch it on http://localhost:8501
#   make test   create .venv, install the app and the test tools, run the whole suite
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501

.PHONY: run test bench clean

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
	PYTHONPATH=. $(PY) -m app.serve --server.port $(PORT)

test: $(VENV)/.dev
	$(PY) -m pytest

bench: $(VENV)/.dev
	$(PY) bench/app.py

clean:
	rm -rf $(VENV) .pytest_cache
