"""Tables in the shape of the AdaT2 paper's Tables 2–5 for a set of runs (``adat compare``).

Every number comes from a query in ``sql/metrics`` run through :func:`adat.warehouse.run_query`;
this module only picks rows and arranges them. A value a run does not have — no audit, no
groupings, no faulty variants, no attempts — is None (printed as ``—``), never 0.

* ``rq1`` (Table 2): per run and test kind — C, V/C, V_E/C, U, P, TP. As in the paper, U and P of
  ``transformed`` rows are the *extra* explicit boundaries/sides the transformed tests add
  (``u_extra``/``p_extra``). TP: the auditor's TP labels of executions on the original agent of
  the row's tests (``execution_label_counts`` by kind; 0 for a kind of a labelled run without one).
* ``rq2_runs`` / ``rq2`` (Table 3): per selector run — N_n, not-applicable share, U, P, V/C,
  V_E/C, F_V of its transformed tests, Top; ``rq2`` averages the runs of each selector and gives
  every selector but ``adat2`` as the difference to adat2's mean (Top stays absolute).
* ``rq3`` (Table 4): per run and method — the suite's C, V/C, V_E/C, U, P and the labels of its
  executions on the original agent: TP, INC (share), accuracy, FAR. A method is a run (the
  baselines write one run each, AdaT2's suite is its run's plain + transformed tests), so every
  value is the run's ``all`` row.
* ``rq4`` (Table 5): per run and seeded fault — tests run, labels, detected; an ``all`` row per
  run sums the labels and gives the detected count, detected / seeded and the mutation score.

Rates are percentages, as in the paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from adat.errors import UserError

MISSING = "—"
Row = dict[str, Any]

#: table name -> title printed above it
TITLES = {
    "rq1": "RQ1 (Table 2): tests per run and kind",
    "rq2_runs": "RQ2 (Table 3): transformed tests per selector run",
    "rq2": "RQ2 (Table 3): selectors, mean over runs; rows below adat2 are differences to adat2 (Top absolute)",
    "rq3": "RQ3 (Table 4): suites per method; labels of executions on the original agent",
    "rq4": "RQ4 (Table 5): suites on the seeded faults",
}
_METRICS = ("counted_tests", "validity_rate", "explicit_validity_rate", "distinct_boundaries", "distinct_sides",
            "execution_label_counts", "accuracy", "false_alarm_rate", "failed_valid_tests", "attempts_until_n",
            "not_applicable_share", "top_instruction_share", "fault_detection", "seeded_fault_detection",
            "mutation_score")
_RQ2_DIFF = ("N_n", "n/a %", "U", "P", "V/C %", "V_E/C %", "F_V")


def compare_tables(data_root: Path, run_ids: Sequence[str], *, sql_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    """The comparison tables of ``run_ids`` (in the order given) from the warehouse at ``data_root``."""
    from adat.config import adat_home
    from adat.warehouse import catalog_path, refresh_catalog, resolve_query, run_query

    if not run_ids:
        raise UserError("no run id given", field="RUN_ID", fix="pass one or more run ids (adat sql stg_runs)")
    root, sql = Path(data_root).resolve(), Path(sql_dir or adat_home() / "sql")
    refresh_catalog(root, sql)
    db = catalog_path(root)
    wanted = list(dict.fromkeys(run_ids))

    def query(name: str) -> pd.DataFrame:
        frame = run_query(db, resolve_query(name, sql), {"run_id": None, "n": None, "faults": None}).to_pandas()
        return frame[frame["run_id"].astype(str).isin(wanted)] if "run_id" in frame else frame

    runs = query("stg_runs").drop_duplicates("run_id").set_index("run_id")
    unknown = [r for r in wanted if r not in runs.index]
    if unknown:
        raise UserError(f"no run {', '.join(unknown)} in the warehouse {root}", field="RUN_ID",
                        fix="list runs with `adat sql stg_runs` (and pass the same --data-dir)")
    m = _Metrics({name: query(name) for name in _METRICS})
    info = {r: _RunInfo(r, str(runs.at[r, "selector"] or ""), m.kinds(r)) for r in wanted}
    rq2_runs = _rq2_runs(m, info)
    return {"rq1": _rq1(m, info), "rq2_runs": rq2_runs, "rq2": _rq2(rq2_runs), "rq3": _rq3(m, info),
            "rq4": _rq4(m, info)}


class _RunInfo:
    def __init__(self, run_id: str, selector: str, kinds: list[str]) -> None:
        self.run_id, self.selector, self.kinds = run_id, selector, kinds

    @property
    def method(self) -> str:
        """AdaT2 (or the selector that replaced its own), AgentEval, direct, or the test kinds."""
        kinds = set(self.kinds)
        if kinds & {"plain", "transformed"}:
            return "AdaT2" if self.selector in ("", "adat2") else f"AdaT2 ({self.selector})"
        names = {"agenteval": "AgentEval", "direct": "direct", "spec": "spec"}
        return " + ".join(names.get(k, k) for k in sorted(kinds)) or "(no tests)"


class _Metrics:
    """The metric frames, with lookups of one value by run (and kind / variant / fault)."""

    def __init__(self, frames: dict[str, pd.DataFrame]) -> None:
        self.frames = frames

    def get(self, metric: str, column: str, run_id: str, **keys: str) -> Any:
        frame = self.frames[metric]
        mask = frame["run_id"].astype(str) == run_id
        for key, value in keys.items():
            mask &= frame[key].astype(str) == value
        values = frame.loc[mask, column].tolist()
        return None if not values or _missing(values[0]) else values[0]

    def labels(self, run_id: str, column: str, *, variant: str = "original", kind: str = "all") -> Any:
        """A count of the auditor's execution labels of ``run_id`` on ``variant``, for tests of ``kind``."""
        return self.get("execution_label_counts", column, run_id, agent_variant=variant, kind=kind)

    def kinds(self, run_id: str) -> list[str]:
        frame = self.frames["counted_tests"]
        return [str(k) for k in frame.loc[frame["run_id"].astype(str) == run_id, "kind"] if str(k) != "all"]

    def audited(self, run_id: str, kind: str) -> bool:
        return bool(self.get("counted_tests", "audited", run_id, kind=kind) or 0)

    def generation(self, run_id: str, kind: str, *, extra: bool = False) -> Row:
        """C, V/C, V_E/C, U, P of a run's tests of ``kind`` (rates and coverage only when audited)."""
        audited = self.audited(run_id, kind)
        u, p = ("u_extra", "p_extra") if extra else ("u", "p")
        return {"C": self.get("counted_tests", "counted", run_id, kind=kind),
                "V/C %": _pct(self.get("validity_rate", "validity_rate", run_id, kind=kind)) if audited else None,
                "V_E/C %": _pct(self.get("explicit_validity_rate", "explicit_validity_rate", run_id, kind=kind))
                if audited else None,
                "U": self.get("distinct_boundaries", u, run_id, kind=kind),
                "P": self.get("distinct_sides", p, run_id, kind=kind)}


def _rq1(m: _Metrics, info: dict[str, _RunInfo]) -> pd.DataFrame:
    rows = []
    for run in info.values():
        for kind in [*run.kinds, "all"]:
            rows.append({"run_id": run.run_id, "method": run.method, "kind": kind,
                         **m.generation(run.run_id, kind, extra=kind == "transformed"),
                         "TP": m.labels(run.run_id, "tp", kind=kind)})
    return pd.DataFrame(rows, columns=["run_id", "method", "kind", "C", "V/C %", "V_E/C %", "U", "P", "TP"])


def _rq2_runs(m: _Metrics, info: dict[str, _RunInfo]) -> pd.DataFrame:
    rows = []
    for run in info.values():
        r = run.run_id
        attempts = m.get("attempts_until_n", "attempts", r)
        if attempts is None:
            continue  # no transformation attempts: not a selector run
        reached = bool(m.get("attempts_until_n", "reached_n_target", r))
        gen = m.generation(r, "transformed", extra=True) if "transformed" in run.kinds else {}
        rows.append({"run_id": r, "selector": run.selector or "?", "attempts": attempts,
                     "tests": m.get("attempts_until_n", "transformed_tests", r),
                     "n": m.get("attempts_until_n", "n_target", r),
                     "N_n": m.get("attempts_until_n", "attempts_until_n", r) if reached else None,
                     "n/a %": _pct(m.get("not_applicable_share", "not_applicable_share", r)),
                     "U": gen.get("U"), "P": gen.get("P"), "V/C %": gen.get("V/C %"), "V_E/C %": gen.get("V_E/C %"),
                     "F_V": m.get("failed_valid_tests", "failed_valid_tests", r, kind="transformed")
                     if m.audited(r, "transformed") else None,
                     "Top %": _pct(m.get("top_instruction_share", "top_share", r))})
    return pd.DataFrame(rows, columns=["run_id", "selector", "attempts", "tests", "n", "N_n", "n/a %", "U", "P",
                                       "V/C %", "V_E/C %", "F_V", "Top %"])


def _rq2(runs: pd.DataFrame) -> pd.DataFrame:
    columns = ["selector", "vs", "runs", *_RQ2_DIFF, "Top %"]
    if runs.empty:
        return pd.DataFrame([], columns=columns)
    means = {sel: {c: _mean(group[c]) for c in (*_RQ2_DIFF, "Top %")} | {"runs": len(group)}
             for sel, group in runs.groupby("selector", sort=False)}
    base = means.get("adat2")
    order = sorted(means, key=lambda s: s != "adat2")  # adat2 first, the rest as given
    rows = []
    for sel in order:
        row: Row = {"selector": sel, "vs": "", "runs": means[sel]["runs"], "Top %": means[sel]["Top %"]}
        if base is None or sel == "adat2":
            row |= {c: means[sel][c] for c in _RQ2_DIFF}
        else:
            row["vs"] = "Δ adat2"
            row |= {c: _difference(means[sel][c], base[c]) for c in _RQ2_DIFF}
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def _rq3(m: _Metrics, info: dict[str, _RunInfo]) -> pd.DataFrame:
    rows = []
    for run in info.values():
        r = run.run_id
        labelled, inc = m.labels(r, "labelled"), m.labels(r, "inc")
        rows.append({"run_id": r, "method": run.method, **m.generation(r, "all"), "TP": m.labels(r, "tp"),
                     "INC %": _pct(inc / labelled) if labelled else None,
                     "Acc. %": _pct(m.get("accuracy", "accuracy", r, agent_variant="original")),
                     "FAR %": _pct(m.get("false_alarm_rate", "false_alarm_rate", r, agent_variant="original"))})
    return pd.DataFrame(rows, columns=["run_id", "method", "C", "V/C %", "V_E/C %", "U", "P", "TP", "INC %",
                                       "Acc. %", "FAR %"])


def _rq4(m: _Metrics, info: dict[str, _RunInfo]) -> pd.DataFrame:
    labels = ("TP", "FP", "FN", "TN", "INC")
    rows = []
    detection = m.frames["fault_detection"]
    for run in info.values():
        r = run.run_id
        faults = [str(f) for f in detection.loc[detection["run_id"].astype(str) == r, "fault"]]
        totals: Row = dict.fromkeys(labels, None)
        for fault in faults:
            row: Row = {"run_id": r, "method": run.method, "fault": fault,
                        "tests run": m.get("fault_detection", "tests_run", r, fault=fault)}
            for name in labels:
                row[name] = m.labels(r, name.lower(), variant=fault)
                if row[name] is not None:
                    totals[name] = (totals[name] or 0) + row[name]
            # RQ4 counts the auditor's detections only: a fault nobody audited (a run-suite run on
            # it, detected by pass -> fail alone) has no figure here
            audited = m.get("fault_detection", "detecting_tests", r, fault=fault) is not None
            row["detected"] = int(bool(m.get("fault_detection", "detected", r, fault=fault))) if audited else None
            row["detected / seeded %"] = row["MS %"] = None
            rows.append(row)
        # the paper's RQ4 figure is detected / seeded (issue 28); MS (killed / activated) beside it
        rows.append({"run_id": r, "method": run.method, "fault": "all" if faults else MISSING,
                     "tests run": None, **totals,
                     "detected": m.get("seeded_fault_detection", "detected", r),
                     "detected / seeded %": _pct(m.get("seeded_fault_detection", "detection_rate", r)),
                     "MS %": _pct(m.get("mutation_score", "mutation_score", r, kind="fault"))})
    return pd.DataFrame(rows, columns=["run_id", "method", "fault", "tests run", *labels, "detected",
                                       "detected / seeded %", "MS %"])


def render_tables(tables: dict[str, pd.DataFrame], fmt: str = "table", only: str | None = None) -> str:
    """The tables as text: ``table`` (boxes with titles) or ``csv`` (one block per table, each after
    a ``# name: title`` line; with ``only`` just that table's CSV). Missing values print as ``—``."""
    from adat.warehouse import format_table

    if only is not None and only not in tables:
        raise UserError(f"no table {only!r}", field="--table", fix=f"use one of {', '.join(tables)}")
    names = [only] if only else list(tables)
    blocks = []
    for name in names:
        text = format_table(_as_text(tables[name]), fmt) or ""
        if fmt == "table":
            blocks.append(f"{TITLES.get(name, name)}\n{text}")
        else:
            blocks.append(text if only else f"# {name}: {TITLES.get(name, name)}\n{text}")
    return "\n".join(blocks)


def _as_text(frame: pd.DataFrame) -> Any:
    import pyarrow as pa

    signed = frame["vs"].astype(str).str.startswith("Δ").tolist() if "vs" in frame else [False] * len(frame)
    columns = {c: [_cell(v, sign=signed[i] and c in _RQ2_DIFF) for i, v in enumerate(frame[c].tolist())]
               for c in frame.columns}
    return pa.table({c: pa.array(v, pa.string()) for c, v in columns.items()})


def _cell(value: Any, *, sign: bool = False) -> str:
    if _missing(value):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        number = float(value)
        text = str(int(number)) if number.is_integer() else f"{number:.1f}"
        return f"+{text}" if sign and number > 0 else text
    return str(value)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value is pd.NA


def _pct(value: Any) -> float | None:
    return None if _missing(value) else 100.0 * float(value)


def _difference(value: Any, base: Any) -> float | None:
    return None if value is None or base is None else float(value) - float(base)


def _mean(values: pd.Series) -> float | None:
    present = [float(v) for v in values.tolist() if not _missing(v)]
    return sum(present) / len(present) if present else None
