"""Flow ``ablation``: test transformation with each selector on the statements of an existing run.

For every selector (and repeat) a new run (``<run id>-<selector>``) gets a copy of the source
run's discovery traces, ranked statements, plain tests and instruction snapshot, and runs only
test transformation with that selector — each transformed test executed and judged at once —
so the runs differ in the selector alone (paper §4.2, RQ2 / Table 3). Every run gets the same θ
priors: the history of the runs before the source run. Repeat r uses seed ``config.seed + r``.
"""

from __future__ import annotations

from prefect import flow
from prefect.artifacts import create_table_artifact

from adat.baselines.baseline_steps import check_selectors
from adat.config import RunConfig, with_selector
from flows._run_status import RUN_HOOKS, open_run
from tasks import stage_tasks as t
from tasks.stage_factory import bind


@flow(name="adat-ablation", flow_run_name="{discovery_run_id}-ablation", log_prints=True, **RUN_HOOKS)
def ablation(config: RunConfig, discovery_run_id: str, selectors: list[str], repeats: int = 1,
             refresh: bool | list[str] = False) -> dict[str, list[str]]:
    """One transformation run per selector and repeat; selector -> its run ids."""
    names = check_selectors(list(selectors))
    priors = t.ablation_priors(config, discovery_run_id)
    runs: dict[str, list[str]] = {}
    rows = []
    for name in names:
        for repeat in range(max(1, repeats)):
            run_id = f"{discovery_run_id}-ablation-{name}"  # derived: a re-run caches and resumes
            run_id += f"-r{repeat + 1}" if repeats > 1 else ""
            cfg = config.model_copy(update={
                "run_id": run_id, "seed": config.seed + repeat,
                "selector": with_selector(config.selector, name)})
            open_run(cfg, run_id, "ablation")
            copied = bind(t.copy_source, cfg, refresh=refresh)(cfg, run_id, source_run_id=discovery_run_id,
                                                                scope="suite_inputs")
            done = bind(t.transform, cfg, refresh=refresh)(cfg, run_id, copied, priors=priors)
            t.finish_run(cfg, run_id, "ablation", after=done)
            runs.setdefault(name, []).append(run_id)
            rows.append({"selector": name, "run_id": run_id, "attempts": done.tables.get("attempts", 0),
                         "transformed_tests": done.tables.get("transformed_tests", 0),
                         "stop": str(done.data.get("stop_reason", ""))})
            print(f"{name}: run {run_id}, {done.tables.get('attempts', 0)} attempts, "
                  f"{done.tables.get('transformed_tests', 0)} transformed tests ({done.data.get('stop_reason', '')})")
    create_table_artifact(key="adat-ablation", table=rows,
                          description=f"selector ablation on the statements of run {discovery_run_id}")
    return runs
