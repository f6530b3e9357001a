# Set-up, test and run commands. `make test` is what CI runs (.ci/run).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# The exact pin picks the CPU wheel on this machine's disk; an unpinned torch pulls a multi-GB CUDA build.
TORCH_SPEC ?= torch==2.13.0
STAMP  := $(VENV)/.installed
PYTEST_WORKERS ?= 2

.PHONY: venv system-deps test run bench lint clean

venv: $(STAMP)

# System packages the tests drive: Debian's Chromium (the replay viewer's browser tests; never a
# browser downloaded by playwright) and tmux (the terminal game's tests). Quick when installed.
SYSTEM_DEPS := /usr/bin/chromium:chromium /usr/bin/tmux:tmux
system-deps:
	@missing=""; for dep in $(SYSTEM_DEPS); do test -x "$${dep%%:*}" || missing="$$missing $${dep#*:}"; done; \
	if [ -n "$$missing" ]; then \
		sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		echo "installing$$missing (apt-get)"; \
		$$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install "$(TORCH_SPEC)"
	$(PIP) install -e ".[train,render,browser,dev]"
	touch $(STAMP)

test: venv system-deps
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
