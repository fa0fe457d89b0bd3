"""Mutation packs (``benchmarks/tdad/mutation_packs/*/mutations.yaml``) as pydantic models.

A pack lists mutation *intents* for one spec lineage. Each intent carries an *activation probe*:
user turns to send to the mutant and ``expect_violation`` predicates over what the run shows --
the tool trace, the user-visible text, the ``respond`` JSON. A mutant is *activated* only when
its probe's predicates all hold on it (up to ``generator.max_attempts`` generations).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Fixed(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class OrderViolation(_Fixed):
    """Two readings of "called in the wrong order"; give one or both (both must then hold)."""

    must_not_happen: list[str] = Field(
        default_factory=list, description="the paper's key: [A, B, ...] is violated when these tools were called in "
                                          "this order (A, then B after it, ...); a skipped tool is no violation")
    missing_before: list[str] = Field(
        default_factory=list, description="adat's key: [A, B, ...] is violated when A was called with one of the "
                                          "later tools not called before it (skipped, or only after A)")

    @model_validator(mode="after")
    def _one_given(self) -> OrderViolation:
        for name in ("must_not_happen", "missing_before"):
            tools = getattr(self, name)
            if tools and len(tools) < 2:
                raise ValueError(f"{name} names at least two tools, [A, B, ...]")
        if not (self.must_not_happen or self.missing_before):
            raise ValueError("give must_not_happen (the paper's: A then B) or missing_before (A with B not before it)")
        return self


class TracePredicate(_Fixed):
    called: list[str] = Field(default_factory=list, description="every one of these tools was called")
    not_called: list[str] = Field(default_factory=list, description="none of these tools was called")
    order_violation: OrderViolation | None = None

    def tools(self) -> list[str]:
        order = self.order_violation
        return [*self.called, *self.not_called, *(order.must_not_happen + order.missing_before if order else [])]


class TextPredicate(_Fixed):
    contains_any: list[str] = Field(default_factory=list, description="the user-visible text holds one of these")
    not_contains_any: list[str] = Field(default_factory=list, description="it holds none of these")


#: the paper's spelling -> adat's; both are accepted, and a pack may mix them
JSON_KEY_SYNONYMS = {"field_equals": "equals", "field_in": "in"}


class JsonPredicate(_Fixed):
    """``equals`` / ``in`` (adat) or ``field_equals`` / ``field_in`` (the TDAD paper): the same predicates."""

    equals: dict[str, Any] = Field(default_factory=dict, description="respond field -> value it has")
    in_: dict[str, list[Any]] = Field(default_factory=dict, alias="in",
                                      description="respond field -> values one of which it has")

    @model_validator(mode="before")
    @classmethod
    def _paper_keys(cls, raw: Any) -> Any:
        if not isinstance(raw, dict) or not any(k in raw for k in JSON_KEY_SYNONYMS):
            return raw
        out = {k: v for k, v in raw.items() if k not in JSON_KEY_SYNONYMS}
        for paper, ours in JSON_KEY_SYNONYMS.items():
            if paper not in raw:
                continue
            given, also = raw[paper], out.get(ours)
            if not isinstance(given, dict) or (also is not None and not isinstance(also, dict)):
                out[ours] = given  # let the field's own validation name the bad value
                continue
            clash = set(given) & set(also or {})
            if clash:
                raise ValueError(f"{paper} and {ours} both name {sorted(clash)[0]!r}; keep one spelling")
            out[ours] = {**(also or {}), **given}
        return out


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
