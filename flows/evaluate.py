"""Flow ``evaluate``: audit a suite run, group its mappings, label its executions, run it on the
seeded faults and rebuild the catalog — everything ``print_evaluation`` reports (DESIGN §7–8).

The reference agent is audited from its side log with no LLM; any other target needs an LLM in
the ``auditor`` role and the artifacts named in ``evaluation.artifacts``. All rows go into the
suite run's partition, so ``adat sql <metric> --run <suite_run_id>`` shows them.
"""

from __future__ import annotations

from prefect import flow, get_run_logger

from adat.config import RunConfig
from adat.engine.context import StepResult
from adat.evaluation.audit import uses_reference_auditor
from adat.evaluation.evaluation_steps import evaluation_faults
from flows._artifacts import publish
from flows._fault_runner import prestart_workers
from flows.regress import fault_runner, regress_faults
from tasks import report_tasks as r
from tasks import stage_tasks as e
from tasks.stage_factory import bind


@flow(name="adat-evaluate", flow_run_name="{suite_run_id}-evaluate", log_prints=True, task_runner=fault_runner())
def evaluate(config: RunConfig, suite_run_id: str, refresh: bool | list[str] = False) -> StepResult:
    """Evaluate the suite of run ``suite_run_id``; returns a summary naming the run and the faults.

    Publishes the metrics on this flow run: ``adat-evaluation`` (V/C, V_E/C, FAR, accuracy, mutation
    score), ``adat-fault-detection`` and ``adat-evaluation-summary``."""
    cfg, log = config, get_run_logger()
    uses_reference_auditor(cfg)  # fail fast: a non-reference target needs an LLM auditor
    faults = evaluation_faults(cfg)
    if faults:
        prestart_workers(cfg)
    suite = e.suite_fingerprint(cfg, suite_run_id)
    log.info("evaluating run %s: audit, groupings, labels, then %d seeded fault(s)", suite_run_id, len(faults))
    audited = bind(e.audit, cfg, refresh=refresh)(cfg, suite_run_id, suite)
    log.info("audit: %s", ", ".join(f"{k} {int(v)}" for k, v in sorted(audited.counts.items())) or "no tests")
    grouped = bind(e.group, cfg, refresh=refresh)(cfg, suite_run_id, audited)
    labelled = bind(e.label, cfg, refresh=refresh)(cfg, suite_run_id, audited)
    regressed = regress_faults(cfg, suite_run_id, audited, faults, refresh=refresh)
    e.rebuild_catalog(cfg, suite_run_id, after=[grouped, labelled, *regressed])
    publish(r.evaluation_artifacts(cfg, suite_run_id, faults))
    return StepResult(run_id=suite_run_id, step="evaluate", data={"faults": faults},
                      counts={**{f"validity_{k}": v for k, v in audited.counts.items()},
                              **{f"original_{k}": v for k, v in labelled.counts.items()}})
