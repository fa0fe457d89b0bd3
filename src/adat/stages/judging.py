"""Judging: a verdict on one execution against the test's goal and criteria (paper §2.1).

The paper's rule: **pass** when the agent achieves the goal and no failure criterion holds;
**fail** when a failure criterion holds, or the agent clearly fails the goal with observable
incorrect behaviour; otherwise **inconclusive**. The judge model answers with a verdict and a
judgement per criterion; :func:`enforce_verdict_rule` makes the verdict agree with those
judgements, resolving conflicts as follows:

1. a failure criterion judged to hold -> ``fail``, whatever verdict the model gave;
2. ``pass`` stands only if every success criterion is judged to hold; otherwise ``inconclusive``
   (a success criterion that does not hold, or is not shown, means the goal is not shown achieved);
3. ``fail`` without a holding failure criterion stands only if some success criterion is judged
   not to hold (the observable way the agent failed the goal); otherwise ``inconclusive``;
4. ``inconclusive`` stays ``inconclusive`` (unless rule 1 applies).

Each override is stated in the verdict's rationale. An execution that ended in a target error
is ``inconclusive`` without a judge call; a judge call that fails for good is ``inconclusive`` too;
both carry ``judged=False`` so the summary counts them as *unjudged*.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from adat.config import RunConfig
from adat.contracts.adat2_roles import PROMPT_JUDGE, JudgedCriterion, JudgeInput, JudgeOutput
from adat.llm.types import LLMError, TesterLLM
from adat.records import CriterionResult, Execution, ProcessAssertion, TestCase, Verdict, VerdictValue
from adat.stages.process_checks import apply_checks, check_execution
from adat.stages.provenance import call_role
from adat.stages.views import tool_trace_fields, turn_views

log = logging.getLogger(__name__)

CriterionKind = Literal["success", "failure"]


def judge_execution(cfg: RunConfig, client: TesterLLM, test: TestCase, execution: Execution, run_id: str,
                    *, rejudge: bool = False, checks: Sequence[ProcessAssertion] = ()) -> Verdict:
    """The verdict on ``execution`` of ``test``; never raises for a model or target failure.

    A trial after the first, and a re-judgement (``rejudge``), is asked under its own response-cache
    tag: the same transcript must reach the judge again, not the cached first answer. With
    ``judge.use_tool_trace`` on, the judge is shown the tool calls the target reported and the
    process ``checks`` of the test's statement run over them (a failed one fails the verdict,
    :mod:`adat.stages.process_checks`)."""
    base = {"run_id": run_id, "execution_id": execution.execution_id, "test_id": test.test_id}

    def unjudged(why: str) -> Verdict:
        return Verdict(**base, verdict="inconclusive", judged=False, rationale=f"not judged: {why}",
                       criteria=match_criteria(test, []))

    if execution.ended_by == "error" or execution.error:
        return unjudged(f"the execution ended in a target error ({execution.error}); "
                        "the agent's behaviour could not be observed")
    judge_in = JudgeInput(goal=test.goal, success_criteria=list(test.success_criteria),
                          failure_criteria=list(test.failure_criteria), turns=turn_views(execution.turns),
                          ended_by=execution.ended_by, **tool_trace_fields(execution.turns, cfg.judge.use_tool_trace))
    try:
        tag = (f"trial={execution.trial}" if execution.trial > 1 else "") + ("|rejudge" if rejudge else "")
        out, produced = call_role(client, "judge", PROMPT_JUDGE, judge_in, JudgeOutput, cache_tag=tag)
    except LLMError as exc:
        log.warning("judging %s failed: %s", execution.execution_id, exc)
        return unjudged(f"judge error: {exc}")
    criteria = match_criteria(test, out.criteria)
    verdict, note = enforce_verdict_rule(out.verdict, criteria)
    rationale = out.rationale.strip() + (f" [verdict rule: {note}]" if note else "")
    judged = Verdict(**base, verdict=verdict, rationale=rationale, criteria=criteria, **produced.fields())
    if not (cfg.judge.use_tool_trace and checks):
        return judged
    return apply_checks(judged, check_execution(checks, execution.turns))


def match_criteria(test: TestCase, judged: list[JudgedCriterion]) -> list[CriterionResult]:
    """One result per criterion of the test, in the test's order.

    A judged criterion is matched by its text (case and whitespace ignored), else by position
    among the judged criteria of the same kind; a criterion the judge skipped (every one, when
    nothing was judged) has ``holds=None``.
    """
    results: list[CriterionResult] = []
    groups: tuple[tuple[CriterionKind, list[str]], ...] = (
        ("success", test.success_criteria), ("failure", test.failure_criteria))
    for kind, texts in groups:
        same_kind = [j for j in judged if j.kind == kind]
        by_text = {_norm(j.criterion): j for j in same_kind}
        for pos, text in enumerate(texts):
            match = by_text.get(_norm(text))
            if match is None and len(same_kind) == len(texts):
                match = same_kind[pos]
            results.append(CriterionResult(
                criterion=text, kind=kind,
                holds=match.holds if match is not None else None,
                rationale=match.rationale if match is not None else "not judged"))
    return results


def enforce_verdict_rule(verdict: VerdictValue, criteria: list[CriterionResult]) -> tuple[VerdictValue, str]:
    """The verdict the paper's rule allows given the per-criterion judgements, and why it changed."""
    success = [c for c in criteria if c.kind == "success"]
    failing = [c.criterion for c in criteria if c.kind == "failure" and c.holds is True]
    if failing:
        return "fail", ("" if verdict == "fail" else
                        f"{verdict} -> fail: failure criterion holds: {failing[0]}")
    if verdict == "pass" and not all(c.holds is True for c in success):
        return "inconclusive", "pass -> inconclusive: not every success criterion was shown to hold"
    if verdict == "fail" and not any(c.holds is False for c in success):
        return "inconclusive", ("fail -> inconclusive: no failure criterion holds and no success "
                                "criterion was shown not to hold")
    return verdict, ""


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()
