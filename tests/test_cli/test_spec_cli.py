"""`adat spec lint` and `adat spec tests` as a user meets them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.tdad_spec import library_spec

ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]


def adat(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "400"}
    return subprocess.run([*ADAT, *args], capture_output=True, text=True, cwd=cwd, timeout=120, env=env)


def test_lint_reports_the_shipped_defects_and_passes_a_clean_spec(shared_dir: Path) -> None:
    specs = shared_dir / "benchmarks" / "tdad" / "specs"
    proc = adat("spec", "lint", str(specs / "expenseguard" / "v2" / "spec.yaml"))
    # its six undeclared END_* leaves end their paths: usable, so warnings and exit 0 (docs/spec_suites.md)
    assert proc.returncode == 0, proc.stdout
    assert "decision_tree[10].branches[0].next: N7_SUBMIT branches to 'END_APPROVE'" in proc.stdout
    assert "0 error(s), 6 warning(s)" in proc.stdout and "[undeclared-leaf]" in proc.stdout
    pack = shared_dir / "benchmarks" / "tdad" / "mutation_packs" / "supportops" / "mutations.yaml"
    proc = adat("spec", "lint", str(specs / "supportops" / "v1" / "spec.yaml"), "--pack", str(pack))
    assert proc.returncode == 0 and "0 error(s), 0 warning(s)" in proc.stdout


def test_lint_of_a_corrupted_spec_is_one_line_naming_the_key_path(tmp_path: Path) -> None:
    raw = library_spec()
    raw["decision_tree"][3]["branches"][0]["next"] = 7
    raw["decision_tree"][1]["branches"][1]["next"] = "R9_NOWHERE"
    bad = tmp_path / "spec.yaml"
    bad.write_text(yaml.safe_dump(raw))
    proc = adat("spec", "lint", str(bad))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "decision_tree[3].branches[0].next" in lines[0]
    raw["decision_tree"][3]["branches"][0]["next"] = "END_RENEWAL_REFUSED"
    bad.write_text(yaml.safe_dump(raw))
    proc = adat("spec", "lint", str(bad))
    assert proc.returncode == 1 and "decision_tree[1].branches[1].next" in proc.stdout
    assert "R4_OVERDUE is not reachable" in proc.stdout  # its only way in was the broken branch


def test_tests_writes_yaml_of_visible_and_hidden_tests(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(library_spec()))
    out = tmp_path / "tests.yaml"
    proc = adat("spec", "tests", str(spec), "--seed", "4", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "visible" in proc.stdout and "offline/heuristic" in proc.stdout
    rows = yaml.safe_load(out.read_text())
    assert {r["split"] for r in rows} == {"visible", "hidden"} and all(r["assertions"] for r in rows)
