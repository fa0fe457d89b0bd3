"""``adat spec compile | mutate | evolve | run | demo``: the TDAD spec-suite flow from the CLI.

A spec at ``<tdad>/specs/<agent>/<version>/spec.yaml`` finds its seed prompt in
``<tdad>/agent_artifacts/<agent>/`` and its mutation pack in
``<tdad>/mutation_packs/<agent>/mutations.yaml`` unless ``--seed`` / ``--pack`` say otherwise.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from adat.cli.app import check_data_dir_option, fail
from adat.config import MAX_REPEAT, RunConfig, load_run_config

console = Console(highlight=False)
SpecArg = Annotated[Path, typer.Argument(help="TDAD spec YAML (specs/<agent>/<version>/spec.yaml).")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="Run config (models, llm); default offline.")]
DataDir = Annotated[Path | None, typer.Option("--data-dir", help="Warehouse root (default: the config's data_dir).")]
SeedOpt = Annotated[Path | None, typer.Option("--seed", help="Agent artifacts dir with seed_prompt.txt.")]
PackOpt = Annotated[Path | None, typer.Option("--pack", help="Mutation pack YAML.")]
RerunsOpt = Annotated[int | None, typer.Option("--reruns", "-k", help="k of pass^k (default: the spec's).")]
DEMO_AGENTS = ("supportops", "expenseguard")


def _tdad_root(spec: Path) -> Path:
    parents = spec.resolve().parents  # <tdad>/specs/<agent>/<version>/spec.yaml; a shallower path has no layout
    return parents[3] if len(parents) > 3 else parents[-1]


def default_seed(spec: Path) -> Path:
    return _tdad_root(spec) / "agent_artifacts" / spec.resolve().parents[1].name


def default_pack(spec: Path) -> Path | None:
    pack = _tdad_root(spec) / "mutation_packs" / spec.resolve().parents[1].name / "mutations.yaml"
    return pack if pack.is_file() else None


def _config(config: Path | None, data_dir: Path | None, reruns: int | None) -> RunConfig:
    check_data_dir_option(data_dir)
    cfg = load_run_config(config) if config else RunConfig()
    if config and "target" in cfg.model_fields_set:  # the built spec agent stays the default
        cfg = cfg.model_copy(update={"spec_suite": cfg.spec_suite.model_copy(update={"use_target": True})})
    if reruns is not None and not 1 <= reruns <= MAX_REPEAT:
        fail(f"{reruns} reruns", field="--reruns", fix=f"use 1 to {MAX_REPEAT}")
    if data_dir:
        cfg = cfg.model_copy(update={"data_dir": str(data_dir.resolve())})
    if reruns:
        cfg = cfg.model_copy(update={"spec_suite": cfg.spec_suite.model_copy(update={"reruns": reruns})})
    return cfg


def _check_from_run(cfg: RunConfig, run_id: str) -> str:
    """``--from-run`` names a run of this data dir with a compiled prompt: checked before any flow
    starts (a flow would write a failed run row first)."""
    from adat.config import check_run_id
    from adat.warehouse import read_records

    check_run_id(run_id, field="--from-run")
    if not cfg.data_path().is_dir() or not read_records(cfg.data_path(), "compile_iterations", run_id=run_id):
        fail(f"run {run_id} has no compiled prompt in {cfg.data_path()}", field="--from-run",
             fix="pass a run of `adat spec compile` (see `adat sql stg_runs`), or its --data-dir")
    return f"run:{run_id}"


def _check_file(path: Path | None, what: str, option: str) -> None:
    if path is not None and not path.exists():
        fail(f"{what} not found", file=str(path), field=option, fix=f"pass an existing {what}")


def _check_inputs(spec: Path, pack: Path | None, base_spec: Path | None = None) -> None:
    """The spec (and v1 spec) and the pack load: a bad key is one line naming file, key path and
    fix, exit 2, before any flow starts -- not a traceback in the mutate task after tests,
    compilation and reruns ran."""
    from adat.tdad.spec_loader import load_mutation_pack, load_spec

    _check_file(spec, "spec file", "SPEC")
    _check_file(pack, "mutation pack", "--pack")
    load_spec(spec)
    if base_spec is not None:
        load_spec(base_spec)
    if pack is not None:
        load_mutation_pack(pack)


def _require_prompt_agent(cfg: RunConfig, command: str) -> None:
    """``spec compile`` / ``spec mutate`` need an agent that reads the compiled prompt (the built
    spec agent, or an ``llm-agent`` target's model): any other target is one line, exit 2."""
    from adat.tdad.target_fit import target_fit

    fit = target_fit(cfg)
    if not fit.prompt_driven:
        what = "compilation" if command == "compile" else "prompt mutation"
        fail(f"`adat spec {command}` needs an agent that reads the compiled prompt; {fit.label()} does not, "
             f"so {what} cannot change it", field="target.type",
             fix="drop `target:` (the built spec agent) or use `type: llm-agent`; `adat spec run` runs the spec's "
                 "tests on this target as it is")


def _check_target(cfg: RunConfig) -> bool:
    """With ``target:`` in the config the spec tests run against it: it must build and, over
    http, answer -- one line, exit 2, before any flow (never VPR figures of an agent not there).

    ``spec run`` / ``evolve`` on an agent that does not read the prompt run the tests on it and
    skip compilation and prompt mutation, saying so in one line (``compile`` / ``mutate`` refuse
    it first: :func:`_require_prompt_agent`). Returns whether the agent is prompt-driven.
    """
    from adat.tdad.target_fit import target_fit

    if not cfg.spec_suite.use_target:
        return True
    fit = target_fit(cfg)
    from adat.config import PREFLIGHT_TIMEOUT_S
    from adat.targets.http import HttpTarget
    from adat.targets.target_factory import build_target

    if fit.prompt_driven:  # an llm-agent target: the built spec agent on its model
        console.print(f"spec tests run on {fit.label()}; its policy and database are not used: the compiled "
                      "prompt and each test's fixtures take their place", markup=False)
        return True
    target = build_target(cfg.target, cfg)
    if isinstance(target, HttpTarget):
        target.check(timeout_s=PREFLIGHT_TIMEOUT_S)
    console.print(f"spec tests run against target: {cfg.target.type} ({getattr(target, 'agent_id', '?')}); "
                  f"{fit.skipped_line()}", markup=False)
    return False


def _suite(cfg: RunConfig, spec: Path, start: str, *, pack: Path | None = None, base_run: str | None = None,
           base_spec: Path | None = None, stop_after: str = "mutate", run_id: str | None = None) -> str:
    _check_inputs(spec, pack, base_spec)
    if not _check_target(cfg):  # an external agent: its tests run as it is, nothing to mutate
        stop_after, pack = ("compile" if stop_after == "compile" else "reliability"), None
    from adat.cli.flow_loader import call_flow, load_flow, prepare_flow_environment

    if run_id:
        cfg = cfg.model_copy(update={"run_id": run_id})
    prepare_flow_environment(cfg.data_path())
    return str(call_flow(load_flow("spec_suite"), config=cfg, spec_path=str(spec.resolve()), start=start,
                         pack_path=str(pack.resolve()) if pack else None, base_run=base_run,
                         base_spec_path=str(base_spec.resolve()) if base_spec else None, stop_after=stop_after))


def _seed_start(spec: Path, seed: Path | None, cfg: RunConfig | None = None) -> str:
    """The seed artifacts dir; an agent that does not read the prompt needs none (``none``)."""
    from adat.tdad.spec_suite_steps import NO_PROMPT_START
    from adat.tdad.target_fit import target_fit

    _check_file(spec, "spec file", "SPEC")
    chosen = seed or default_seed(spec)
    if cfg is not None and not target_fit(cfg).prompt_driven and seed is None and not (chosen / "seed_prompt.txt").is_file():
        return NO_PROMPT_START
    _check_file(chosen / "seed_prompt.txt", "seed prompt", "--seed")
    return str(chosen.resolve())


def _print(cfg: RunConfig, run_id: str) -> None:
    from adat.tdad.spec_suite_figures import spec_metrics, summary_for

    for line in summary_for(cfg, run_id, spec_metrics(cfg, run_id)):
        console.print(line, markup=False, highlight=False)
    console.print(f"  (from sql/metrics: adat sql tdad_vpr_by_iteration --run {run_id}, ...)", markup=False)


def register(spec_app: typer.Typer) -> None:
    """Add the spec-suite commands to the ``adat spec`` sub-app."""

    @spec_app.command("compile")
    def compile_cmd(spec: SpecArg, config: ConfigOpt = None, seed: SeedOpt = None,
                    from_run: Annotated[str | None, typer.Option("--from-run", help="Start from this run's compiled prompt.")] = None,
                    data_dir: DataDir = None) -> None:
        """Write the tests and compile the start prompt on the visible ones (VPR per iteration)."""
        cfg = _config(config, data_dir, None)
        _check_file(spec, "spec file", "SPEC")
        _require_prompt_agent(cfg, "compile")
        start = _check_from_run(cfg, from_run) if from_run else _seed_start(spec, seed, cfg)
        _print(cfg, _suite(cfg, spec, start, stop_after="compile"))

    @spec_app.command("run")
    def run_cmd(spec: SpecArg, config: ConfigOpt = None, seed: SeedOpt = None, pack: PackOpt = None,
                reruns: RerunsOpt = None, data_dir: DataDir = None) -> None:
        """One spec version end to end: tests, compile, k reruns (HPR, pass^k), mutants (MS)."""
        cfg = _config(config, data_dir, reruns)
        _print(cfg, _suite(cfg, spec, _seed_start(spec, seed, cfg), pack=pack or default_pack(spec)))

    @spec_app.command("evolve")
    def evolve_cmd(spec: SpecArg, from_run: Annotated[str, typer.Option("--from-run", help="The v1 run.")],
                   base_spec: Annotated[Path, typer.Option("--base-spec", help="The v1 spec YAML.")],
                   config: ConfigOpt = None, pack: PackOpt = None, reruns: RerunsOpt = None,
                   data_dir: DataDir = None) -> None:
        """Compile a v2 spec from the v1 run's compiled prompt; SURS over the v1 invariant tests."""
        _check_file(base_spec, "v1 spec file", "--base-spec")
        cfg = _config(config, data_dir, reruns)
        _print(cfg, _suite(cfg, spec, _check_from_run(cfg, from_run), pack=pack or default_pack(spec), base_run=from_run,
                           base_spec=base_spec))

    @spec_app.command("mutate")
    def mutate_cmd(spec: SpecArg, run: Annotated[str, typer.Option("--run", help="A run with a compiled prompt.")],
                   config: ConfigOpt = None, pack: PackOpt = None, data_dir: DataDir = None) -> None:
        """Mutation testing of a run's compiled prompt (kills need the run's reruns: adat spec run)."""
        from adat.engine.stage_runner import run_stage

        cfg = _config(config, data_dir, None)
        _require_prompt_agent(cfg, "mutate")
        chosen = pack or default_pack(spec)
        if chosen is None:
            fail("no mutation pack", field="--pack", fix="pass --pack mutation_packs/<agent>/mutations.yaml")
        _check_inputs(spec, chosen)
        _check_target(cfg)
        run_stage("spec-mutate", cfg, run, spec_path=str(spec.resolve()), pack_path=str(chosen))
        _print(cfg, run)

    @spec_app.command("demo")
    def demo_cmd(tdad: Annotated[Path | None, typer.Option("--tdad", help="benchmarks/tdad folder.")] = None,
                 specs: Annotated[list[Path] | None, typer.Option(
                     "--spec", help="Run this spec instead of the shipped two (repeat the option for more); its seed "
                                    "and pack are found as `spec run` finds them, and a v2 whose v1 is also given "
                                    "evolves from that run.")] = None,
                 reruns: RerunsOpt = None, data_dir: DataDir = None) -> None:
        """SupportOps and ExpenseGuard (or the --spec files), v1 → v2, every role offline/heuristic
        (not a language model)."""
        # new_run_id's module loads the warehouse (pyarrow, DuckDB): imported here, not with the CLI
        from adat.config import adat_home
        from adat.engine.context import new_run_id

        if specs:
            chosen = sorted((p.resolve() for p in specs), key=lambda p: (p.parents[1].name, p.parent.name))
        else:
            root = tdad or adat_home().parent / "shared" / "benchmarks" / "tdad"
            _check_file(root / "specs", "TDAD benchmark folder", "--tdad")
            chosen = [root / "specs" / agent / v / "spec.yaml" for agent in DEMO_AGENTS for v in ("v1", "v2")]
        cfg = _config(None, data_dir, reruns)
        plan = [_demo_step(spec, chosen[:i]) for i, spec in enumerate(chosen)]  # every file checked before any run
        console.print("[bold]adat spec demo[/bold] — TestSmith, PromptSmith, MutationSmith and the built agent "
                      "played by [yellow]offline/heuristic[/yellow] (a deterministic rule-based stand-in, not an LLM)")
        started, stamp, runs = time.perf_counter(), new_run_id(), {}
        for spec, base in plan:
            run_id = f"{stamp}-{spec.parents[1].name}-{spec.parent.name}"
            if base is None:
                runs[spec] = _suite(cfg, spec, _seed_start(spec, None), pack=default_pack(spec), run_id=run_id)
            else:
                runs[spec] = _suite(cfg, spec, f"run:{runs[base]}", pack=default_pack(spec), base_run=runs[base],
                                    base_spec=base, run_id=run_id)
            _print(cfg, runs[spec])
        console.print(f"spec demo wall time: {time.perf_counter() - started:.0f} s")


def _demo_step(spec: Path, earlier: list[Path]) -> tuple[Path, Path | None]:
    """``(spec, the earlier spec it evolves from or None)``: a spec whose folder's sibling ``v1`` (or
    its ``base_version``'s folder) was given before it evolves from that run; the files are loaded
    here, so a bad one is one line before any run."""
    from adat.tdad.spec_loader import load_spec

    _check_file(spec, "spec file", "--spec")
    loaded = load_spec(spec)
    _check_inputs(spec, default_pack(spec))
    label = f"v{loaded.base_version.split('.', 1)[0]}" if loaded.base_version else "v1"
    base = spec.parents[1] / label / spec.name
    if loaded.version_label() != label and base in earlier:
        return spec, base
    _check_file(default_seed(spec) / "seed_prompt.txt", "seed prompt", "--spec (agent_artifacts/<agent>/)")
    return spec, None
