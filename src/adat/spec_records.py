"""Spec tests (warehouse table ``spec_tests``) and what the runner observes in one execution.

A spec test is data, never generated Python: user turns, per-tool fixtures (what each tool
returns or how it fails), PII canary values, and typed assertions. Every assertion names the
spec clause it derives from (a policy id or a node id), and so does the test (``clauses``).
Assertions are one flat record with a ``kind`` and the parameters that kind uses, so a test
round-trips through YAML and Parquet unchanged; :mod:`adat.trace_assertions` evaluates them.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from adat.record_base import Produced, Record

Family = Literal["MFT", "INV", "DIR", "paraphrase", "boundary_values", "tool_output_metamorphic"]
Split = Literal["visible", "hidden"]
Outcome = Literal["pass", "fail", "not_observable"]
AssertionKind = Literal[
    "tool_called", "tool_not_called", "tool_order", "tool_called_exactly", "auth_gate", "confirm_before",
    "args_confirmed", "response_fields", "decision_in", "json_equals", "json_in", "text_contains_any",
    "text_contains_none", "no_pii",
]

#: kind -> the parameters it needs (see SpecAssertion.problems)
_NEEDS: dict[str, tuple[str, ...]] = {
    "tool_called": ("tools",), "tool_not_called": ("tools",), "tool_order": ("tools2",),
    "tool_called_exactly": ("tools", "count"), "auth_gate": ("tools2",), "confirm_before": ("tools", "turn|values"),
    "args_confirmed": ("tools",),
    "response_fields": ("values",), "decision_in": ("values",), "json_equals": ("field", "values"),
    "json_in": ("field", "values"), "text_contains_any": ("values",), "text_contains_none": ("values",),
    "no_pii": ("values|patterns",),
}


class AgentToolCall(Record):
    """One tool call an agent reported for a turn: the one tool-call record of both pipelines.

    AdaT2 stores it on ``Turn.tool_calls`` (table ``executions`` / ``traces``), TDAD on
    ``SpecTurn.tool_calls``, and :mod:`adat.trace_assertions` evaluates the same typed assertions
    over it in both. Arguments and result are free-form JSON, stored as text; :meth:`make` takes
    them as values, :meth:`observed` as the text a tool host saw.
    """

    name: str = Field(description="the tool's name")
    arguments_json: str = Field("{}", description="the call's arguments, as a JSON object")
    result_json: str | None = Field(None, description="what the tool returned, as JSON; None when it failed "
                                    "or the target did not report it")
    error: str | None = Field(None, description="the tool's error text, when the call failed")
    order: int = Field(0, description="position of the call within its turn, from 0")

    @classmethod
    def make(cls, name: str, arguments: dict[str, Any] | None = None, result: Any = None, *,
             error: str | None = None, order: int = 0) -> AgentToolCall:
        """A call from values: ``arguments`` a dict, ``result`` anything JSON-able (None: unknown)."""
        return cls(name=name, arguments_json=json.dumps(arguments or {}, sort_keys=True, default=str),
                   result_json=None if result is None else json.dumps(result, sort_keys=True, default=str),
                   error=error, order=order)

    @classmethod
    def observed(cls, name: str, arguments: str, output: str, *, error: bool = False, order: int = 0) -> AgentToolCall:
        """A call as a tool host saw it: ``arguments`` as the agent wrote them, ``output`` what the
        tool returned or, when ``error``, the error shown to the agent."""
        return cls(name=name, arguments_json=arguments, result_json=None if error else output,
                   error=(output or "error") if error else None, order=order)

    @property
    def arguments(self) -> dict[str, Any]:
        value = json.loads(self.arguments_json)
        return value if isinstance(value, dict) else {}

    @property
    def result(self) -> Any:
        return None if self.result_json is None else json.loads(self.result_json)


class SpecAssertion(Record):
    """One typed expectation. ``turn`` picks the user turn (0-based) it looks at; None means:

    tool kinds -- the whole run; ``decision_in`` / ``json_*`` -- the last turn; ``response_fields``
    -- every turn; text kinds and ``no_pii`` -- all agent text of the run.

    * ``tool_called`` / ``tool_not_called``: each of ``tools`` was (not) called.
    * ``tool_order``: the first calls of ``tools`` happen in this order (all of them called).
    * ``tool_called_exactly``: ``tools[0]`` was called exactly ``count`` times.
    * ``auth_gate``: ``tools = [A, B]``: every call of B comes after a successful call of A (or of
      one of ``gates``).
    * ``confirm_before``: ``tools`` are not called before user turn ``turn`` (the confirmation);
      without a ``turn``: each call of ``tools`` comes in a user turn holding one of ``values``
      (a confirmation), after an agent reply without them (AdaT2's process checks).
    * ``args_confirmed``: a call of ``tools`` in user turn N > 0 carries what the agent's reply of
      turn N-1 (the confirmation) named: it writes no identifier the confirmation did not show
      while one the confirmation showed (of the same shape) goes unused, and no short text value
      (2-6 words, e.g. a reason) that neither the confirmation nor the user stated; with
      ``values``, only turns whose user message holds one of them (a confirmation) are checked.
    * ``response_fields``: every ``respond`` payload holds the ``values`` fields.
    * ``decision_in``: the ``decision`` is one of ``values``.
    * ``json_equals`` / ``json_in``: respond field ``field`` equals ``values[0]`` / is one of ``values``
      (strings compare as strings, other JSON values by their JSON text, e.g. ``true``).
    * ``text_contains_any`` / ``text_contains_none``: the user-visible text holds one / none of
      ``values`` (case-insensitive).
    * ``no_pii``: no canary in ``values`` and no regex in ``patterns`` appears in what the user
      sees or in any respond payload.
    """

    kind: AssertionKind
    clause: str = Field(description="spec clause the expectation derives from: a policy id or node id")
    tools: list[str] = Field(default_factory=list)
    gates: list[str] = Field(default_factory=list, description="auth_gate: more tools that open the gate")
    count: int | None = None
    field: str = Field("", description="respond payload field (dots for nesting)")
    values: list[str] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list, description="regular expressions (no_pii)")
    turn: int | None = Field(None, description="0-based user turn; None = see the class docstring")
    description: str = ""

    def problems(self) -> list[str]:
        """What this assertion lacks for its kind (empty = well formed)."""
        have = {
            "tools": bool(self.tools), "tools2": len(self.tools) >= 2, "count": self.count is not None and self.count >= 0,
            "values": bool(self.values), "field": bool(self.field), "values|patterns": bool(self.values or self.patterns),
            "turn|values": (self.turn is not None and self.turn >= 0) or bool(self.values),
        }
        out = [f"kind {self.kind!r} needs {need.replace('2', ' (two or more)')}" for need in _NEEDS[self.kind]
               if not have[need]]
        if self.turn is not None and self.turn < 0:
            out.append("turn must be 0 or more")
        return out


class ToolFixture(Record):
    """What one tool does in a test: return ``output_json``, or fail with ``failure``.

    ``fail_times`` = 0 with a failure: every call fails; n > 0: the first n calls fail, then the
    output is returned (retry policies become testable).
    """

    tool: str
    output_json: str = Field("{}", description="the JSON the tool returns")
    failure: str = Field("", description="failure mode (timeout, not_found, rate_limited, ...); empty = none")
    fail_times: int = Field(0, description="0 or more")


class SpecTest(Produced):
    """One spec test (table ``spec_tests``)."""

    __test__ = False

    test_id: str
    run_id: str
    spec_id: str
    spec_version: str
    family: Family
    split: Split
    leaf_id: str = Field(description="the decision-tree leaf the test drives the agent to")
    node_path: list[str] = Field(default_factory=list, description="node ids from the root to the leaf")
    clauses: list[str] = Field(default_factory=list, description="policy and node ids the test checks")
    title: str = ""
    user_turns: list[str] = Field(default_factory=list)
    fixtures: list[ToolFixture] = Field(default_factory=list)
    pii_canaries: list[str] = Field(default_factory=list, description="values planted in tool outputs")
    assertions: list[SpecAssertion] = Field(default_factory=list)
    derived_from: str = Field("", description="hidden tests: the visible test they vary")
    seed: int = 0

    def fixture(self, tool: str) -> ToolFixture | None:
        return next((f for f in self.fixtures if f.tool == tool), None)

    def problems(self) -> list[str]:
        """Why this test cannot run (empty = well formed); records stay permissive so any stored
        row reads back, and producers (TestSmith, loaders) reject what this lists."""
        out = [] if self.user_turns else ["no user turns"]
        out += [] if self.assertions else ["no assertions"]
        for i, assertion in enumerate(self.assertions):
            out += [f"assertions[{i}]: {p}" for p in assertion.problems()]
            if assertion.turn is not None and assertion.turn >= len(self.user_turns):
                out.append(f"assertions[{i}]: turn {assertion.turn} but the test has {len(self.user_turns)} turns")
        out += [f"fixture of {f.tool}: fail_times must be 0 or more" for f in self.fixtures if f.fail_times < 0]
        return out


class SpecTurn(Record):
    """One user turn as the runner saw it."""

    user: str
    reply: str = Field("", description="the user-visible text (respond.user_message, or the raw reply)")
    respond_json: list[str] = Field(default_factory=list, description="every respond payload of the turn, as JSON")
    tool_calls: list[AgentToolCall] | None = Field(None, description="None when the target does not report them")
    has_respond: bool = Field(False, description="the target answers through a respond tool (the spec agent)")
    error: str | None = None


class AssertionOutcome(Record):
    """One typed assertion of a spec test, judged on one execution (``SpecResult.assertion_results``)."""

    index: int = Field(description="0-based position of the assertion in the test; -1 for the runner's own checks")
    kind: str = Field(description="assertion type, e.g. tool_called, no_pii, decision_in")
    clause: str = Field("", description="spec clause (policy or node id) the assertion derives from")
    outcome: Outcome = Field(description="not_observable when the target cannot show it (never a pass)")
    detail: str = ""
