"""Every rule id in RULES.md is covered by at least one test (marked with @covers)."""

import re
from pathlib import Path

RULES_MD = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
TESTS = Path(__file__).resolve().parents[1]


def rule_ids() -> set[str]:
    assert RULES_MD.is_file(), f"RULES.md not found at {RULES_MD}: the repo must sit beside shared/"
    return set(re.findall(r"^- \*\*([A-Z]\d+)\*\*", RULES_MD.read_text(encoding="utf-8"), re.M))


def covered_ids() -> set[str]:
    found: set[str] = set()
    for path in TESTS.rglob("test_*.py"):
        for args in re.findall(r"@covers\(([^)]*)\)", path.read_text(encoding="utf-8")):
            found.update(re.findall(r'"([A-Z]\d+)"', args))
    return found


def test_rules_md_has_the_expected_ids() -> None:
    ids = rule_ids()
    assert {"D1", "D2", "S1", "P1", "P10", "E5", "G3", "V7"} <= ids and len(ids) == 31


def test_every_rule_id_has_a_test() -> None:
    missing = sorted(rule_ids() - covered_ids())
    assert not missing, f"rule ids with no @covers test: {missing}"


def test_every_fault_code_in_rules_md_exists_in_the_engine() -> None:
    from referee.rules import Fault

    codes = set(re.findall(r"\| (F_[A-Z_]+) \|", RULES_MD.read_text(encoding="utf-8")))
    assert codes and codes <= {f.code for f in Fault}
    for fault in Fault:
        if fault.code in codes:
            row = re.search(rf"\| {fault.code} \| ([^|]+) \|", RULES_MD.read_text(encoding="utf-8"))
            assert row and fault.rule in row.group(1), fault.code
