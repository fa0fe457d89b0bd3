"""Build the target a run config names: ``http``, ``a2a`` or ``python`` here, every other kind
(``reference``, ``llm-agent``) from its plugin in the ``adat.targets`` entry-point group."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adat import config
from adat.errors import UserError
from adat.targets.base import Target
from adat.targets.plugins import target_plugin

if TYPE_CHECKING:
    from adat.llm.client import LLMClient


def build_target(target_cfg: config.TargetConfig, cfg: config.RunConfig, *,
                 client: LLMClient | None = None) -> Target:
    """The target of ``target_cfg``; ``client`` is the LLM client an llm-agent uses (built if None).

    Imports are local: a run against an http endpoint need not load the other transports, and
    the agents shipped as plugins load only when a run names them.
    """
    if isinstance(target_cfg, config.HttpTarget):
        from adat.targets.http import HttpTarget

        return HttpTarget(target_cfg)
    if isinstance(target_cfg, config.A2ATarget):
        try:
            from adat.targets.a2a_target import A2ATarget
        except ImportError as exc:  # the a2a extra is optional: a run that does not name it never loads it
            raise UserError(f"target.type is a2a but the a2a-sdk cannot be imported ({exc})", field="target.type",
                            fix="pip install 'adat[a2a]' (the a2a-sdk with its HTTP server)") from None
        return A2ATarget(target_cfg)
    if isinstance(target_cfg, config.PythonTarget):
        from adat.targets.python_target import PythonTarget

        return PythonTarget(target_cfg.factory, target_cfg.kwargs, target_cfg.otlp)
    target: Target = target_plugin(target_cfg.type).make_target(target_cfg, cfg, client)
    return target


def build_reference_agent(database: str | None, fault: str | None) -> Target:
    """The rule-based reference agent on ``database`` (None = the shipped one), optionally faulty."""
    return build_target(config.ReferenceTarget(database=database, fault=fault), config.RunConfig())
