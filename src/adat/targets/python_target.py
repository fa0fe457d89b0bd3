"""The ``python`` target: any in-process object with ``reset()`` and ``invoke()``.

``target.factory`` is ``'pkg.module:factory'``; the factory is called with ``target.kwargs``.
Exceptions of the agent become :class:`adat.errors.TargetError` (one line), so a crashing agent
is a recorded error on one execution, not the end of the run.
"""

from __future__ import annotations

import importlib
from typing import Any

from adat import config
from adat.errors import TargetError, UserError
from adat.targets import otlp_join
from adat.targets.base import AgentReply, as_reply


def load_factory_object(factory: str, kwargs: dict[str, Any]) -> Any:
    """Import ``pkg.module:attr``, call it with ``kwargs``, check the result has reset/invoke."""
    field = "target.factory"
    module_name, sep, attr = factory.partition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"{factory!r} is not 'pkg.module:factory'", field=field,
                        fix="write the module path, a colon and the callable's name")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UserError(f"cannot import {module_name!r} ({exc})", field=field,
                        fix="install the package or add its directory to PYTHONPATH") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UserError(f"module {module_name!r} has no attribute {attr!r}", field=field,
                            fix="check the name after the colon") from None
        obj = getattr(obj, part)
    if not callable(obj):
        raise UserError(f"{factory!r} is not callable", field=field, fix="point at a class or function")
    try:
        agent = obj(**kwargs)
    except Exception as exc:
        raise UserError(f"calling {factory} failed: {type(exc).__name__}: {exc}", field="target.kwargs",
                        fix="pass the arguments the factory expects") from None
    missing = [name for name in ("reset", "invoke") if not callable(getattr(agent, name, None))]
    if missing:
        raise UserError(f"{factory} returned a {type(agent).__name__} without {' and '.join(missing)}()",
                        field=field, fix="return an object with reset() -> str and invoke(session_id, message) -> str or AgentReply")
    return agent


class PythonTarget:
    """Wraps a user's agent object; evaluation-only accessors of the wrapped object pass through.

    ``session_db``, ``side_log`` and the like are forwarded by attribute lookup, so
    ``isinstance(target, SideLogged)`` holds exactly when the wrapped agent keeps a side log.
    """

    def __init__(self, factory: str, kwargs: dict[str, Any] | None = None,
                 otlp: config.OtlpReceiver | None = None) -> None:
        self.factory = factory
        # target.otlp: started before the factory runs, so the agent can ask for its endpoint
        self._otlp = otlp_join.joiner(otlp) if otlp is not None else None
        self.inner = load_factory_object(factory, dict(kwargs or {}))
        self.agent_id = str(getattr(self.inner, "agent_id", None) or f"python:{factory}")

    def reset(self) -> str:
        """Start a session in the wrapped agent."""
        return str(self._call("reset"))

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        """Send one user message to the wrapped agent; it may answer a str or an :class:`AgentReply`.

        With ``target.otlp`` the message runs inside adat's trace context
        (:func:`adat.targets.otlp_join.current_traceparent`) and the turn's tool calls come from the spans.
        """
        if self._otlp is not None:
            return self._otlp.invoke(session_id, lambda: self._invoke(session_id, user_message), in_process=True)
        return self._invoke(session_id, user_message)

    def _invoke(self, session_id: str, user_message: str) -> AgentReply:
        reply = self._call("invoke", session_id, user_message)
        if not isinstance(reply, str | AgentReply):
            raise TargetError(f"{self.factory}: invoke() returned {type(reply).__name__}, not str or AgentReply")
        return as_reply(reply)

    def _call(self, method: str, *args: str) -> Any:
        """The wrapped agent's ``method(*args)``; what it raises becomes a one-line TargetError."""
        try:
            return getattr(self.inner, method)(*args)
        except TargetError:
            raise
        except Exception as exc:
            raise TargetError(f"{self.factory}: {method}() raised {type(exc).__name__}: {_one_line(exc)}") from exc

    def __getattr__(self, name: str) -> Any:
        # Only reached for names PythonTarget lacks; guard "inner" so a half-built object
        # (e.g. during unpickling) does not recurse.
        if name in ("inner", "_otlp") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
