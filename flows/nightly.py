"""Flow ``nightly``: the scheduled deployment — load a run-config file, run the pipeline, write
the HTML report and link it from the flow run's artifacts, with the diff against the previous
night (the previous run of the same flow and target).

Deploy with ``prefect deploy --all`` (prefect.yaml) or serve locally with
``python -m flows.nightly --config my-run.yaml --cron "0 2 * * *"`` (from the checkout, or from
anywhere once adat is installed). The applicability history that the selector's prior learns
from grows with every night's run in the same warehouse.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from prefect import flow

from adat.config import load_run_config
from flows._artifacts import publish_diff, publish_report_link
from flows.pipeline import pipeline
from tasks.report_tasks import diff_previous_run, write_report


@flow(name="adat-nightly", log_prints=True)
def nightly(config_path: str, run_prefix: str = "nightly") -> str:
    """Run the pipeline for ``config_path`` with a dated run id (``nightly-20261130-0200``)."""
    cfg = load_run_config(config_path)
    run_id = f"{run_prefix}-{datetime.now(UTC):%Y%m%d-%H%M}"
    cfg = cfg.model_copy(update={"run_id": run_id})
    done = pipeline(cfg)
    publish_report_link(write_report(cfg, done), done)
    publish_diff(diff_previous_run(cfg, done), done)
    return done


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Serve the nightly adat deployment on a cron schedule.")
    parser.add_argument("--config", required=True, help="run-config YAML")
    parser.add_argument("--cron", default="0 2 * * *", help="cron schedule (default: 02:00 every day)")
    args = parser.parse_args()
    nightly.serve(name="adat-nightly", cron=args.cron, parameters={"config_path": str(Path(args.config).resolve())})
