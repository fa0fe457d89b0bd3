"""``adat`` — black-box boundary testing of tool-using LLM agents.

Every command that can fail because of the user's input prints one line naming the file, the
field and a fix, and exits with code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from adat.cli.app import (
    AdatTyper,
    ConfigDataDir,
    check_data_dir_option,
    check_out_file,
    command_config,
    fail,
    skip_teardown_at_exit,
    terminal_console,
    warehouse_root,
)
from adat.cli.compare_cmd import ablation, baselines, compare
from adat.cli.flow_loader import run_flow as _run_flow
from adat.cli.report_cmd import diff, export_app, report, serve_reports, show
from adat.cli.server_cmd import server_app
from adat.cli.spec_cmd import spec_app
from adat.cli.suite_cmd import suite_app
from adat.config import (
    MAX_REPEAT,
    RunConfig,
    adat_home,
    check_run_id,
    demo_config_path,
    load_run_config,
)
from adat.engine.config_checks import COMMAND_ROLES

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
app.add_typer(suite_app, name="suite")


def _version(value: bool) -> None:
    if value:
        from adat import __version__

        console.print(f"adat {__version__}", markup=False)
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print adat's version and exit.")] = False) -> None:
    """Black-box boundary tests for tool-using LLM agents."""



@config_app.command("check")
def config_check(
    file: Annotated[Path, typer.Argument(help="Run-config YAML to validate.")],
    command: Annotated[str, typer.Option("--for", help="The command the config is for: "
                                         f"{', '.join(COMMAND_ROLES)} (its roles must be named unless the "
                                         "target is reference).")] = "run",
    probe: Annotated[bool, typer.Option("--probe", help="Ask each openai model's endpoint which "
                                        "structured-output form it accepts (and cache it).")] = False,
) -> None:
    """Validate FILE against the run-config schema; print the resolved target and models."""
    if command not in COMMAND_ROLES:
        fail(f"unknown command {command!r}", field="--for", fix=f"use one of {', '.join(COMMAND_ROLES)}")
    cfg = command_config(file, None, command)
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
    from adat.llm.providers.provider_registry import default_registry

    registry, modes = default_registry(), {}
    for spec in dict.fromkeys(cfg.models.model_dump().values()):
        _, model, provider = registry.create(spec, cfg)
        if isinstance(provider, OpenAIProvider):
            provider.check(model, cfg.llm.timeout_s)
            modes[spec] = provider.output_mode(cfg, model, force=True).line()
    return modes


@config_app.command("show-defaults")
def config_show_defaults() -> None:
    """Print every setting with its default and description, as YAML you can copy into a run config."""
    from adat.config_defaults import commented_defaults

    sys.stdout.write(commented_defaults())


@app.command("sql")
def sql(
    name: Annotated[str, typer.Argument(help="Query name in sql/ (e.g. validity_rate) or a .sql file path.")],
    run: Annotated[str | None, typer.Option("--run", help="Bind $run_id (queries filter on it when given).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table | csv | parquet")] = "table",
    out: Annotated[Path | None, typer.Option("--out", help="Write csv/parquet here instead of stdout.")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="Bind another parameter: NAME=VALUE.")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="Table format: also show JSON and wide nested columns.")] = False,
    data_dir: ConfigDataDir = None,
) -> None:
    """Run a query from sql/ against the DuckDB catalog (rebuilt first) with bound parameters."""
    from adat.warehouse.sql_runner import sql_command

    if fmt not in ("table", "csv", "parquet"):
        fail(f"unknown format {fmt!r}", field="--format", fix="use table, csv or parquet")
    root = warehouse_root(data_dir)
    check_out_file(out)
    if run is not None:
        check_run_id(run, field="--run")
    params: dict[str, object] = {}
    for item in param or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            fail(f"bad parameter {item[:80]!r}", field="--param", fix="write NAME=VALUE, e.g. --param n=50")
        params[key.strip()] = int(value) if value.strip().lstrip("-").isdigit() else value
    text = sql_command(root, adat_home() / "sql", name, run, fmt, out, params=params or None, wide=wide)
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")  # verbatim: CSV must not be re-wrapped


@app.command("catalog")
def catalog(data_dir: ConfigDataDir = None) -> None:
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
    from adat.targets.plugins import fault_catalog

    faults = fault_catalog("reference")
    for fault_id in faults.fault_ids():
        console.print(f"{fault_id:<36} {faults.load_fault(fault_id).title}", markup=False)


@app.command("run")
def run(
    config: Annotated[Path, typer.Option("--config", "-c", help="Run-config YAML (adat config show-defaults).")],
    data_dir: ConfigDataDir = None,
    refresh: Annotated[list[str] | None, typer.Option(
        "--refresh", help="Recompute STAGE and every stage after it (repeatable; 'all' = every stage).")] = None,
) -> None:
    """Run the whole AdaT2 pipeline (discover → statements → plain + transformed tests → execute → judge)."""
    from adat.engine.preflight import preflight

    cfg = command_config(config, data_dir, "run")
    forced = _refresh_stages(refresh)
    for line in preflight(cfg):
        if line.startswith("output mode"):  # which structured-output form each model's endpoint takes
            console.print(line, markup=False)
    if cfg.run_id:  # another flow's id, or one a running process writes: one line before any flow
        from adat.engine.run_claims import check_run_free

        check_run_free(cfg.data_path(), cfg.run_id, "pipeline")
    from adat.run_figures import print_run_summary  # after preflight: a bad input fails without pandas

    result = _run_flow("pipeline", config=cfg, refresh=forced)
    print_run_summary(console, cfg, str(result))


def _refresh_stages(names: list[str] | None) -> bool | list[str]:
    """``--refresh`` values: True for 'all', else the stage names (an unknown one is a user error)."""
    from adat.engine.stage_registry import STAGES

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
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="Exit 1 when a test fails (fail), its pass rate "
                                                "drops beyond its history (regression; docs/trials.md) or its "
                                                "trials are flaky (flaky).")] = None,
    repeat: Annotated[int | None, typer.Option("--repeat", help="Trials per test, each in a fresh session "
                                               "(default: the config's execution.repeat).")] = None,
    run_id: Annotated[str | None, typer.Option("--run-id", help="Id of this run (default: the config's run_id, "
                                               "else a generated one).")] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Also write the run as JUnit XML here; its "
                                               "failures are the --fail-on gate's (default mode: fail).")] = None,
    data_dir: ConfigDataDir = None,
) -> None:
    """Execute and judge an existing suite against the config's target (e.g. a new agent version)."""
    from adat.engine.unchanged import is_unchanged, remember, run_suite_key, stored_summary
    from adat.run_figures import print_run_summary

    if fail_on is not None:
        from adat.reporting.gate import check_mode  # loads DuckDB: only when asked

        check_mode(fail_on)
    cfg = command_config(config, data_dir, "run-suite")
    check_run_id(suite, field="--suite")
    check_out_file(junit, "--junit", make_parents=True)
    if run_id is not None:
        cfg = cfg.model_copy(update={"run_id": check_run_id(run_id, field="--run-id")})
    if repeat is not None:
        if not 1 <= repeat <= MAX_REPEAT:
            fail(f"{repeat} trials per test", field="--repeat", fix=f"use 1 to {MAX_REPEAT}")
        cfg = cfg.model_copy(update={"execution": cfg.execution.model_copy(update={"repeat": repeat})})
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
        from adat.engine.preflight import preflight
        from adat.stages.execution import check_run_suite

        check_run_suite(cfg, suite)
        preflight(cfg)
        result = _run_flow("run_suite", config=cfg, suite_run_id=suite)
        summary = print_run_summary(console, cfg, str(result))
        if summary.get("status") == "completed":
            remember(cfg, "run_suite", str(result), key, summary)
    _gate(cfg, str(result), suite, fail_on, junit)


def _gate(cfg: RunConfig, run_id: str, suite: str, fail_on: str | None, junit: Path | None) -> None:
    """Trials summary, then the --fail-on gate's lines and the --junit file; exit 1 when the gate fails."""
    if fail_on is None and junit is None and cfg.execution.repeat <= 1:
        return
    from adat.reporting.gate import evaluate_gate, gate_lines
    from adat.reporting.junit import write_junit
    from adat.warehouse.queries import ReportQueries

    queries = ReportQueries(cfg.data_path())
    for row in queries.rows("trial_summary", run_id=run_id):
        console.print(f"trials: {row['tests']} tests × {row['k']} on {row['agent_variant']} — pass^k "
                      f"{row['tests_pass_k']}/{row['tests']}, mean pass rate {row['mean_pass_rate']:.3f}; "
                      f"stable {row['stable']}, agent-flaky {row['agent_flaky']}, judge-flaky {row['judge_flaky']}",
                      markup=False)
    mode = fail_on or "fail"
    gate = evaluate_gate(cfg.data_path(), run_id, suite, mode, queries)
    if junit is not None:
        path = write_junit(cfg.data_path(), run_id, junit, suite_run_id=suite, mode=mode)
        console.print(f"junit: {path} ({len(gate.counted)} failure(s), --fail-on {mode})", markup=False)
    if fail_on is None:
        return
    for line in gate_lines(gate):
        console.print(line, markup=False)
    if gate.counted:
        raise typer.Exit(1)


@app.command("demo")
def demo(
    data_dir: ConfigDataDir = None,
    evaluate: Annotated[bool, typer.Option("--evaluate", help="Also audit, label and run the seeded faults.")] = False,
) -> None:
    """Run the whole pipeline offline: built-in reference agent + offline/heuristic provider.

    Results come from the rule-based offline/heuristic stand-in, not from a language model.
    """
    from adat.engine.preflight import preflight
    from adat.run_figures import print_run_summary

    check_data_dir_option(data_dir)
    cfg = load_run_config(demo_config_path())
    cfg = cfg.model_copy(update={"data_dir": str(data_dir.resolve())}) if data_dir else cfg
    preflight(cfg)
    if evaluate:
        from adat.config import fault_dir

        fault_dir()  # a bad ADAT_FAULT_DIR is one line now, not after the whole pipeline ran
    console.print("[bold]adat demo[/bold] — reference retail agent, every tester role played by "
                  "[yellow]offline/heuristic[/yellow] (a deterministic rule-based stand-in, not an LLM)")
    result = _run_flow("pipeline", config=cfg)
    print_run_summary(console, cfg, str(result))
    if evaluate:
        from adat.evaluation.evaluation_figures import print_evaluation

        evaluation = _run_flow("evaluate", config=cfg, suite_run_id=str(result))
        print_evaluation(console, cfg, evaluation)


@app.command("evaluate")
def evaluate(
    config: Annotated[Path, typer.Option("--config", "-c", help="The run config the suite was built with.")],
    run: Annotated[str, typer.Option("--run", help="The suite run to evaluate.")],
    data_dir: ConfigDataDir = None,
) -> None:
    """Audit a run's tests, label its executions, run it on the seeded faults, print the metrics.

    The reference agent is audited from its side log (no LLM); any other target needs an LLM in the
    auditor role and the artifacts listed in evaluation.artifacts.
    """
    from adat.evaluation.evaluation_figures import print_evaluation

    cfg = command_config(config, data_dir, "evaluate")
    _check_evaluation(cfg, run, None)
    print_evaluation(console, cfg, _run_flow("evaluate", config=cfg, suite_run_id=run))


@app.command("regress")
def regress(
    config: Annotated[Path, typer.Option("--config", "-c", help="The run config the suite was built with.")],
    run: Annotated[str, typer.Option("--run", help="The suite run to test on the faulty variants.")],
    fault: Annotated[list[str] | None, typer.Option("--fault", help="Fault id (repeatable); default: all.")] = None,
    data_dir: ConfigDataDir = None,
) -> None:
    """Run a suite on seeded faulty variants of the agent and print the per-fault detection table."""
    from adat.evaluation.evaluation_figures import print_evaluation

    cfg = command_config(config, data_dir, "regress")
    _check_evaluation(cfg, run, fault or None)
    print_evaluation(console, cfg, _run_flow("regress", config=cfg, suite_run_id=run, faults=fault or None))


def _check_evaluation(cfg: RunConfig, run: str, faults: list[str] | None) -> None:
    """Fail before any flow starts: bad or unknown run, unknown fault, no usable auditor, preflight."""
    from adat.engine.preflight import preflight
    from adat.evaluation.audit import uses_reference_auditor
    from adat.evaluation.evaluation_steps import evaluation_faults
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
app.command("serve-reports")(serve_reports)
app.command("baselines")(baselines)
app.command("ablation")(ablation)


def main() -> None:
    app()
