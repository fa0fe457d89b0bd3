"""The process-check role: a statement about *how* the agent must act, mapped to typed assertions
over the tool trace (AdaT2's process checks, :mod:`adat.stages.process_checks`).

The judge's model plays it (prompt ``process_checks``): it is given one grounded statement and
the names of the tools the agent was seen to call in discovery — what a black-box tester whose
target reports tool calls sees — and answers zero or more assertions of the kinds the shared
evaluator (:mod:`adat.trace_assertions`) knows. A statement about what the agent says (not what
it does) gets none.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adat.contracts.contract_base import Contract

PROMPT_PROCESS_CHECKS = "process_checks"

#: the assertion kinds a process check may use (the tool-trace kinds of the shared evaluator)
ProcessKind = Literal["tool_called", "tool_not_called", "tool_order", "auth_gate", "confirm_before",
                      "args_confirmed"]


class ProcessCheckInput(Contract):
    statement: str = Field(description="the statement's text")
    condition: str = Field("", description="when it applies")
    behavior: str = Field("", description="what the agent does then")
    tool_names: list[str] = Field(description="tools the agent was seen to call in discovery, sorted")


class MappedAssertion(Contract):
    kind: ProcessKind
    tools: list[str] = Field(description="tool names, from tool_names: the guarded / ordered / checked tools "
                                         "(auth_gate: the gate first, then the guarded tools)")
    gates: list[str] = Field(default_factory=list, description="auth_gate: more tools that open the gate")
    values: list[str] = Field(default_factory=list, description="confirm_before, args_confirmed: phrases "
                                                                "of a user's confirmation (e.g. yes)")
    description: str = Field(description="the check in words, e.g. 'a cancellation only after the user confirms'")


class ProcessCheckOutput(Contract):
    assertions: list[MappedAssertion] = Field(default_factory=list, description="none when the statement says "
                                              "nothing the tool trace can show")
