"""Mutation packs (``benchmarks/tdad/mutation_packs/*/mutations.yaml``) as pydantic models.

A pack lists mutation *intents* for one spec lineage. Each intent carries an *activation probe*:
user turns to send to the mutant and ``expect_violation`` predicates over what the run shows --
the tool trace, the user-visible text, the ``respond`` JSON. A mutant is *activated* only when
its probe's predicates all hold on it (up to ``generator.max_attempts`` generations).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Fixed(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class OrderViolation(_Fixed):
    must_not_happen: list[str] = Field(
        min_length=2, description="[A, B, ...]: violated when A is called with no call of B before it "
                                  "(each later tool was skipped or came after A)")


class TracePredicate(_Fixed):
    called: list[str] = Field(default_factory=list, description="every one of these tools was called")
    not_called: list[str] = Field(default_factory=list, description="none of these tools was called")
    order_violation: OrderViolation | None = None

    def tools(self) -> list[str]:
        order = self.order_violation.must_not_happen if self.order_violation else []
        return [*self.called, *self.not_called, *order]


class TextPredicate(_Fixed):
    contains_any: list[str] = Field(default_factory=list, description="the user-visible text holds one of these")
    not_contains_any: list[str] = Field(default_factory=list, description="it holds none of these")


class JsonPredicate(_Fixed):
    equals: dict[str, Any] = Field(default_factory=dict, description="respond field -> value it has")
    in_: dict[str, list[Any]] = Field(default_factory=dict, alias="in",
                                      description="respond field -> values one of which it has")


class ViolationPredicates(_Fixed):
    """All given predicates must hold (on some turn for text/json, over the whole run for trace)."""

    trace: TracePredicate | None = None
    text: TextPredicate | None = None
    json_: JsonPredicate | None = Field(None, alias="json")


class ActivationProbe(_Fixed):
    case: str = Field("", description="name of the situation the probe sets up")
    user_turns: list[str] = Field(min_length=1)
    expect_violation: ViolationPredicates


class Mutation(_Fixed):
    id: str
    severity: str = ""
    category: str = ""
    intent: str = Field(description="the failure mode the mutant prompt must introduce")
    activation_probe: ActivationProbe


class AppliesTo(_Fixed):
    spec_version: str = Field("", description="e.g. v1; empty = every version of the lineage")


class PackGenerator(_Fixed):
    role: str = "MutationSmith"
    temperature: float = 0.0
    max_attempts: int = Field(5, ge=1, description="mutant generations tried before an intent counts as not activated")
    constraints: list[str] = Field(default_factory=list, description="rules the mutant writer must follow")


class MutationPack(_Fixed):
    mutation_pack_id: str
    spec_lineage: str = ""
    applies_to: AppliesTo = Field(default_factory=AppliesTo)
    generator: PackGenerator = Field(default_factory=PackGenerator)
    mutations: list[Mutation] = Field(min_length=1)

    @property
    def max_attempts(self) -> int:
        return self.generator.max_attempts

    def mutation(self, mutation_id: str) -> Mutation | None:
        return next((m for m in self.mutations if m.id == mutation_id), None)
