# Set-up, test and run commands. `make test` is what CI runs (.ci/run).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# The exact pin picks the CPU wheel on this machine's disk; an unpinned torch pulls a multi-GB CUDA build.
TORCH_SPEC ?= torch==2.13.0
# Where pip looks for torch (e.g. PyTorch's CPU index, https://download.pytorch.org/whl/cpu); empty: PyPI.
TORCH_INDEX ?=
STAMP  := $(VENV)/.installed
PYTEST_WORKERS ?= 2
# The benchmark's peers (OpenSpiel, the `dominoes` package) live in their own venv, never the project's.
PEERS_VENV  ?= .venv-peers
PEERS_PY    := $(PEERS_VENV)/bin/python
PEERS_STAMP := $(PEERS_VENV)/.installed

.PHONY: venv system-deps test run bench peers lint clean

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
	$(PIP) install "$(TORCH_SPEC)" $(if $(TORCH_INDEX),--index-url "$(TORCH_INDEX)")
	$(PIP) install -e ".[train,render,browser,clients,rllib,dev]"
	touch $(STAMP)

test: venv system-deps
	$(PY) -m pytest -n $(PYTEST_WORKERS) -q

# Options for domino-train (docs/training.md), e.g. a try of about two minutes:
# make run RUN_ARGS="--timesteps 20480 --eval-freq 10240 --eval-rounds 40 --final-eval-rounds 200 --out runs/try"
RUN_ARGS ?=
run: venv
	$(PY) -m domino_env.train.ppo $(RUN_ARGS)

peers: $(PEERS_STAMP)

$(PEERS_STAMP): benchmarks/peers-requirements.txt
	test -x $(PEERS_PY) || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PY) -m pip install -r benchmarks/peers-requirements.txt
	touch $(PEERS_STAMP)

# Installs the peers on first use; if that fails (no network), ours are measured alone and the
# skip is said in one line. Extra options: make bench BENCH_ARGS="--seconds 2 --repeat 3".
BENCH_ARGS ?=
bench: venv
	@$(MAKE) --no-print-directory peers || echo "bench: installing the peers failed; measuring ours only (retry: make peers)" >&2
	$(PY) benchmarks/throughput.py --peers-python $(PEERS_PY) $(BENCH_ARGS)

lint: venv
	$(PY) -m ruff check .

clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
