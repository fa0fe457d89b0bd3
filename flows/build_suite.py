"""Flow ``build_suite``: statements → grounding → process checks, plain tests (executed, judged) → transformed tests."""

from __future__ import annotations

from prefect import flow

from adat.config import RunConfig
from adat.engine.context import StepResult
from flows.execute import execute
from tasks import stage_tasks as t
from tasks.stage_factory import bind


@flow(name="adat-build-suite", flow_run_name="{run_id}-build-suite", log_prints=True)
def build_suite(config: RunConfig, run_id: str, after: StepResult | None = None,
                refresh: bool | list[str] = False) -> StepResult:
    """Build the test suite of run ``run_id`` from its discovery traces."""
    cfg = config
    upstream = after or StepResult(run_id=run_id, step="discovery")
    extracted = bind(t.extract, cfg, refresh=refresh)(cfg, run_id, upstream)
    grounded = bind(t.ground, cfg, refresh=refresh)(cfg, run_id, extracted)
    checks = bind(t.map_process_checks, cfg, refresh=refresh)(cfg, run_id, grounded)
    plain = bind(t.generate_plain, cfg, refresh=refresh)(cfg, run_id, grounded)
    executed = execute(cfg, run_id, kind="plain", refresh=refresh, after=(plain, checks))
    priors = bind(t.selection_priors, cfg, refresh=refresh)(cfg, run_id, grounded)
    return bind(t.transform, cfg, refresh=refresh)(cfg, run_id, executed, priors=priors)
