# The commands of the README: `make run`, `make test`, `make docs`, `make bench`. All create
# .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
EXTRAS_TEST := dev,cli,fast,render,eval,train,rllib,bench,docs,web
# Compiles the engine kernels into numba's cache once, right after installing the test
# extras: every kernel group, so the suite compiles nothing.
WARM_UP := $(BIN)/python -m uno_env.engine.compiled
# `make run`: a short tournament at 4 players of the heuristics and the random_play
# baseline, printing the ratings table. It plays on the numpy reference engine, which
# needs no compiling (the compiled engine gives the same games, bit for bit, and compiles
# on first use in the commands that use it: minutes of CPU; docs/benchmarks.md#cold-start).
GAMES ?= 600
RUN_AGENTS ?= tuned,defender,greedy,random_play
# Decisions of random play checked by `make soak`, shared by every preset (at 2, 4, 7 and
# 10 players) and RULE_SETS random rule combinations (2-10 players), each on both backends,
# with the reward and place invariants (docs/reliability.md).
DECISIONS ?= 1000000
RULE_SETS ?= 64
SOAK_SEED ?= 0
# Processes `make strategies` plays its cells with (the numbers do not depend on it).
JOBS ?= 2

.PHONY: run test test-records test-slow docs bench bench-learn bench-tournament cold-start strategies soak lint clean train-install

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip setuptools wheel

$(VENV)/.run-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e ".[cli,fast,eval]"
	touch $@

$(VENV)/.test-installed: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) install -c constraints.txt torch==2.13.0
	$(PIP) install -c constraints.txt -e ".[$(EXTRAS_TEST)]"
	$(WARM_UP)
	touch $@

run: $(VENV)/.run-installed
	UNO_ENV_BACKEND=numpy $(BIN)/uno-env tournament --preset official --players 4 \
		--agents $(RUN_AGENTS) --games $(GAMES)
	@echo "Played on the numpy reference engine. Other commands use the compiled engine, which"
	@echo "compiles on first use (a few minutes, once): python -m uno_env.engine.compiled"

# The suite includes the strict documentation build (tests/test_docs.py).
test: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 2 --dist worksteal -q

# The checks that recompute a published record in full (minutes each; not in make test).
test-records: $(VENV)/.test-installed
	$(BIN)/python -m pytest -q -m records

# Second integration runs of training scripts that make test already runs end to end
# (reuse under other settings, two seeds at once; a few minutes; not in make test).
test-slow: $(VENV)/.test-installed
	$(BIN)/python -m pytest -n 2 -q -m slow

# Serves the documentation with its API reference at http://127.0.0.1:8000.
docs: $(VENV)/.test-installed
	$(BIN)/mkdocs serve

bench: $(VENV)/.test-installed
	$(BIN)/python experiments/bench.py

# Learner speed end to end: SB3 against the learner core, same network and with the packed
# encoder; writes docs/results/bench-learn.json (a few minutes). On a GPU machine:
# `make bench-learn LEARN_FLAGS="--device cuda --num-envs 4096 --n-steps 16"`.
LEARN_FLAGS ?=
bench-learn: $(VENV)/.test-installed
	$(BIN)/python experiments/bench_learn.py $(LEARN_FLAGS)

soak: $(VENV)/.test-installed
	$(BIN)/python experiments/soak.py --decisions $(DECISIONS) --random-rules $(RULE_SETS) \
		--seed $(SOAK_SEED)

# What a fresh install waits for: make run's tournament, and the compiled engine's compile
# of the kernels of a tournament, each on a fresh kernel cache: CPU and wall seconds.
cold-start: $(VENV)/.run-installed
	$(BIN)/python experiments/cold_start.py

bench-tournament: $(VENV)/.test-installed
	$(BIN)/python experiments/bench_tournament.py

# The strategy benchmark: writes docs/strategies.md, its figures and numbers (hours).
strategies: $(VENV)/.test-installed
	$(BIN)/python experiments/strategies.py --jobs $(JOBS)

# The canonical leaderboard: every shipped agent on the published deals, heads-up and at
# 4 players; writes docs/leaderboard.md and docs/results/leaderboard.json (under a
# minute on 2 cores). `make leaderboard RESUME=--resume` continues a stopped run.
leaderboard: $(VENV)/.test-installed
	$(BIN)/uno-env leaderboard --jobs $(JOBS) $(RESUME)

# A CPU-only training install into .venv: the train extra with torch's CPU build (the
# pin of constraints.txt resolved on PyTorch's CPU index).
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
train-install: | $(BIN)/python
	$(PIP) install --extra-index-url $(TORCH_INDEX) -c constraints.txt -e ".[cli,fast,eval,train]"

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV)
