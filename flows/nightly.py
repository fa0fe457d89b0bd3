"""Flow ``nightly``: the scheduled deployment — run the config's blessed suite against the agent
(or, with none blessed, generate a suite as every night before), regenerate on the schedule the
config sets, write the HTML report, publish the night on this flow run, and end ``Failed`` when
a test newly fails or a seeded fault survives (docs/suites.md, "The nightly flow").

Deploy with ``prefect deploy --all`` (prefect.yaml) or serve locally with
``python -m flows.nightly --config my-run.yaml --cron "0 2 * * *" [--evaluate]`` (from the
checkout, or from anywhere once adat is installed); serving also serves the reports over HTTP
(``--reports-port``), so the report link in the artifact opens from the Prefect UI. The
applicability history that the selector's prior learns from grows with every night's run.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from prefect import flow, get_run_logger, tags
from prefect.runtime import flow_run
from prefect.states import Completed, Failed, State

from adat.config import RunConfig, load_run_config
from adat.engine.run_claims import claim_night
from adat.evaluation.evaluation_steps import evaluation_faults
from adat.suites.schedule import REGEN_SUFFIX, NightPlan, plan_night
from flows._artifacts import publish, publish_report_link
from flows._names import nightly_name, nightly_run_id
from flows.evaluate import evaluate as evaluate_flow
from flows.pipeline import pipeline
from flows.run_suite import run_suite
from tasks import stage_tasks as t
from tasks.report_tasks import night_artifacts, write_report
from tasks.stage_factory import bind

#: the deployment ``python -m flows.nightly`` serves: adat-nightly/adat-nightly
DEPLOYMENT = "adat-nightly"


def _label_flow_run(run_id: str, labels: list[str]) -> None:
    """Name this flow run by the night's run id (a second night of the same minute gets its own)
    and add the night's tags (offline/live, evaluate, suite:<name>, …) to the ones it has."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        current = client.read_flow_run(flow_run.id)
        client.update_flow_run(flow_run.id, name=run_id, tags=sorted({*current.tags, *labels}))


def _fresh_suite(cfg: RunConfig, plan: NightPlan) -> str | None:
    """Generate tonight's fresh suite next to the blessed one when the plan says so; its run id."""
    fresh_cfg = cfg.model_copy(update={"run_id": f"{cfg.run_id}-{REGEN_SUFFIX}"})
    if plan.discover_first:  # discovery, extraction, grounding under the fresh run id: cached if it goes on
        from adat.reporting.run_diff import statement_diff
        from adat.warehouse.queries import ReportQueries

        run_id = str(fresh_cfg.run_id)
        found = bind(t.discover, fresh_cfg)(fresh_cfg, run_id)
        extracted = bind(t.extract, fresh_cfg)(fresh_cfg, run_id, found)
        bind(t.ground, fresh_cfg)(fresh_cfg, run_id, extracted)
        new = statement_diff(ReportQueries(cfg.data_path()), str(plan.suite_run), run_id).appeared
        get_run_logger().info("discovery tonight: %d statement(s) the blessed suite has no match for", len(new))
        if not new:
            return None
    elif not plan.regenerate:
        return None
    return str(pipeline(fresh_cfg, publish=False))


@flow(name="adat-nightly", flow_run_name=nightly_name, log_prints=True)
def nightly(config_path: str, run_prefix: str = "nightly", evaluate: bool = False,
            reports_url: str | None = None) -> State:
    """One night of ``config_path`` as run ``<run_prefix>-<scheduled start>`` (``nightly-20261130-0200``;
    ``…-<4 hex>`` when another flow run holds that id): the blessed suite, a fresh suite on schedule,
    with ``evaluate`` an audit and the seeded faults. ``reports_url``: where ``<data_dir>/reports``
    is served (default ``nightly.reports_url``). Ends ``Failed`` with one line when a test newly
    fails or a seeded fault survives; ``Completed`` otherwise."""
    log = get_run_logger()
    base = load_run_config(config_path)
    root = base.data_path()
    wanted = nightly_run_id(run_prefix)
    run_id = claim_night(root, wanted, str(flow_run.id))
    if run_id != wanted:
        log.warning("run id %s belongs to another flow run; this night is %s", wanted, run_id)
    cfg = base.model_copy(update={"run_id": run_id})
    plan = plan_night(root, cfg, config_path, datetime.now(UTC))
    labels = plan.tags(cfg, evaluate)
    _label_flow_run(run_id, labels)
    log.info("night %s: config %s, data %s; %s", run_id, config_path, root, plan.reason)
    fresh: str | None = None
    with tags(*labels):
        if plan.suite_run is None:
            done = str(pipeline(cfg, publish=False))
        else:
            done = str(run_suite(cfg, plan.suite_run))
            fresh = _fresh_suite(cfg, plan)
        evaluated = fresh or (done if plan.suite_run is None else None)
        faults = evaluation_faults(cfg) if evaluate and evaluated else None
        if faults is not None and evaluated:
            evaluate_flow(cfg.model_copy(update={"run_id": evaluated}), evaluated)
        elif evaluate:
            log.info("no suite generated tonight: nothing to evaluate (the blessed suite was evaluated when built)")
    report = write_report(cfg, done, same_config=True)
    link = _report_link(reports_url or cfg.nightly.reports_url, root, report)
    log.info("report: %s", link)
    publish_report_link(link, done)
    artifacts = night_artifacts(cfg, done, link, faults, faults is not None, flow_run.ui_url,
                                suite_run=plan.suite_run, fresh=fresh)
    publish(artifacts)
    if artifacts.failure:
        log.error("%s", artifacts.failure)
        return Failed(message=artifacts.failure)
    return Completed(message=f"night {done}: no regression, no surviving fault")


def _report_link(base_url: str | None, root: Path, report: str) -> str:
    """The report's http:// URL when the reports are served; else its path (a file link)."""
    if not base_url:
        return report
    from adat.reporting.report_server import report_url

    return report_url(base_url, root, report)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the nightly adat deployment on a cron schedule, and the "
                                                 "HTML reports over HTTP so the UI's report links open.")
    parser.add_argument("--config", required=True, help="run-config YAML")
    parser.add_argument("--cron", default="0 2 * * *", help="cron schedule (default: 02:00 every day)")
    parser.add_argument("--evaluate", action="store_true", help="also audit each night's fresh suite and run the "
                                                                "seeded faults")
    parser.add_argument("--reports-port", type=int, default=0,
                        help="port serving <data_dir>/reports (default: a free one; -1: do not serve them, "
                             "link nightly.reports_url or the file)")
    parser.add_argument("--reports-host", default="127.0.0.1", help="interface serving the reports")
    args = parser.parse_args(argv)
    from adat.errors import UserError

    try:  # a bad config fails now, in one line, not every night at 02:00
        cfg = load_run_config(args.config)
    except UserError as exc:
        parser.exit(2, f"{exc}\n")
    from prefect import serve
    from prefect.types.entrypoint import EntrypointType

    # The deployment names the importable module (not this __main__), and each run imports it
    # afresh in `python -m prefect.engine` (flow.serve would pickle the flow and its local modules).
    from flows.nightly import nightly as served

    parameters: dict[str, object] = {"config_path": str(Path(args.config).resolve()), "evaluate": args.evaluate}
    if args.reports_port >= 0:
        from adat.reporting.report_server import start_report_server

        url, _server = start_report_server(cfg.data_path(), args.reports_host, args.reports_port)
        print(f"adat reports: {url}/", flush=True)
        parameters["reports_url"] = url
    serve(served.to_deployment(name=DEPLOYMENT, cron=args.cron, entrypoint_type=EntrypointType.MODULE_PATH,
                               parameters=parameters, tags=["adat", "nightly"]))


if __name__ == "__main__":
    main()
