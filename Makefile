# Every target installs what it needs first. `make help` lists them.
PYTHON_VERSION ?= python3.11
UV_VERSION ?= 0.13.8
VENV := .venv
PY := $(VENV)/bin/python
UV := $(shell command -v uv 2>/dev/null || echo $(VENV)-uv/bin/uv)

.PHONY: help setup data vendor browser shellcheck perf test test-fast check format serve build build-zensical report clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(VENV)-uv/bin/uv:
	$(PYTHON_VERSION) -m venv $(VENV)-uv && $(VENV)-uv/bin/pip install -q uv==$(UV_VERSION)

# Bytecode compiled at install and written as modules are imported: a machine that sets
# PYTHONDONTWRITEBYTECODE would otherwise compile scikit-learn, pandas and the rest from
# source in every process (10 s to import them instead of 4 s), and pytest would rewrite
# every test module's asserts again in every run.
unexport PYTHONDONTWRITEBYTECODE

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --compile-bytecode --python $(PYTHON_VERSION)
	touch $@

setup: $(VENV)/.synced  ## a .venv with the locked versions (idempotent)

data: setup  ## fetch the shop data, build features, model and feature store
	OMP_NUM_THREADS=1 $(PY) -m lab data

vendor: setup  ## fetch the pinned Pyodide and plotly.js with npm pack, check their sha256
	$(PY) site_src/vendor.py

browser:  ## Debian's chromium for the browser tests (apt-get, as root, when missing)
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "browser: /usr/bin/chromium is missing; as root run: apt-get install chromium"; \
	    exit 1; \
	  fi; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --no-install-recommends chromium; \
	fi

shellcheck:  ## shellcheck for the AWS steps' tests (apt-get, as root, when missing)
	@if ! command -v shellcheck >/dev/null; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "shellcheck: it is missing; as root run: apt-get install shellcheck"; \
	    exit 1; \
	  fi; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --no-install-recommends shellcheck; \
	fi

perf:  ## Linux perf for the scheduler-trace test (apt-get, as root, when missing)
	@if ! command -v perf >/dev/null; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "perf: it is missing; as root run: apt-get install linux-perf"; \
	    exit 1; \
	  fi; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --no-install-recommends linux-perf; \
	fi

# The tiers (tests/support/tiers.py): every test that needs no browser, campaign, full data
# or process is the fast tier; `make test` runs all of them, the CPU-heavy tiers on two
# workers, then the browser tier on its own (a browser beside them makes both flaky). Both of
# its pytest runs share one build of the site (LESSON_TEST_BUILDS), made fresh every time.
TEST_BUILDS := .cache/test-builds
FAST_TIER := not (browser or fulldata or campaign or process)

test-fast: setup vendor  ## the one-minute loop: the fast tier, on two workers
	$(PY) -m pytest -n 2 -q -m "$(FAST_TIER)" --durations=10

test: setup data vendor browser shellcheck perf check  ## run every test (after `make check`)
	rm -rf $(TEST_BUILDS)
	LESSON_TEST_BUILDS=$(CURDIR)/$(TEST_BUILDS) $(PY) -m pytest -n 2 --dist loadfile -m "not browser"
	LESSON_TEST_BUILDS=$(CURDIR)/$(TEST_BUILDS) $(PY) -m pytest -m browser

check: setup  ## lint, format check (ruff), the import rules (import-linter), the secret scan, the workflows (actionlint)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) tests/secret_scan.py
	$(VENV)/bin/actionlint

format: setup  ## apply ruff's fixes and formatting
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

# The generator writes the whole docs/ (pages, data, charts, scripts, styles, runtimes); a
# builder turns it into HTML: MkDocs (the default) or Zensical, from the same mkdocs.yml.
build: setup vendor  ## build the static site into site/ from the committed data (MkDocs)
	$(PY) -m generator build
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

build-zensical: setup vendor  ## the same site built by Zensical, into site-zensical/
	$(PY) -m generator build
	$(PY) -m zensical build --strict -f mkdocs.zensical.yml

serve: setup vendor  ## build and serve the site at http://127.0.0.1:8000/, rebuilt as site_src/ or data/ change
	$(PY) site_src/serve.py --dev-addr 127.0.0.1:8000

clean:  ## remove everything rebuildable
	rm -rf $(VENV) $(VENV)-uv .cache site site-zensical vendor docs/[!.]*

report: setup  ## recompute every published number from the raw data; fails on any disagreement
	$(PY) -m generator report
