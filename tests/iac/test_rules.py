"""The rule registry: one rule per id with its severity, README's table generated from it, and
every rule exercised by the corpus (a broken case it reports, a valid file of its kind it
leaves alone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iac_code.iac import rules
from iac_code.iac.engine import Options, check

ROOT = Path(__file__).parents[2]
CORPUS = Path(__file__).parent / "corpus"
VALID = sorted(p for p in (CORPUS / "valid").iterdir() if p.is_dir())
MARK = re.compile(r"expect: ([\w.\-]+)")
# Rules whose trigger cannot live in the corpus, and the test that makes them fire instead.
ELSEWHERE = {
    "file.unreadable": "tests/iac/test_command.py::test_unreadable_file_is_an_error",
    "internal": "tests/iac/test_command.py::test_huge_binary_and_unparseable_files_give_diagnostics_or_are_counted_as_skipped",
    "terraform.fmt": "tests/iac/test_command.py::test_terraform_fmt_findings_are_warnings_when_terraform_is_installed",
    "terraform.validate": "tests/iac/test_command.py::test_terraform_validate_runs_only_when_asked_and_initialised",
    "terraform.validate-warning": "tests/iac/test_command.py::test_terraform_validate_runs_only_when_asked_and_initialised",
}


def corpus_marks() -> set[str]:
    marks: set[str] = set()
    for f in (CORPUS / "broken").rglob("*"):
        if not f.is_file():
            continue
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if f.name == "expect.txt":
            marks |= {line.split()[1] for line in text.splitlines() if line.strip()}
        marks |= set(MARK.findall(text))
    return marks


def test_every_rule_has_an_id_a_severity_a_summary_and_a_doc() -> None:
    found = rules.all_rules()
    assert len({r.id for r in found}) == len(found)
    for r in found:
        assert r.severity in ("error", "warning", "info"), r.id
        assert r.summary and "\n" not in r.summary, r.id
        assert r.check is None or r.doc, f"{r.id} has no doc (its check's docstring)"


def test_a_switched_off_rule_does_not_run(monkeypatch) -> None:
    monkeypatch.setitem(rules.MODULES, "test", (__name__,))
    monkeypatch.setattr(rules, "_registry", dict(rules._registry))
    ran: list[str] = []

    @rules.rule("test.a", "error", "a", kind="test")
    def a(target):
        """A."""
        ran.append("a")
        return []

    @rules.rule("test.b", "warning", "b", kind="test")
    def b(target):
        """B."""
        ran.append("b")
        return [rules.diag(b, Path("/x"), 1, 1, "found")]

    found = rules.run("test", object(), rules.Selection(("test.a",)), Path("/x"))
    assert ran == ["b"]
    assert [(d.rule, d.severity) for d in found] == [("test.b", "warning")]  # the severity is the rule's


def test_every_rule_is_reported_by_a_broken_corpus_case() -> None:
    marks = corpus_marks()
    missing = [r.id for r in rules.all_rules()
               if r.id not in ELSEWHERE and r.id not in marks and not (r.family and any(m.startswith(r.id + ".") for m in marks))]
    assert missing == [], f"rules no case in tests/iac/corpus/broken triggers: {missing}"


def test_every_rule_leaves_a_valid_file_of_its_kind_alone() -> None:
    by_kind: dict[str, set[Path]] = {}
    found: dict[Path, set[str]] = {}
    for project in VALID:
        outcome = check([project], Options(terraform_cli=False))
        for f, kind in outcome.checked.items():
            by_kind.setdefault(kind, set()).add(f)
            by_kind.setdefault("any", set()).add(f)
        for d in outcome.diagnostics:
            found.setdefault(d.file, set()).add(d.rule)
    for r in rules.all_rules():
        files = by_kind.get(r.kind if r.kind in by_kind else "any", set())
        clean = [f for f in files if not any(r.covers(x) for x in found.get(f, ()))]
        assert clean, f"no valid file of kind {r.kind} is free of {r.id}"


def test_readme_rules_table_is_the_registry() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = rules.markdown_table()
    assert table in readme, "README's rules table is out of date: paste `python -m iac_code.iac.rules --markdown`"


@pytest.mark.parametrize("rule_id", sorted(ELSEWHERE))
def test_rules_tested_elsewhere_exist(rule_id: str) -> None:
    assert rules.get(rule_id) is not None
    path, name = ELSEWHERE[rule_id].split("::")
    assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8")
