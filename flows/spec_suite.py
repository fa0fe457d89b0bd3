"""Flow ``spec_suite``: one TDAD spec version, end to end (DESIGN §9).

TestSmith writes the visible and hidden tests; PromptSmith compiles the start prompt (the
shipped seed prompt, or for an evolved spec the compiled prompt of its v1 run) on the visible
tests only; every test is rerun k times on the compiled prompt (HPR, pass^k, and for v2 the v1
invariant tests: SURS); MutationSmith's mutants of the compiled prompt are probed and run on
the visible tests (MS). Each stage is a cached task owning its tables; the headline figures,
read from sql/metrics, are published as Prefect artifacts.
"""

from __future__ import annotations

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from adat.config import RunConfig
from adat.engine.context import new_run_id
from adat.engine.run_claims import claim_run, release
from adat.tdad.spec_suite_figures import spec_metrics, summary_for
from adat.tdad.spec_suite_steps import file_digest
from flows._run_status import RUN_HOOKS, remember_run
from tasks import stage_tasks as t
from tasks.stage_factory import bind


@flow(name="adat-spec-suite", log_prints=True, **RUN_HOOKS)
def spec_suite(config: RunConfig, spec_path: str, start: str, pack_path: str | None = None,
               base_run: str | None = None, base_spec_path: str | None = None, stop_after: str = "mutate",
               refresh: bool = False) -> str:
    """Run spec ``spec_path`` from ``start`` (seed artifacts dir or ``run:<v1 run>``); returns the run id.

    ``stop_after`` = compile | reliability | mutate ends the run after that stage.
    """
    run_id = config.run_id or new_run_id()
    cfg = config.model_copy(update={"run_id": run_id})
    claim_run(cfg.data_path(), run_id, "spec_suite")  # held while the flow runs: a live run is never abandoned
    try:
        t.start_spec_run(cfg, run_id)
    except BaseException:
        release(cfg.data_path(), run_id)
        raise
    remember_run(cfg, run_id, "spec_suite", claimed=True)
    seed_dir = None if start.startswith("run:") else start
    tests = bind(t.spec_tests, cfg, refresh=refresh)(cfg, run_id, file_digest(spec_path), spec_path=spec_path)
    compiled = bind(t.compile_prompt, cfg, refresh=refresh)(cfg, run_id, [file_digest(spec_path, seed_dir), tests],
                                                           spec_path=spec_path, start=start)
    done = [compiled]
    if stop_after != "compile":
        done = [bind(t.rerun, cfg, refresh=refresh)(cfg, run_id, [file_digest(spec_path, base_spec_path), compiled],
                                                    spec_path=spec_path, base_run=base_run,
                                                    base_spec_path=base_spec_path)]
    if pack_path and stop_after == "mutate":
        done.append(bind(t.mutate, cfg, refresh=refresh)(cfg, run_id, [file_digest(spec_path, pack_path), done[0]],
                                                        spec_path=spec_path, pack_path=pack_path))
    t.finish_run(cfg, run_id, "spec_suite", after=done)
    lines = summary_for(cfg, run_id, spec_metrics(cfg, run_id))
    create_markdown_artifact(key="adat-spec-suite", markdown="\n".join(lines), description=f"spec suite {run_id}")
    return run_id
