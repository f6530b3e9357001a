# Set-up, test and run commands. `make test` is what CI runs (.ci/run).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# The exact pin picks the CPU wheel on this machine's disk; an unpinned torch pulls a multi-GB CUDA build.
TORCH_SPEC ?= torch==2.13.0
STAMP  := $(VENV)/.installed
PYTEST_WORKERS ?= 2

.PHONY: venv test run bench lint clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install "$(TORCH_SPEC)"
	$(PIP) install -e ".[train,rllib,dev]"
	touch $(STAMP)

test: venv
	$(PY) -m pytest -n $(PYTEST_WORKERS) -q

run: venv
	$(PY) -m train.ppo

bench: venv
	$(PY) benchmarks/throughput.py

lint: venv
	$(PY) -m ruff check .

clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
