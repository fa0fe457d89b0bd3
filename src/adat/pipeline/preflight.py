"""Checks before a run starts, so a user's mistake is one line, not a failed flow an hour in."""

from __future__ import annotations

from adat.config import RunConfig
from adat.llm.providers.registry import default_registry


def preflight(cfg: RunConfig) -> list[str]:
    """Raise :class:`adat.errors.UserError` on the first problem; return what was checked.

    Checks: every role's provider can be built (known provider, API key present), the instruction
    catalog loads, the target can be built and, for an http target, answers.
    """
    from adat.instruction_catalog import load_instructions
    from adat.targets.factory import build_target

    checked: list[str] = []
    registry = default_registry()
    for role, spec in cfg.models.model_dump().items():
        registry.create(spec, cfg)
        checked.append(f"{role}: {spec}")
    checked.append(f"instructions: {len(load_instructions())}")
    target = build_target(cfg.target, cfg)
    check = getattr(target, "check", None)
    if callable(check):
        check()
    checked.append(f"target: {cfg.target.type} ({getattr(target, 'agent_id', '?')})")
    return checked
