"""``adat spec ...``: TDAD spec suites. ``lint`` and ``tests`` live here; the suite commands
(compile, mutate, evolve, run, demo) are added by :func:`adat.cli.spec_suite_cmd.register`."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
import yaml
from rich.console import Console

from adat.cli.app import AdatTyper, check_out_file, fail
from adat.cli.spec_suite_cmd import register

console = Console(highlight=False, soft_wrap=True)  # one finding per line, however long
spec_app = AdatTyper(help="TDAD spec-driven suites: lint a spec, write its tests, compile, mutate, evolve.",
                     no_args_is_help=True)

SpecPath = Annotated[Path, typer.Argument(help="TDAD spec YAML (specs/<agent>/<version>/spec.yaml).")]


@spec_app.command("lint")
def lint(spec: SpecPath,
         pack: Annotated[Path | None, typer.Option("--pack", help="Also check this mutation pack's probes.")] = None,
         ) -> None:
    """Report dangling branch targets, unreachable nodes, decisions missing from the respond enum,
    response fields missing from the contract and probes naming unknown tools. Exit 1 on errors;
    warnings (an undeclared ``END_*`` leaf, an unreachable node) leave it 0."""
    from adat.tdad.spec_loader import lint_spec, load_mutation_pack, load_spec

    loaded = load_spec(spec)
    findings = lint_spec(loaded, load_mutation_pack(pack) if pack else None)
    for finding in findings:
        console.print(f"{spec}: {finding.one_line()}", markup=False)
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    console.print(f"{loaded.spec_id}: {errors} error(s), {warnings} warning(s)", markup=False)
    if errors:
        raise typer.Exit(1)


@spec_app.command("tests")
def tests(spec: SpecPath,
          config: Annotated[Path | None, typer.Option("--config", "-c",
                                                       help="Run config (models.testsmith, llm); default offline.")] = None,
          seed: Annotated[int | None, typer.Option("--seed", help="Split / variation seed (default: the config's).")] = None,
          out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the tests as YAML here.")] = None,
          ) -> None:
    """Write the spec's visible and hidden tests (TestSmith) and print a summary, or the YAML with no --out."""
    from adat.config import RunConfig, load_run_config
    from adat.engine.context import new_run_id
    from adat.llm.client import LLMClient
    from adat.tdad.spec_loader import load_spec
    from adat.tdad.testsmith import generate_tests

    check_out_file(out, make_parents=True)
    loaded = load_spec(spec)
    cfg = load_run_config(config) if config else RunConfig()
    run_id = new_run_id()
    client = LLMClient(cfg, run_id)
    generated = generate_tests(client, loaded, seed=cfg.seed if seed is None else seed, run_id=run_id)
    if not generated:
        fail("TestSmith wrote no tests", file=str(spec), field="decision_tree",
             fix="check `adat spec lint`; every leaf needs a path a user can walk")
    text = yaml.safe_dump([t.model_dump(mode="json") for t in generated], sort_keys=False, allow_unicode=True)
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    visible = [t for t in generated if t.split == "visible"]
    by_family = Counter(t.family for t in generated)
    leaves = {t.leaf_id for t in visible}
    console.print(f"{loaded.spec_id}: {len(visible)} visible, {len(generated) - len(visible)} hidden tests "
                  f"({', '.join(f'{k} {v}' for k, v in by_family.items())}); visible tests reach "
                  f"{len(leaves)} of {len(loaded.leaves())} leaves; by {generated[0].produced_by} -> {out}",
                  markup=False)


register(spec_app)
