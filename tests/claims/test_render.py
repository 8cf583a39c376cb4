"""Tests of semvar.claims._render: the text table, the JSON records and the HTML cards."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from semvar import claims
from semvar.claims import Record


def _rec(**kw):
    base = dict(id="liu2025.x", source="seed 000, Table 9", statement="Entropy $E$ < 1.", paper_value={"a": 1.23456},
                our_value=[0.5, 2], tolerance=None, status="partly", notebook="05_consistency",
                note="looked in /srv/x/data/liu2025, /srv/y/liu2025")
    base.update(kw)
    return Record(**base)


def test_the_table_has_one_row_per_record_and_counts_claims_only():
    recs = [_rec(), _rec(id="selfsim.y", source="seed 002", status="replicated", note="n" * 100),
            _rec(id="budget.z", status="replicated", kind="finding")]
    table = claims.format_table(recs, width=20)
    lines = table.splitlines()
    assert lines[0] == "CLAIMS OF THE SOURCE WORKS (2): 1 replicated, 1 partly"
    assert sum(line.startswith(("liu2025.x", "selfsim.y", "budget.z")) for line in lines) == 3
    assert "n" * 19 + "…" in table and "n" * 20 not in table             # notes cut at the width
    assert lines[-1] == "1 of 2 claims replicated; 1 findings reported apart"
    assert claims.format_table([]) == "no claims"


def test_json_round_trip(tmp_path):
    recs = [_rec(), _rec(id="b", kind="finding", our_value={"k": [1, None]})]
    path = tmp_path / "r.json"
    path.write_text(claims.to_json(recs), encoding="utf-8")
    assert claims.load_records(path) == recs
    rows = json.loads(path.read_text(encoding="utf-8"))
    assert list(rows[0]) == ["id", "source", "statement", "paper_value", "our_value", "tolerance", "status",
                             "notebook", "note", "seconds", "kind"]


def test_text_for_the_page():
    r = _rec()
    assert claims.public_text(r.note) == "looked in <data dir>/liu2025"
    assert claims.one_line(r) == "looked in <data dir>/liu2025"
    assert claims.display_source(r) == "Liu (2025), Table 9" and claims.source_work(r) == "000"
    assert claims.work_short("000") == "Liu (2025)" and claims.work_name("9") == "Other"
    assert claims.compact({"a": True, "b": [1.23456, None]}) == "a: yes; b: [1.235, -]"
    assert claims.format_value({"a": {"b": 1}, "c": 2}) == ["a: b 1", "c: 2"]
    assert (claims.card_anchor("a.b_c"), claims.section_anchor("a.b_c")) == ("claim-a-b_c", "decides-a-b_c")


def test_cards(tmp_path):
    (tmp_path / "05_consistency.md").write_text("---\nx: 1\n---\n\n# Consistency, at last\n\n## Later\n")
    titles = claims.chapter_titles(tmp_path)
    assert titles == {"05_consistency": "Consistency, at last"}
    card = claims.record_html(_rec(), titles)
    assert card.startswith('<div class="sv-card mathjax_process" id="claim-liu2025-x">')
    assert r"Entropy \(E\) &lt; 1." in card and ">partly replicated</span>" in card
    assert 'href="05_consistency.html#decides-liu2025-x">Consistency, at last</a>' in card
    assert "decided by" not in card and "<data dir>" not in card and "&lt;data dir&gt;/liu2025" in card
    page = claims.scorecard_html([_rec(), _rec(id="f", kind="finding")], kind="claim", titles=titles)
    assert page.startswith("<style>") and 'id="claim-liu2025-x"' in page and 'id="claim-f"' not in page
    assert "1 records: 1 partly" in page
    with pytest.raises(ValueError, match="kind must be one of"):
        claims.scorecard_html([], kind="claims", titles={})


def test_the_frame():
    frame = claims.scorecard_frame([_rec()], compact_values=True)
    assert list(frame.columns)[:3] == ["id", "kind", "status"] and frame.loc[0, "paper_value"] == "a: 1.235"


def _fold(text):
    """``text`` without accents: the published-value sources spell ``Pena`` for ``Peña``."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def test_the_short_name_of_every_work_is_its_authors_and_year():
    from semvar.papers import SOURCES

    shorts = {key: claims.work_short(key) for key, _ in claims.WORKS}
    assert shorts == {"000": "Liu (2025)", "001": "Lin, Frei & de la Peña (2026)",
                      "002": "LLM self-similarity tutorial (no author named)", "003": "Ye et al. (2024)"}
    for key, short in shorts.items():
        assert claims.work_name(key).startswith(short + ", ")             # the name, then the title
        # every published value taken from the work cites it by these authors (and this year, where it has one)
        who = re.sub(r" \(no author named\)$", "", short)
        cited = [s for s in SOURCES.values() if f"(seed {key})" in s]
        assert cited and all(_fold(who) in _fold(s) for s in cited), key
    assert claims.work_short("9") == "Other"


def test_a_source_that_restates_the_authors_names_them_once():
    def shown(source):
        return claims.display_source(_rec(source=source))

    assert shown("seed 001 (Lin, Frei & de la Peña 2026), Theorem 5.2") == "Lin, Frei & de la Peña (2026), Theorem 5.2"
    assert shown("seed 001, results") == "Lin, Frei & de la Peña (2026), results"
    assert shown("seed 000 (Kuhn et al. 2023), section 1") == "Liu (2025) (Kuhn et al. 2023), section 1"   # another work
    assert shown("seed 003, Setup; Ye et al. (2024) section 3") == "Ye et al. (2024), Setup; Ye et al. (2024) section 3"
    stored = claims.load_records(Path(__file__).resolve().parents[2] / "data" / "scorecard.json")
    seeded = [r for r in stored if re.match(r"seed \d{3}", r.source)]
    assert len(seeded) > 40
    for r in seeded:
        text = claims.display_source(r)
        assert text.startswith(claims.work_short(claims.source_work(r))) and "seed 0" not in text, r.id
        assert not re.search(r"\b(\w+) \(\1\b", text), (r.id, text)   # "Lin (Lin, ..." twice over
