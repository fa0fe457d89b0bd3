"""Flow ``baselines``: AgentEval and direct generation on the discovery traces of an existing run.

Each baseline gets its own new run (``<run id>-agenteval``, ``<run id>-direct``) holding a copy of
the source run's discovery traces, its generated tests, and their executions and verdicts, so
``adat compare`` can put it next to the AdaT2 run (paper §4.2, RQ3/RQ4).
"""

from __future__ import annotations

from prefect import flow
from prefect.artifacts import create_table_artifact

from adat.config import RunConfig
from flows._run_status import RUN_HOOKS, open_run
from tasks import stage_tasks as t
from tasks.stage_factory import bind

METHODS = {"agenteval": t.generate_agenteval, "direct": t.generate_direct}


@flow(name="adat-baselines", flow_run_name="{discovery_run_id}-baselines", log_prints=True, **RUN_HOOKS)
def baselines(config: RunConfig, discovery_run_id: str, refresh: bool | list[str] = False) -> dict[str, str]:
    """Run both baselines on the discovery traces of ``discovery_run_id``; method -> new run id."""
    runs: dict[str, str] = {}
    rows = []
    for method, generate in METHODS.items():
        run_id = f"{discovery_run_id}-{method}"  # derived: a re-run caches and resumes
        cfg = config.model_copy(update={"run_id": run_id})
        flow_name = f"baseline-{method}"
        open_run(cfg, run_id, flow_name)
        copied = bind(t.copy_source, cfg, refresh=refresh)(cfg, run_id, source_run_id=discovery_run_id,
                                                            scope="traces")
        generated = bind(generate, cfg, refresh=refresh)(cfg, run_id, copied)
        executed = bind(t.execute, cfg, refresh=refresh)(cfg, run_id, generated, kind=method)
        t.finish_run(cfg, run_id, flow_name, after=executed)
        runs[method] = run_id
        rows.append({"method": method, "run_id": run_id, "tests": generated.tables.get("tests", 0),
                     **{k: int(v) for k, v in executed.counts.items()},
                     "stop": str(generated.data.get("stop_reason", ""))})
        print(f"{method}: run {run_id}, {generated.tables.get('tests', 0)} tests, verdicts {dict(executed.counts)}")
    create_table_artifact(key="adat-baselines", table=rows,
                          description=f"baselines on the discovery of run {discovery_run_id}")
    return runs
