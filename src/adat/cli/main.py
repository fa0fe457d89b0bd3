"""``adat`` — black-box boundary testing of tool-using LLM agents.

Every command that can fail because of the user's input prints one line naming the file, the
field and a fix, and exits with code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
import yaml

from adat.cli.app import AdatTyper, fail, skip_teardown_at_exit, terminal_console, warehouse_root
from adat.cli.compare_cmd import ablation, baselines, compare
from adat.cli.report_cmd import diff, export_app, report, show
from adat.cli.server_cmd import server_app
from adat.cli.spec import spec_app
from adat.config import (
    RunConfig,
    adat_home,
    check_run_id,
    demo_config_path,
    load_run_config,
)

console = terminal_console()
app = AdatTyper(
    name="adat",
    help="Black-box boundary tests for tool-using LLM agents: discover, extract statements, generate "
    "plain and transformed tests, execute, judge, audit. Artifacts are Parquet; metrics are DuckDB SQL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
config_app = AdatTyper(help="Validate and inspect run-config YAML files.", no_args_is_help=True)
app.add_typer(config_app, name="config")
app.add_typer(spec_app, name="spec")
app.add_typer(export_app, name="export")
app.add_typer(server_app, name="server")


def _version(value: bool) -> None:
    if value:
        from adat import __version__

        console.print(f"adat {__version__}", markup=False)
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print adat's version and exit.")] = False) -> None:
    """Black-box boundary tests for tool-using LLM agents."""

DataDir = Annotated[Path | None, typer.Option("--data-dir", help="Warehouse root (default: the config's data_dir).")]


def _with_data_dir(cfg: RunConfig, data_dir: Path | None) -> RunConfig:
    return cfg.model_copy(update={"data_dir": str(data_dir.resolve())}) if data_dir else cfg


@config_app.command("check")
def config_check(file: Annotated[Path, typer.Argument(help="Run-config YAML to validate.")],
                 probe: Annotated[bool, typer.Option("--probe", help="Ask each openai model's endpoint which "
                                                     "structured-output form it accepts (and cache it).")] = False,
                 ) -> None:
    """Validate FILE against the run-config schema; print the resolved target and models."""
    cfg = load_run_config(file)
    console.print(f"{file}: ok — target {cfg.target.type}, selector {cfg.selector.name}, "
                  f"{cfg.discovery.sessions} discovery sessions, n={cfg.generation.n}")
    modes = _probe_modes(cfg) if probe else {}
    for role, model in cfg.models.model_dump().items():
        line = f"  {role:<10} {model}"
        if probe:
            line += f"  output: {modes.get(model, 'n/a (not an openai endpoint)')}"
        console.print(line, markup=False)


def _probe_modes(cfg: RunConfig) -> dict[str, str]:
    """Model spec -> the structured-output mode its endpoint takes, probed now (``config check --probe``)."""
    from adat.llm.providers.openai_chat import OpenAIProvider
    from adat.llm.providers.registry import default_registry

    registry, modes = default_registry(), {}
    for spec in dict.fromkeys(cfg.models.model_dump().values()):
        _, model, provider = registry.create(spec, cfg)
        if isinstance(provider, OpenAIProvider):
            provider.check(model, cfg.llm.timeout_s)
            modes[spec] = provider.output_mode(cfg, model, force=True).line()
    return modes


@config_app.command("show-defaults")
def config_show_defaults() -> None:
    """Print every setting with its default, as YAML you can copy into a run config."""
    console.print(yaml.safe_dump(RunConfig().model_dump(mode="json"), sort_keys=False), markup=False)


@app.command("sql")
def sql(
    name: Annotated[str, typer.Argument(help="Query name in sql/ (e.g. validity_rate) or a .sql file path.")],
    run: Annotated[str | None, typer.Option("--run", help="Bind $run_id (queries filter on it when given).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table | csv | parquet")] = "table",
    out: Annotated[Path | None, typer.Option("--out", help="Write csv/parquet here instead of stdout.")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="Bind another parameter: NAME=VALUE.")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="Table format: also show JSON and wide nested columns.")] = False,
    data_dir: DataDir = None,
) -> None:
    """Run a query from sql/ against the DuckDB catalog (rebuilt first) with bound parameters."""
    from adat.warehouse.sql_runner import sql_command

    if fmt not in ("table", "csv", "parquet"):
        fail(f"unknown format {fmt!r}", field="--format", fix="use table, csv or parquet")
    root = warehouse_root(data_dir)
    if run is not None:
        check_run_id(run, field="--run")
    params: dict[str, object] = {}
    for item in param or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            fail(f"bad parameter {item!r}", field="--param", fix="write NAME=VALUE, e.g. --param n=50")
        params[key.strip()] = int(value) if value.strip().lstrip("-").isdigit() else value
    text = sql_command(root, adat_home() / "sql", name, run, fmt, out, params=params or None, wide=wide)
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")  # verbatim: CSV must not be re-wrapped


@app.command("catalog")
def catalog(data_dir: DataDir = None) -> None:
    """Rebuild data/adat.duckdb (views over every Parquet table + sql/staging + sql/intermediate), atomically."""
    from adat.warehouse.catalog import build_catalog

    root = warehouse_root(data_dir)
    path = build_catalog(root, adat_home() / "sql")
    console.print(f"catalog: {path}  (open read-only: duckdb -readonly {path})")


@app.command("serve-agent")
def serve_agent(
    kind: Annotated[str, typer.Argument(help="reference | llm-agent")],
    fault: Annotated[str | None, typer.Option("--fault", help="Seeded fault id (adat faults).")] = None,
    port: Annotated[int, typer.Option("--port", help="TCP port on 127.0.0.1.")] = 8765,
    config: Annotated[Path | None, typer.Option("--config", help="Run config (llm-agent model, llm settings).")] = None,
) -> None:
    """Serve an agent over HTTP in the http target's default contract (POST /sessions, .../messages)."""
    from adat.serving import serve_agent_command

    if kind not in ("reference", "llm-agent"):
        fail(f"unknown agent kind {kind!r}", field="KIND", fix="use reference or llm-agent")
    cfg = load_run_config(config) if config else RunConfig()
    serve_agent_command(kind, fault, port, cfg)


@app.command("faults")
def faults() -> None:
    """List the seeded policy faults of the reference domain (catalogs/faults/retail)."""
    from adat.agents.reference.faults import list_faults, load_fault

    for fault_id in list_faults():
        console.print(f"{fault_id:<36} {load_fault(fault_id).title}", markup=False)


def _run_flow(flow_name: str, **params: object) -> object:
    from adat.cli.flow_loader import run_flow

    return run_flow(flow_name, **params)


@app.command("run")
def run(
    config: Annotated[Path, typer.Option("--config", "-c", help="Run-config YAML (adat config show-defaults).")],
    data_dir: DataDir = None,
    refresh: Annotated[list[str] | None, typer.Option(
        "--refresh", help="Recompute STAGE and every stage after it (repeatable; 'all' = every stage).")] = None,
) -> None:
    """Run the whole AdaT2 pipeline (discover → statements → plain + transformed tests → execute → judge)."""
    from adat.pipeline.preflight import preflight

    cfg = _with_data_dir(load_run_config(config), data_dir)
    forced = _refresh_stages(refresh)
    for line in preflight(cfg):
        if line.startswith("output mode"):  # which structured-output form each model's endpoint takes
            console.print(line, markup=False)
    from adat.report import print_run_summary  # after preflight: a bad input fails without loading pandas

    result = _run_flow("pipeline", config=cfg, refresh=forced)
    print_run_summary(console, cfg, str(result))


def _refresh_stages(names: list[str] | None) -> bool | list[str]:
    """``--refresh`` values: True for 'all', else the stage names (an unknown one is a user error)."""
    from adat.pipeline.stages import STAGES

    if not names:
        return False
    if "all" in names:
        return True
    unknown = [n for n in names if n not in STAGES]
    if unknown:
        fail(f"unknown stage {unknown[0]!r}", field="--refresh", fix=f"use all or one of {', '.join(STAGES)}")
    return list(names)


@app.command("run-suite")
def run_suite(
    config: Annotated[Path, typer.Option("--config", "-c", help="Run config naming the target to test.")],
    suite: Annotated[str, typer.Option("--suite", help="run_id whose tests to execute.")],
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="Exit 1 when a test fails (fail) or when a "
                                                "test that passed in the suite run fails (regression).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Execute and judge an existing suite against the config's target (e.g. a new agent version)."""
    from adat.pipeline.unchanged import is_unchanged, remember, run_suite_key, stored_summary
    from adat.report import print_run_summary

    if fail_on is not None:
        from adat.reporting.run_diff import FAIL_ON_MODES  # loads numpy and DuckDB: only when asked

        if fail_on not in FAIL_ON_MODES:
            fail(f"unknown mode {fail_on!r}", field="--fail-on", fix=f"use {' or '.join(FAIL_ON_MODES)}")
    cfg = _with_data_dir(load_run_config(config), data_dir)
    check_run_id(suite, field="--suite")
    key = run_suite_key(cfg, suite)
    # A completed run under this key had the suite's tests and is a run-suite run (check_run_suite
    # holds): the answer needs no Parquet, no DuckDB, no provider and no flow.
    if is_unchanged(cfg, "run_suite", key):  # every task would be a cache hit: no flow to start
        skip_teardown_at_exit()
        console.print(f"run {cfg.run_id}: unchanged (same suite, config, code and target as its completed run); "
                      "nothing re-executed, no flow run started", markup=False)
        result: object = cfg.run_id
        print_run_summary(console, cfg, str(result), summary=stored_summary(cfg, "run_suite", key))
    else:
        from adat.pipeline.preflight import preflight
        from adat.pipeline.suite import check_run_suite

        check_run_suite(cfg, suite)
        preflight(cfg)
        result = _run_flow("run_suite", config=cfg, suite_run_id=suite)
        summary = print_run_summary(console, cfg, str(result))
        if summary.get("status") == "completed":
            remember(cfg, "run_suite", str(result), key, summary)
    if fail_on:
        from adat.reporting.run_diff import gate_failures

        failures = gate_failures(cfg.data_path(), str(result), suite, fail_on)
        for r in failures:
            console.print(f"{r['change']:<14} {r['test_id']} ({r['kind']})", markup=False)
        if failures:
            console.print(f"--fail-on {fail_on}: {len(failures)} test(s); exit 1", markup=False)
            raise typer.Exit(1)


@app.command("demo")
def demo(
    data_dir: DataDir = None,
    evaluate: Annotated[bool, typer.Option("--evaluate", help="Also audit, label and run the seeded faults.")] = False,
) -> None:
    """Run the whole pipeline offline: built-in reference agent + offline/heuristic provider.

    Results come from the rule-based offline/heuristic stand-in, not from a language model.
    """
    from adat.pipeline.preflight import preflight
    from adat.report import print_run_summary

    cfg = _with_data_dir(load_run_config(demo_config_path()), data_dir)
    preflight(cfg)
    console.print("[bold]adat demo[/bold] — reference retail agent, every tester role played by "
                  "[yellow]offline/heuristic[/yellow] (a deterministic rule-based stand-in, not an LLM)")
    result = _run_flow("pipeline", config=cfg)
    print_run_summary(console, cfg, str(result))
    if evaluate:
        from adat.evaluation.report import print_evaluation

        evaluation = _run_flow("evaluate", config=cfg, suite_run_id=str(result))
        print_evaluation(console, cfg, evaluation)


@app.command("evaluate")
def evaluate(
    config: Annotated[Path, typer.Option("--config", "-c", help="The run config the suite was built with.")],
    run: Annotated[str, typer.Option("--run", help="The suite run to evaluate.")],
    data_dir: DataDir = None,
) -> None:
    """Audit a run's tests, label its executions, run it on the seeded faults, print the metrics.

    The reference agent is audited from its side log (no LLM); any other target needs an LLM in the
    auditor role and the artifacts listed in evaluation.artifacts.
    """
    from adat.evaluation.report import print_evaluation

    cfg = _with_data_dir(load_run_config(config), data_dir)
    _check_evaluation(cfg, run, None)
    print_evaluation(console, cfg, _run_flow("evaluate", config=cfg, suite_run_id=run))


@app.command("regress")
def regress(
    config: Annotated[Path, typer.Option("--config", "-c", help="The run config the suite was built with.")],
    run: Annotated[str, typer.Option("--run", help="The suite run to test on the faulty variants.")],
    fault: Annotated[list[str] | None, typer.Option("--fault", help="Fault id (repeatable); default: all.")] = None,
    data_dir: DataDir = None,
) -> None:
    """Run a suite on seeded faulty variants of the agent and print the per-fault detection table."""
    from adat.evaluation.report import print_evaluation

    cfg = _with_data_dir(load_run_config(config), data_dir)
    _check_evaluation(cfg, run, fault or None)
    print_evaluation(console, cfg, _run_flow("regress", config=cfg, suite_run_id=run, faults=fault or None))


def _check_evaluation(cfg: RunConfig, run: str, faults: list[str] | None) -> None:
    """Fail before any flow starts: bad or unknown run, unknown fault, no usable auditor, preflight."""
    from adat.evaluation.steps import evaluation_faults, uses_reference_auditor
    from adat.pipeline.preflight import preflight
    from adat.warehouse import read_records

    check_run_id(run, field="--run")
    warehouse_root(cfg.data_path())
    if not read_records(cfg.data_path(), "tests", run_id=run):
        fail(f"run {run!r} has no tests in {cfg.data_path()}", field="--run",
             fix="pass a run id from `adat sql stg_runs`, or --data-dir of the warehouse it is in")
    uses_reference_auditor(cfg)
    evaluation_faults(cfg, faults)
    preflight(cfg)


app.command("compare")(compare)
app.command("report")(report)
app.command("diff")(diff)
app.command("show")(show)
app.command("baselines")(baselines)
app.command("ablation")(ablation)


def main() -> None:
    app()
