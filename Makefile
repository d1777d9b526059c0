# graphmem: the two commands that do all set-up on a fresh machine.
#   make demo   - the main job: local Neo4j (or NEO4J_URI), migrate, real data, recalls
#   make test   - unit + integration tests against a real Neo4j (started by the test fixture)

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
DATA ?= ../shared/data
STAMP := $(VENV)/.graphmem-installed

.PHONY: demo test install neo4j-start neo4j-stop clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install -e ".[test,eval,scienceworld,local-llm]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/graphmem demo --data $(DATA)

test: $(STAMP)
	$(PY) -m pytest -q -rs --durations=15

neo4j-start: $(STAMP)
	$(VENV)/bin/graphmem neo4j start

neo4j-stop: $(STAMP)
	$(VENV)/bin/graphmem neo4j stop

clean:
	rm -rf $(VENV) .graphmem dist build
