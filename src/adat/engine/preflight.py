"""Checks before a run starts, so a user's mistake is one line, not a failed flow an hour in.

Everything here runs before any flow (and so before any run row is written): a problem found
here can never leave a run in status ``running``. Network checks make one request each with
:data:`adat.config.PREFLIGHT_TIMEOUT_S` and no retries, so the whole preflight stays under 10 s
even when every endpoint hangs.
"""

from __future__ import annotations

from pathlib import Path

from adat import config
from adat.config import PREFLIGHT_TIMEOUT_S, LLMAgentTarget, RunConfig, check_run_id
from adat.errors import UserError
from adat.llm.providers.provider_registry import default_registry


def preflight(cfg: RunConfig, *, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> list[str]:
    """Raise :class:`adat.errors.UserError` on the first problem; return what was checked.

    Checks: no other process holds the data dir's catalog read-write, the run id is safe, every
    role's provider can be built (known provider, API key present), every prompt file loads and
    renders with its declared variables, the instruction catalog loads, the ``openai`` endpoint
    answers (when any role or the llm-agent target uses it), the target can be built and, for an
    http target, answers (for an a2a target, serves a card adat can use); a Dask task runner is installed.
    """
    from adat.engine.config_checks import check_config_references
    from adat.instruction_catalog import load_instructions
    from adat.llm.providers.openai_chat import OpenAIProvider
    from adat.targets.target_factory import build_target
    from adat.warehouse.catalog_holder import check_catalog_free
    from adat.warehouse.layout import catalog_path

    checked: list[str] = []
    check_config_references(cfg)
    check_catalog_free(catalog_path(cfg.data_path()))  # the run ends by rebuilding it: not under a writer
    if cfg.run_id is not None:
        check_run_id(cfg.run_id, field="run_id")
    registry = default_registry()
    specs = [(f"models.{role}", spec) for role, spec in cfg.models.model_dump().items()]
    if isinstance(cfg.target, LLMAgentTarget):
        specs.append(("target.model", cfg.target.model))
    endpoint: tuple[OpenAIProvider, str] | None = None
    structured: dict[str, tuple[OpenAIProvider, list[str]]] = {}  # model -> provider, tester roles using it
    for where, spec in specs:
        _, model, provider = registry.create(spec, cfg)
        if isinstance(provider, OpenAIProvider):
            if endpoint is None:
                endpoint = (provider, model)
            if where.startswith("models."):
                structured.setdefault(model, (provider, []))[1].append(where.removeprefix("models."))
        checked.append(f"{where}: {spec}")
    checked.append(f"prompts: {len(check_prompts(config.adat_home() / 'catalogs' / 'prompts'))}")
    checked.append(f"instructions: {len(load_instructions())}")
    if endpoint is not None:  # every openai/... spec talks to cfg.llm.base_url: one endpoint
        provider, model = endpoint
        provider.check(model, timeout_s)
        # The run will call it: load the SDK (0.5-0.9 s) before the flow starts, so that a stage's
        # time (its Prefect task run, its progress) is its own work and not a one-off import.
        provider.warm()
        checked.append(f"llm endpoint: {cfg.llm.base_url or 'api.openai.com'}")
        for model, (provider, roles) in structured.items():  # once per model and endpoint: cached in the data dir
            checked.append(f"output mode of {model} ({', '.join(roles)}): {provider.output_mode(cfg, model).line()}")
    if cfg.execution.task_runner == "dask":
        checked.append(check_dask(cfg))
    target = build_target(cfg.target, cfg)
    if isinstance(cfg.target, config.HttpTarget | config.A2ATarget):  # an endpoint: it must answer
        target.check(timeout_s=timeout_s)  # type: ignore[attr-defined]
    checked.append(f"target: {cfg.target.type} ({getattr(target, 'agent_id', '?')})")
    return checked


def check_dask(cfg: RunConfig) -> str:
    """``execution.task_runner: dask`` needs the optional prefect-dask (the flow imports it only at
    the execution stage, after discovery and the suite were built)."""
    import importlib.util

    if importlib.util.find_spec("prefect_dask") is None:
        raise UserError("execution.task_runner is dask but prefect-dask is not installed", field="execution.task_runner",
                        fix="pip install -e '.[dask]' (or 'adat[dask]'), or use task_runner: threads")
    return f"task runner: dask ({cfg.execution.dask_address or f'local cluster of {cfg.execution.dask_workers}'})"


def check_prompts(directory: Path) -> list[str]:
    """Load every prompt file in ``directory`` and render it with a value for each declared variable.

    Returns the prompt ids; the first file that does not load or render is a one-line UserError
    naming it (an undeclared ``{{ placeholder }}``, an unused variable, a bad field).
    """
    from adat.llm.prompts import load_prompt

    files = sorted(Path(directory).glob("*.yaml"))
    if not files:
        raise UserError("no prompt files", file=str(directory), fix="restore catalogs/prompts or set ADAT_HOME")
    ids = []
    for path in files:
        template = load_prompt(path.stem, path.parent)
        template.render({name: f"<{name}>" for name in template.variables})
        ids.append(template.id)
    return ids
