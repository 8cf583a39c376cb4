"""semvar.papers: every published number has a citation, a well-formed value and a reader."""

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from semvar import papers
from semvar._mmlu_subjects import SUBJECTS

ROOT = Path(__file__).resolve().parents[1]
VALUES = [name for name in papers.__all__ if name != "SOURCES"]
#: the source works' seed files, as the citations name them
SEEDS = ("seed 000", "seed 001", "seed 002", "seed 003")


def test_every_value_is_cited_and_every_citation_has_a_value():
    assert set(papers.SOURCES) == set(VALUES)
    assert len(VALUES) == len(set(VALUES))
    constants = {name for name in vars(papers) if name.isupper() and not name.startswith("_")}
    assert constants == set(papers.__all__), "a published number outside __all__ escapes the citation check"


@pytest.mark.parametrize("name", VALUES)
def test_each_citation_names_its_work(name):
    source = papers.SOURCES[name]
    assert isinstance(source, str) and source == source.strip() and len(source) > 20
    # a seed file of the project, or an arXiv identifier for a work outside the seeds
    assert any(seed in source for seed in SEEDS) or re.search(r"arXiv \d{4}\.\d{5}", source), source


@pytest.mark.parametrize("name", VALUES)
def test_each_value_is_read_by_the_package_or_a_chapter(name):
    pattern = re.compile(rf"\b{name}\b")
    files = [p for p in (ROOT / "semvar").rglob("*.py") if p.name != "papers.py"]
    files += sorted((ROOT / "notebooks").glob("*.md"))
    assert any(pattern.search(p.read_text(encoding="utf-8")) for p in files), f"{name} is read nowhere"


def test_liu_tables_are_well_formed():
    judges = set(papers.PAPER_TABLE2)
    assert set(papers.PAPER_TABLE1) == judges == set(papers.PAPER_TABLE2_P_MINUS_Q)
    for row in papers.PAPER_TABLE1.values():
        # nine cells: three ratio vectors x n = 30, 50, 70; an entropy error of at most log 3 meanings
        assert len(row) == 9 and all(0.0 <= x <= math.log(3) for x in row)
    for name, (p, q) in papers.PAPER_TABLE2.items():
        assert 0.0 <= q < p <= 1.0, name
        # the printed p - q column is rounded: it is within 0.01 of the difference of the printed p and q
        assert abs(papers.PAPER_TABLE2_P_MINUS_Q[name] - (p - q)) <= 0.01 + 1e-12, name
    assert 0.0 < papers.LIU_PHASE_CHANGE < 1.0


def test_self_similarity_values_are_well_formed():
    assert len(papers.SEED_RESPONSES) == 3
    for prompt, answers in papers.SEED_RESPONSES.items():
        assert prompt.endswith((".", "?")) and len(answers) == 2 and all(isinstance(a, str) and a for a in answers)
    assert len(papers.SEED_PRINTED_SELF_SIMILARITY) == 2
    assert all(0.0 < s <= 1.0 for s in papers.SEED_PRINTED_SELF_SIMILARITY)


def test_the_worked_example_is_the_mean_off_diagonal_cosine():
    C = np.array(papers.SEED_WORKED_COSINES)
    assert C.shape == (3, 3) and np.array_equal(C, C.T) and np.all(np.diag(C) == 1.0)
    n = C.shape[0]
    assert (C.sum() - n) / (n * (n - 1)) == pytest.approx(papers.SEED_WORKED_SELF_SIMILARITY, abs=1e-12)


def test_lin_values_agree_with_each_other_and_with_mmlu():
    items = sum(n for n, _, _ in SUBJECTS.values())  # the 14,042 MMLU test items
    assert round(100 * papers.LIN_SUBSAMPLE_ITEMS / items, 1) == papers.LIN_SUBSAMPLE_SHARE
    # the naive half-width is a 95 % Wald half-width at the published accuracy on all items
    acc = papers.GEMMA2_9B_MMLU_ACCURACY
    wald = norm.ppf(0.975) * math.sqrt(acc * (1 - acc) / items)
    assert round(wald, 4) == papers.LIN_NAIVE_HALFWIDTH
    for value in (papers.LIN_SUBSAMPLE_HALFWIDTH, papers.LIN_NAIVE_HALFWIDTH, papers.LIN_GEMMA2_9B_HALFWIDTH):
        assert 0.0 < value < 0.1
    assert papers.LIN_NAIVE_HALFWIDTH < papers.LIN_GEMMA2_9B_HALFWIDTH  # exchangeability widens the interval
    lo, hi = papers.LIN_SPLIT_HALF_RANGE
    assert -1.0 <= lo < hi <= 1.0
    assert 0.0 < papers.LIN_SUBJECT_SD_MAX < 0.5


def test_review_values_are_well_formed():
    a, b = papers.REVIEW_PANEL_A, papers.REVIEW_PANEL_B
    assert set(a) == {"acc0", "margin", "sigma", "alpha"} and 0 < a["acc0"] < 1 and 0 < a["alpha"] < 1
    assert set(b) == {"acc0", "margin_sharp", "margin_soft", "sigma"} and b["margin_sharp"] > b["margin_soft"] > 0
    assert all(v > 0 for v in (a["margin"], a["sigma"], b["sigma"]))
    assert all(0.0 <= x <= 1.0 for x in papers.REVIEW_SAME_SETS_ACCURACY)
    lo, hi = papers.REVIEW_KENDALL_TAU_RANGE
    assert -1.0 <= lo <= hi <= 1.0


def test_ye_values_agree_with_each_other():
    # the conformal rank ceil((n + 1)(1 - alpha)) with n = 4,997 calibration items and alpha = 0.1
    assert papers.YE_QUANTILE_RANK == math.ceil((4997 + 1) * (1 - 0.1))
    assert len(papers.YE_QA_BASE) == 16
    for model, (acc, size) in papers.YE_QA_BASE.items():
        assert 0.0 < acc < 100.0 and 1.0 <= size <= 6.0, model  # six options per question
    qwen = papers.YE_QWEN72B_QA
    assert set(qwen) == {"acc", "ss", "cov"} and 90.0 <= qwen["cov"] <= 100.0  # coverage of at least 1 - alpha
    assert (qwen["acc"], qwen["ss"]) == papers.YE_QA_BASE["Qwen-72B"]
