# Two commands on a fresh machine: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install demo test lint bench clean

$(PY):
	python3 -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PY) -m icoframes demo --out data/demo

lint: $(STAMP)
	$(PY) -m ruff check icoframes tests benchmarks

# pytest exits 5 when it collected nothing: treat that as a failure so CI never passes on nothing.
test: $(STAMP) lint
	$(PY) -m pytest -n 2 -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) data/demo .pytest_cache
