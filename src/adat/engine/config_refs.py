"""What ``adat config check`` checks beyond the schema, so it catches everything ``adat run`` does.

Offline checks only (no network, no API key, no target built): every model names a known
provider (``provider/model``), the target's fault is a shipped fault id, and the files it names
exist. ``adat run`` runs the same checks first (via :func:`adat.engine.preflight.preflight`),
so the two can never disagree.
"""

from __future__ import annotations

from pathlib import Path

from adat.config import LLMAgentTarget, ReferenceTarget, RunConfig
from adat.errors import UserError
from adat.yaml_io import excerpt, read_user_text

#: Largest policy document an llm-agent target takes (it is the agent's system prompt).
POLICY_MAX_BYTES = 1024 * 1024


def check_config_references(cfg: RunConfig, *, file: str | None = None) -> None:
    """Raise a one-line :class:`UserError` naming ``file`` and the field of the first bad reference."""
    from adat.llm.providers.provider_registry import default_registry

    known = [p for p in default_registry().known() if p != "fake"]
    specs = [(f"models.{role}", spec) for role, spec in cfg.models.model_dump().items()]
    if isinstance(cfg.target, LLMAgentTarget):
        specs.append(("target.model", cfg.target.model))
    for field, spec in specs:
        provider, sep, model = str(spec).partition("/")
        if not sep or not provider or not model:
            raise UserError(f"model {excerpt(spec)} names no provider", file=file, field=field,
                            fix=f"write provider/model, e.g. openai/{excerpt(spec, 40).strip(chr(39))} or "
                                "offline/heuristic")
        if provider not in known and provider != "fake":
            raise UserError(f"unknown provider {excerpt(provider, 40)}", file=file, field=field,
                            fix=f"use one of {', '.join(known)}")
        if provider == "offline" and model != "heuristic":
            raise UserError(f"unknown offline model {excerpt(model, 40)}", file=file, field=field,
                            fix="use offline/heuristic")
    if isinstance(cfg.target, ReferenceTarget | LLMAgentTarget):
        _check_fault(cfg.target.type, cfg.target.fault, file)
        _check_file(cfg.target.database, "target.database", "a τ²-bench-format retail db.json", file)
    if isinstance(cfg.target, LLMAgentTarget) and cfg.target.policy is not None:
        _check_file(cfg.target.policy, "target.policy", "a policy document", file)
        read_user_text(Path(cfg.target.policy), max_bytes=POLICY_MAX_BYTES, what="policy document")


def _check_fault(kind: str, fault: str | None, file: str | None) -> None:
    if fault is None:
        return
    from adat.targets.plugins import fault_catalog

    known = fault_catalog(kind).fault_ids()
    if fault not in known:
        raise UserError(f"unknown fault {excerpt(fault)}", file=file, field="target.fault",
                        fix="use an id `adat faults` lists (e.g. " + ", ".join(known[:3]) + ")")


def _check_file(path: str | None, field: str, what: str, file: str | None) -> None:
    if path is not None and not Path(path).is_file():
        raise UserError(f"no file {excerpt(path)}", file=file, field=field, fix=f"give the path of {what}")
