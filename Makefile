# make        : install everything into .venv, print the replication scorecard, build the book
# make test   : run the whole test suite (unit tests, doctests, every notebook through nbval)
PY      := .venv/bin/python
VENV_OK := .venv/.installed

.PHONY: all install static scorecard book test notebooks clean

all: install scorecard book

$(VENV_OK): requirements.txt pyproject.toml
	test -x $(PY) || python3.11 -m venv .venv || python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(VENV_OK)

install: $(VENV_OK) static

static:
	bash scripts/fetch_static.sh

scorecard: install
	$(PY) -m semvar replicate

book: install
	.venv/bin/jupyter-book build . -W -n --keep-going

test: install
	$(PY) -m pytest -n 2

# re-pair and re-execute every chapter after editing its .md
notebooks: install
	for md in notebooks/*.md; do \
	  .venv/bin/jupytext --to ipynb "$$md" && \
	  .venv/bin/jupyter execute --inplace "$${md%.md}.ipynb" || exit 1; \
	done

clean:
	rm -rf _build
