"""``compare_tables`` / ``adat compare`` on the hand-made metrics warehouse plus a few selector runs.

The values of r1 and r2 are the hand-computed ones of tests/test_sql/expected_metrics.py, in percent.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from adat.cli.main import app
from adat.compare import MISSING, compare_tables, render_tables
from adat.errors import UserError
from adat.records import Attempt, Run, TestCase
from adat.warehouse import write_records
from tests.test_sql.warehouse_fixture import T0, write_metrics_fixture

# selector run -> (selector, attempt numbers that wrote a test, attempts, instruction of each attempt)
SELECTOR_RUNS = {
    "s-adat2": ("adat2", (1, 3), 3, "k1 k1 k2"),
    "s-unif-1": ("uniform", (2, 4), 4, "k1 k2 k3 k4"),
    "s-unif-2": ("uniform", (1, 5), 5, "k1 k1 k1 k2 k3"),
    "s-thompson": ("thompson", (2,), 4, "k1 k1 k1 k1"),  # never reaches n = 2
}


def add_selector_runs(root: Path) -> None:
    for run_id, (selector, written, attempts, instructions) in SELECTOR_RUNS.items():
        write_records(root, "runs", [Run(run_id=run_id, flow="ablation", started_at=T0, selector=selector,
                                         config_json='{"generation": {"n": 2}}')], run_id=run_id)
        rows, tests = [], []
        for no, kid in zip(range(1, attempts + 1), instructions.split(), strict=True):
            test_id = f"t{no}" if no in written else None
            rows.append(Attempt(run_id=run_id, attempt_no=no, statement_id="h", instruction_id=kid,
                                applicable=test_id is not None, test_id=test_id, selector=selector))
            if test_id:
                tests.append(TestCase(test_id=test_id, run_id=run_id, kind="transformed", goal="g", step_hints=["x"]))
        write_records(root, "attempts", rows, run_id=run_id)
        write_records(root, "tests", tests, run_id=run_id)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = write_metrics_fixture(tmp_path_factory.mktemp("warehouse") / "data")
    add_selector_runs(data)
    return data


ALL_RUNS = ["r1", "r2", "s-unif-1", "s-adat2", "s-thompson", "s-unif-2"]


@pytest.fixture(scope="module")
def tables(root: Path) -> dict[str, pd.DataFrame]:
    return compare_tables(root, ALL_RUNS)


def rows(frame, **match):  # type: ignore[no-untyped-def]
    out = frame
    for key, value in match.items():
        out = out[out[key] == value]
    return out.to_dict("records")


def test_rq1_rows_per_run_and_kind(tables: dict[str, pd.DataFrame]) -> None:
    rq1 = tables["rq1"]
    assert list(rq1["run_id"])[:5] == ["r1", "r1", "r1", "r2", "r2"]
    assert [r["kind"] for r in rows(rq1, run_id="r1")] == ["plain", "transformed", "all"]
    (plain,) = rows(rq1, run_id="r1", kind="plain")
    assert (plain["C"], plain["U"], plain["P"]) == (3, 1.0, 1.0)
    assert plain["V/C %"] == pytest.approx(200 / 3) and plain["V_E/C %"] == pytest.approx(100 / 3)
    (transformed,) = rows(rq1, run_id="r1", kind="transformed")
    assert (transformed["U"], transformed["P"]) == (2.0, 2.0)  # the extra boundaries, as in the paper
    (total,) = rows(rq1, run_id="r1", kind="all")
    assert total["TP"] == 1 and total["method"] == "AdaT2"


def test_rq1_tp_per_kind(tables: dict[str, pd.DataFrame]) -> None:
    rq1 = tables["rq1"]
    # r1 on the original: e-p2 TP (plain); transformed labels TN FP INC FN TN, no TP
    assert {r["kind"]: r["TP"] for r in rows(rq1, run_id="r1")} == {"plain": 1, "transformed": 0, "all": 1}
    assert {r["kind"]: r["TP"] for r in rows(rq1, run_id="r2")} == {"spec": 0, "all": 0}  # labelled, no TP
    unlabelled = rows(rq1, run_id="s-adat2")  # no execution labels at all: TP missing, not 0
    assert [r["kind"] for r in unlabelled] == ["transformed", "all"]
    assert all(r["TP"] is None or r["TP"] != r["TP"] for r in unlabelled)
    text = render_tables(tables, "csv", only="rq1")
    parsed = {(r["run_id"], r["kind"]): r["TP"] for r in csv.DictReader(io.StringIO(text))}
    assert parsed[("r1", "plain")] == "1" and parsed[("r1", "transformed")] == "0"
    assert parsed[("s-adat2", "transformed")] == MISSING


def test_rq3_and_rq4_from_labels_and_faults(tables: dict[str, pd.DataFrame]) -> None:
    (r1,) = rows(tables["rq3"], run_id="r1")
    # r1 labels on the original: TN TP TN FP INC FN TN -> accuracy 4/7, FAR 1/4, INC 1/7
    assert r1["Acc. %"] == pytest.approx(400 / 7) and r1["FAR %"] == pytest.approx(25.0)
    assert r1["INC %"] == pytest.approx(100 / 7) and r1["C"] == 7
    assert r1["TP"] == 1  # the run's 'all' row, not one kind's
    rq4 = tables["rq4"]
    (summary,) = rows(rq4, run_id="r2", fault="all")
    # killed F1 F4 of the activated F1 F2 F4 (F3 not activated: not scored)
    assert summary["detected"] == 2 and summary["MS %"] == pytest.approx(100 * 2 / 3)
    assert summary["detected / seeded %"] == pytest.approx(100 * 2 / 4)  # F3, never activated, counts
    assert [r["detected"] for r in rows(rq4, run_id="r2") if r["fault"] != "all"] == [1, 0, 0, 1]
    # labels summed over F1..F4: TP 2+1+0+1, TN 1+1+1+0, INC 0+0+1+1 (one 'all' row per variant)
    assert (summary["TP"], summary["TN"], summary["INC"]) == (4, 3, 2)
    (none,) = rows(rq4, run_id="r1")  # r1 ran no fault: one row of missing values
    assert none["fault"] == MISSING and none["MS %"] != none["MS %"]  # NaN: missing


def test_rq2_differences_to_adat2(tables: dict[str, pd.DataFrame]) -> None:
    runs = tables["rq2_runs"]
    (thompson,) = rows(runs, run_id="s-thompson")
    assert thompson["N_n"] is None or thompson["N_n"] != thompson["N_n"]  # not reached: no N_n
    assert thompson["Top %"] == pytest.approx(100.0)
    assert runs.loc[runs["run_id"] != "r1", "V/C %"].isna().all()  # not audited: no validity, not 0
    rq2 = tables["rq2"]
    assert list(rq2["selector"]) == ["adat2", "?", "uniform", "thompson"]  # r1 records no selector: '?'
    (adat2,) = rows(rq2, selector="adat2")
    assert adat2["N_n"] == 3 and adat2["n/a %"] == pytest.approx(100 / 3) and adat2["vs"] == ""
    (uniform,) = rows(rq2, selector="uniform")
    assert uniform["runs"] == 2 and uniform["vs"] == "Δ adat2"
    assert uniform["N_n"] == pytest.approx(4.5 - 3)  # mean of 4 and 5, minus adat2's 3
    assert uniform["n/a %"] == pytest.approx((50 + 60) / 2 - 100 / 3)
    assert uniform["Top %"] == pytest.approx((25 + 60) / 2)  # absolute


def test_rendering_marks_missing_values_and_signs_differences(tables: dict[str, pd.DataFrame]) -> None:
    text = render_tables(tables, "csv", only="rq2")
    parsed = {r["selector"]: r for r in csv.DictReader(io.StringIO(text))}
    assert parsed["uniform"]["N_n"] == "+1.5" and parsed["uniform"]["V/C %"] == MISSING
    assert parsed["adat2"]["N_n"] == "3" and parsed["thompson"]["N_n"] == MISSING
    boxes = render_tables(tables)
    assert "RQ1 (Table 2)" in boxes and "RQ4 (Table 5)" in boxes
    every = render_tables(tables, "csv")
    assert every.count("# rq") == 5


def test_unknown_runs_and_tables_are_user_errors(root: Path) -> None:
    with pytest.raises(UserError, match="no run nope"):
        compare_tables(root, ["r1", "nope"])
    with pytest.raises(UserError, match="no run id"):
        compare_tables(root, [])
    with pytest.raises(UserError, match="no table"):
        render_tables({}, only="rq9")


def test_cli_prints_the_tables(root: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["compare", "r1", "r2", "--data-dir", str(root), "--format", "csv", "--table", "rq3"])
    assert result.exit_code == 0, result.output
    parsed = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["run_id"] for r in parsed] == ["r1", "r2"] and parsed[0]["FAR %"] == "25"
    bad = runner.invoke(app, ["compare", "r1", "--data-dir", str(root), "--format", "xml"])
    # (the installed `adat` turns a UserError into one line and exit code 2; CliRunner shows the error)
    assert isinstance(bad.exception, UserError) and "--format" in str(bad.exception)
