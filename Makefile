# Two commands on a fresh machine: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install demo test lint bench compat docs clean

$(PY):
	python3 -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PY) -m icoframes demo --out data/demo

# ruff, and import-linter's layer contracts (pyproject.toml): an upward import or a cycle fails.
lint: $(STAMP)
	$(PY) -m ruff check icoframes tests benchmarks
	$(VENV)/bin/lint-imports

# pytest exits 5 when it collected nothing: treat that as a failure so CI never passes on nothing.
test: $(STAMP) lint
	$(PY) -m pytest -n 2 -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# The documentation site, offline; a warning fails the build. Open docs/_build/html/index.html.
docs: $(STAMP)
	rm -rf docs/_build docs/gallery docs/reference/generated
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html

bench: $(STAMP)
	$(PY) -m benchmarks

# The oldest pandas we support, in a venv of its own (not part of `make test`).
compat:
	python3 -m venv .venv-pandas2
	.venv-pandas2/bin/python -m pip install --quiet 'pandas==2.2.*' 'numpy<2.3' -e '.[dev]'
	.venv-pandas2/bin/python -m pytest -n 2 -q

clean:
	rm -rf $(VENV) .venv-pandas2 data/demo .pytest_cache docs/_build docs/gallery docs/reference/generated
