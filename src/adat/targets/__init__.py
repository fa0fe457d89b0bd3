"""Agents under test, seen as a black-box tester sees them: ``reset()`` and ``invoke()``.

``build_target`` turns the run config's ``target`` section into one of: ``http``
(:class:`HttpTarget`), ``a2a`` (``adat.targets.a2a_target.A2ATarget``, loaded only when named: the
a2a-sdk is the optional ``a2a`` extra), ``python`` (:class:`PythonTarget`), or a kind shipped as a plugin in the
``adat.targets`` entry-point group (:mod:`adat.targets.plugins`): adat's own ``reference`` and
``llm-agent`` live in the separate ``adat_reference`` package, which the tester never imports.
"""

from __future__ import annotations

from adat.targets.base import SideLogged, Target
from adat.targets.http import HttpTarget
from adat.targets.python_target import PythonTarget
from adat.targets.target_factory import build_target

__all__ = ["HttpTarget", "PythonTarget", "SideLogged", "Target", "build_target"]
