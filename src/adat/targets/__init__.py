"""Agents under test, seen as a black-box tester sees them: ``reset()`` and ``invoke()``.

``build_target`` turns the run config's ``target`` section into one of: ``http``
(:class:`HttpTarget`), ``python`` (:class:`PythonTarget`), ``llm-agent``
(:class:`adat.targets.llm_agent.LLMAgent`) or ``reference`` (the rule-based agent in
``adat.agents.reference``). ``LLMAgent`` is imported lazily: the reference agent imports this
package, and the llm-agent imports the retail domain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adat.targets.base import SideLogged, Target
from adat.targets.http import HttpTarget
from adat.targets.python_target import PythonTarget
from adat.targets.target_factory import build_target

if TYPE_CHECKING:
    from adat.targets.llm_agent import LLMAgent

__all__ = ["HttpTarget", "LLMAgent", "PythonTarget", "SideLogged", "Target", "build_target"]


def __getattr__(name: str) -> Any:
    if name == "LLMAgent":
        from adat.targets.llm_agent import LLMAgent

        return LLMAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
