"""``offline/heuristic``: a deterministic, rule-based stand-in for an LLM (DESIGN §6).

It answers each tester role by ``request.prompt_id`` from ``request.variables`` — the structured
inputs the prompt was rendered from (the ``*Input`` models of :mod:`adat.contracts`) — and
returns JSON content that validates against the role's ``*Output`` model. It sees only what those
inputs hold, i.e. what a black-box tester sees: never an agent's rules, policy, database or side
log. It makes no network calls and no embedding calls; every answer is a pure function of the
variables, so the same request always gets the same answer.

The one exception to "answered by prompt id" is the built TDAD spec agent (role ``spec_agent``,
a raw chat turn with tools): it is the agent under test, not a tester, and acts on its own chat
messages and tool definitions alone (:mod:`adat_offline.tdad_agent`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from adat.contracts import adat2_roles as roles
from adat.contracts import process_check_roles, tdad_roles, testsmith_roles
from adat.llm.types import LLMError, LLMRequest, LLMResponse
from adat_offline import (
    baselines,
    generation,
    judging,
    planning,
    selection,
    statements,
    tdad_agent,
    tdad_compilers,
    tdad_testsmith,
    trace_checks,
    transformations,
)

PROVIDER = "offline"
MODEL = "heuristic"

Handler = Callable[[Any], BaseModel]

#: prompt id -> (input model, handler returning the output model)
HANDLERS: dict[str, tuple[type[BaseModel], Handler]] = {
    roles.PROMPT_PLANNER: (roles.PlannerInput, planning.plan),
    roles.PROMPT_DRIVER: (roles.DriverInput, planning.drive),
    roles.PROMPT_EXTRACTOR: (roles.ExtractorInput, statements.extract),
    roles.PROMPT_GROUNDER: (roles.GrounderInput, statements.ground),
    roles.PROMPT_PLAIN: (roles.PlainInput, generation.generate_plain),
    roles.PROMPT_TRANSFORM: (roles.TransformInput, transformations.transform),
    roles.PROMPT_DIRECT: (roles.DirectInput, generation.generate_direct),
    roles.PROMPT_JUDGE: (roles.JudgeInput, judging.judge),
    roles.PROMPT_SELECTOR: (roles.SelectorInput, selection.select),
    roles.PROMPT_AGENTEVAL: (roles.AgentEvalInput, baselines.perturb),
    process_check_roles.PROMPT_PROCESS_CHECKS: (process_check_roles.ProcessCheckInput, trace_checks.map_statement),
    tdad_roles.PROMPT_PROMPTSMITH: (tdad_roles.PromptSmithInput, tdad_compilers.promptsmith),
    tdad_roles.PROMPT_MUTATIONSMITH: (tdad_roles.MutationSmithInput, tdad_compilers.mutationsmith),
    testsmith_roles.PROMPT_TESTSMITH: (testsmith_roles.TestSmithInput, tdad_testsmith.testsmith),
}

#: the built TDAD spec agent: a raw chat turn (no prompt file), answered from the messages alone
SPEC_AGENT_ROLE = "spec_agent"


def _tokens(text: str) -> int:
    # Same rough count as the fake provider, so LLMCall rows of offline runs are comparable.
    return (len(text) + 3) // 4


class OfflineHeuristicProvider:
    """The offline/heuristic provider; constructible with no arguments (the ``adat.providers``
    entry point ``offline`` names this class)."""

    name = f"{PROVIDER}/{MODEL}"
    #: the models it serves as ``offline/<model>``: the registry refuses any other
    models = (MODEL,)
    #: deterministic and local: the response cache would only serve stale answers after code changes
    cacheable = False
    #: no token window: it reads the rendered inputs whole, so the client's context budget
    #: (``llm.context_tokens``, a real model's window) must not cut them (a cut spec made
    #: ``adat spec demo`` stop in ContextOverflow)
    context_limited = False

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request; an unknown prompt id or malformed variables is an :class:`LLMError`."""
        prompt_id = request.prompt_id
        if request.role == SPEC_AGENT_ROLE and not prompt_id:
            answer = tdad_agent.act(request)
            prompt_text = json.dumps(request.messages, ensure_ascii=False, default=str)
            return answer.model_copy(update={"input_tokens": _tokens(prompt_text),
                                             "output_tokens": _tokens(answer.model_dump_json())})
        if prompt_id not in HANDLERS:
            raise LLMError(f"offline/heuristic has no rules for prompt {prompt_id!r} "
                           f"(it answers: {', '.join(sorted(HANDLERS))})")
        model, handler = HANDLERS[prompt_id]
        known = {k: v for k, v in request.variables.items() if k in model.model_fields}
        try:
            inp = model.model_validate(known)
        except ValidationError as exc:
            raise LLMError(f"offline/heuristic: variables for prompt {prompt_id!r} do not match "
                           f"{model.__name__}: {exc.errors()[0]['loc']} {exc.errors()[0]['msg']}") from None
        content = handler(inp).model_dump_json()
        prompt_text = json.dumps(request.messages, ensure_ascii=False, default=str)
        return LLMResponse(content=content, input_tokens=_tokens(prompt_text), output_tokens=_tokens(content))
