# Two commands on a fresh machine: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install demo test lint bench compat docs wheel-smoke mutate clean

$(PY):
	python3 -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PY) -m icoframes demo --out data/demo

# ruff, import-linter's layer contracts (pyproject.toml: an upward import or a cycle fails),
# and mypy with pandas-stubs over icoframes/ (pyproject.toml [tool.mypy]).
lint: $(STAMP)
	$(PY) -m ruff check icoframes tests benchmarks
	$(VENV)/bin/lint-imports
	$(PY) -m mypy

# make lint runs beside pytest (mypy is one process, and pytest's two workers wait on sockets
# and children much of the time): on a clean clone its cold mypy no longer comes first. Its
# output follows pytest's; either failing fails the target. pytest exits 5 when it collected
# nothing: treat that as a failure so CI never passes on nothing. --dist worksteal: a worker
# that runs out of tests takes queued ones from the other, so no long test waits at the end
# of one worker's queue while the other idles.
test: $(STAMP)
	@log=$$(mktemp); $(MAKE) --no-print-directory lint > "$$log" 2>&1 & lint=$$!; \
	echo "$(PY) -m pytest -n 2 --dist worksteal -q  (make lint beside it)"; \
	$(PY) -m pytest -n 2 --dist worksteal -q; rc=$$?; \
	wait $$lint; lrc=$$?; cat "$$log"; rm -f "$$log"; \
	if [ $$lrc -ne 0 ]; then echo "make lint failed (exit $$lrc)" >&2; exit $$lrc; fi; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# The documentation site, offline; a warning fails the build. Open docs/_build/html/index.html.
docs: $(STAMP)
	rm -rf docs/_build docs/gallery docs/reference/generated
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "built docs/_build/html/index.html"

# A wheel built from the tree, installed with its dependencies only into a clean venv
# outside the tree, imports, serves the sandbox, loads, exports and plots.
wheel-smoke: $(STAMP)
	@set -e; dir=$$(mktemp -d -t icoframes-wheel-XXXXXX); trap 'rm -rf "$$dir"' EXIT; \
	echo "building the wheel in $$dir"; \
	$(PY) -m build --wheel --outdir "$$dir/dist" . > "$$dir/build.log" 2>&1 \
		|| { cat "$$dir/build.log"; exit 1; }; \
	python3 -m venv "$$dir/venv"; \
	"$$dir/venv/bin/python" -m pip install --quiet "$$dir"/dist/icoframes-*.whl; \
	cd "$$dir" && TMPDIR="$$dir" "$$dir/venv/bin/python" -I $(CURDIR)/tests/wheel_smoke.py \
		"$$($(CURDIR)/$(PY) -c 'import icoframes; print(icoframes.__version__)')"

bench: $(STAMP)
	$(PY) -m benchmarks

# Mutation testing (not part of `make test`): mutmut mutates parse/, api/gate.py,
# api/params.py, api/retry.py, api/auth.py, api/text.py, api/control.py, api/attempts.py,
# secret.py, vocabulary.py, fetch/stops.py (with fetch/quotaday.py), store/, cachedir/,
# fetch/policy.py (with fetch/loadages.py), money/ and features.py, each against its own few test files
# (benchmarks/mutation.py), niced, and writes the kill rate per file and the survivors to
# benchmarks/MUTATION.md. One module:
# `make mutate MODULE=money` (parse, gate, store, cachedir, policy, money, params, retry,
# auth, text (api/text.py), secret, vocabulary, stops, control, attempts, features;
# parse:units for one file); all of them take hours on 2 shared cores.
MUTMUT := mutmut==3.8.1
MODULE ?= all
$(VENV)/.mutmut-stamp: | $(STAMP)
	$(PY) -m pip install --quiet '$(MUTMUT)'
	touch $@

mutate: $(STAMP) $(VENV)/.mutmut-stamp
	nice -n 19 $(PY) -m benchmarks.mutation $(MODULE)

# The oldest pandas we support, in a venv of its own (not part of `make test`), with the
# lowest requests and urllib3 pyproject.toml allows (icoframes.api.direct calls their APIs
# directly: one only a later release has fails here, not on a user's machine).
FLOORS := import tomllib; deps = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
	pins = [d.replace(">=", "==") for d in deps["dependencies"] \
	        if d.startswith(("requests>=", "urllib3>="))]; \
	assert len(pins) == 2, "no requests/urllib3 floor in pyproject.toml"; print(*pins)
compat:
	python3 -m venv .venv-pandas2
	floors=$$(.venv-pandas2/bin/python -c '$(FLOORS)') && echo "compat: $$floors" && \
	.venv-pandas2/bin/python -m pip install --quiet 'pandas==2.2.*' 'numpy<2.3' $$floors -e '.[dev]'
	.venv-pandas2/bin/python -m pytest -n 2 -q

clean:
	rm -rf $(VENV) .venv-pandas2 .mutate data/demo .pytest_cache docs/_build docs/gallery docs/reference/generated
