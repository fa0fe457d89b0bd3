"""Fixtures of the offline/heuristic provider's tests: frozen discovery traces, the demo's tester
facts, and the statements and plain tests the provider derives from them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from adat.config import load_run_config
from adat.contracts.adat2_roles import (
    ExtractedStatement,
    ExtractorInput,
    PlainInput,
    StatementView,
    TestView,
    TraceView,
)
from adat_offline import generation, statements

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


@dataclass
class Extracted:
    """A statement with its supporting trace and plain test."""

    view: StatementView
    raw: ExtractedStatement
    trace: TraceView
    plain: TestView

    @property
    def reply(self) -> str:
        return self.trace.turns[self.raw.supporting_turn].text


@pytest.fixture(scope="session")
def tester_facts() -> list[str]:
    return list(load_run_config(REPO / "data" / "reference" / "demo.yaml").tester_facts)


@pytest.fixture(scope="session")
def traces() -> list[TraceView]:
    doc = json.loads((HERE / "data" / "discovery_traces.json").read_text())
    return [TraceView.model_validate(t) for t in doc["traces"]]


@pytest.fixture(scope="session")
def extracted(traces: list[TraceView], tester_facts: list[str]) -> list[Extracted]:
    """Every distinct statement of the frozen traces, with the plain test the provider writes."""
    out: list[Extracted] = []
    seen: set[str] = set()
    for trace in traces:
        for st in statements.extract(ExtractorInput(trace=trace)).statements:
            if st.text.casefold() in seen:
                continue
            seen.add(st.text.casefold())
            view = StatementView(statement_id=f"st-{len(out)}", text=st.text, condition=st.condition,
                                 behavior=st.behavior)
            test = generation.generate_plain(PlainInput(
                statement=view, supporting_reply=trace.turns[st.supporting_turn].text,
                supporting_context=trace.turns[: st.supporting_turn + 1], tester_facts=tester_facts, turn_limit=10))
            plain = TestView(test_id=f"te-{len(out)}", kind="plain", goal=test.goal, step_hints=test.step_hints,
                             success_criteria=test.success_criteria, failure_criteria=test.failure_criteria)
            out.append(Extracted(view=view, raw=st, trace=trace, plain=plain))
    return out


def find(extracted: list[Extracted], *words: str, hint: str = "") -> Extracted:
    """The first statement whose text holds every word (case-insensitive) and whose plain test's
    step hints hold ``hint``."""
    for item in extracted:
        if all(w.lower() in item.view.text.lower() for w in words) and hint in " ".join(item.plain.step_hints):
            return item
    raise AssertionError(f"no statement with {words} and hint {hint!r}")
