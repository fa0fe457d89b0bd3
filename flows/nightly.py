"""Flow ``nightly``: the scheduled deployment — load a run-config file, run the pipeline (and,
with ``evaluate``, the evaluation), write the HTML report, and publish on this flow run the
night's summary next to the previous night of the same config, with what changed and links.

Deploy with ``prefect deploy --all`` (prefect.yaml) or serve locally with
``python -m flows.nightly --config my-run.yaml --cron "0 2 * * *" [--evaluate]`` (from the
checkout, or from anywhere once adat is installed). The applicability history that the
selector's prior learns from grows with every night's run in the same warehouse.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prefect import flow, get_run_logger
from prefect.runtime import flow_run

from adat.config import load_run_config
from adat.evaluation.steps import evaluation_faults
from flows._artifacts import publish, publish_report_link
from flows._names import nightly_name, nightly_run_id
from flows.evaluate import evaluate as evaluate_flow
from flows.pipeline import pipeline
from tasks.report_tasks import night_artifacts, write_report

#: the deployment ``python -m flows.nightly`` serves: adat-nightly/adat-nightly
DEPLOYMENT = "adat-nightly"


@flow(name="adat-nightly", flow_run_name=nightly_name, log_prints=True)
def nightly(config_path: str, run_prefix: str = "nightly", evaluate: bool = False) -> str:
    """Run the pipeline for ``config_path`` as run ``<run_prefix>-<scheduled start>``
    (``nightly-20261130-0200``); with ``evaluate``, audit it and run the seeded faults too."""
    log = get_run_logger()
    run_id = nightly_run_id(run_prefix)
    cfg = load_run_config(config_path).model_copy(update={"run_id": run_id})
    log.info("night %s: config %s, data %s", run_id, config_path, cfg.data_path())
    done = pipeline(cfg, publish=False)
    faults = evaluation_faults(cfg) if evaluate else None
    if evaluate:
        evaluate_flow(cfg, done)
    report = write_report(cfg, done, same_config=True)
    log.info("report: %s", report)
    publish_report_link(report, done)
    publish(night_artifacts(cfg, done, report, faults, evaluate, flow_run.ui_url))
    return done


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the nightly adat deployment on a cron schedule.")
    parser.add_argument("--config", required=True, help="run-config YAML")
    parser.add_argument("--cron", default="0 2 * * *", help="cron schedule (default: 02:00 every day)")
    parser.add_argument("--evaluate", action="store_true", help="also audit each night and run the seeded faults")
    args = parser.parse_args(argv)
    from adat.errors import UserError

    try:  # a bad config fails now, in one line, not every night at 02:00
        load_run_config(args.config)
    except UserError as exc:
        parser.exit(2, f"{exc}\n")
    from prefect import serve
    from prefect.types.entrypoint import EntrypointType

    # The deployment names the importable module (not this __main__), and each run imports it
    # afresh in `python -m prefect.engine` (flow.serve would pickle the flow and its local modules).
    from flows.nightly import nightly as served

    serve(served.to_deployment(name=DEPLOYMENT, cron=args.cron, entrypoint_type=EntrypointType.MODULE_PATH,
                               parameters={"config_path": str(Path(args.config).resolve()),
                                           "evaluate": args.evaluate}))


if __name__ == "__main__":
    main()
