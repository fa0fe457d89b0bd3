"""The reference agent's rule book: rule ids, parameters and the sentences that state each rule.

``data/reference/retail/rules.yaml`` lists every rule the agent enforces. The agent's code asks
the :class:`RuleEngine` whether a request passes a rule (a predicate over the rule's parameters);
the engine records the *policy* side (the shipped parameters) in the session's side log and
returns the *effective* decision, which differs only when a seeded fault overrides the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adat import config
from adat.errors import UserError
from adat.yaml_io import parsed_once, read_yaml
from adat_reference.agent.sidelog import SideLog
from adat_reference.agent.silent import SilentBehaviour

Predicate = Callable[[Mapping[str, Any]], bool]
Outcome = Literal["allowed", "denied"]


def default_rules_path() -> Path:
    """The shipped rule table of the retail reference agent."""
    return config.reference_rules_path()


class Rule(BaseModel):
    """One policy rule: its id, the policy passage it enforces, parameters and sentences."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    policy: str = Field(description="the policy passage the rule enforces")
    params: dict[str, Any] = Field(default_factory=dict)
    sentences: dict[str, str] = Field(
        description="what the agent says: 'denied' (required) and optionally 'ask', 'allowed', ...")


class RuleOverride(BaseModel):
    """A fault's change to one rule: new parameter values, a forced outcome, new sentences, or a
    tool-call behaviour that breaks the rule while the words stay the policy's (a silent fault)."""

    model_config = ConfigDict(extra="forbid")

    params: dict[str, Any] = Field(default_factory=dict)
    outcome: Outcome | None = Field(None, description="force the rule's decision regardless of the request")
    sentences: dict[str, str] = Field(default_factory=dict)
    tool_calls: SilentBehaviour | None = Field(None, description=(
        "a silent fault: what the agent's tool calls do against the rule while its replies stay the "
        "original's (adat_reference.agent.silent.BEHAVIOURS)"))


class RuleBook:
    """The rules by id, loaded from a YAML file and validated."""

    def __init__(self, rules: dict[str, Rule], source: str) -> None:
        self.rules = rules
        self.source = source

    @classmethod
    def load(cls, path: Path | str | None = None) -> RuleBook:
        """Read a rule table; any problem is a one-line :class:`UserError` naming the file.

        A table read before is reused while its file's bytes are unchanged: every reference agent
        loads it, and nothing changes a loaded book (:meth:`overridden` copies).
        """
        p = Path(path) if path is not None else default_rules_path()
        if not p.is_file():
            raise UserError("rule table not found", file=str(p), fix="pass an existing rules.yaml")
        return parsed_once(p, cls._read)

    @classmethod
    def _read(cls, p: Path) -> RuleBook:
        doc = read_yaml(p)
        if not isinstance(doc, dict) or not isinstance(doc.get("rules"), list):
            raise UserError("expected a mapping with a 'rules' list", file=str(p), field="rules",
                            fix="list the rules under a top-level 'rules:' key")
        rules: dict[str, Rule] = {}
        for index, raw in enumerate(doc["rules"]):
            try:
                rule = Rule.model_validate(raw)
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = ".".join(str(part) for part in err["loc"])
                raise UserError(err["msg"], file=str(p), field=f"rules[{index}].{loc}",
                                fix="each rule needs id, title, policy, params and sentences") from None
            if rule.id in rules:
                raise UserError(f"duplicate rule id {rule.id!r}", file=str(p), field=f"rules[{index}].id",
                                fix="give every rule a unique id")
            if "denied" not in rule.sentences:
                raise UserError("missing the 'denied' sentence", file=str(p), field=f"rules[{index}].sentences",
                                fix="state what the agent says when a request fails the rule")
            rules[rule.id] = rule
        return cls(rules, str(p))

    def ids(self) -> list[str]:
        """Rule ids in file order."""
        return list(self.rules)

    def overridden(self, rule_id: str, override: RuleOverride, *, origin: str) -> RuleBook:
        """A copy with ``override`` applied to ``rule_id``; unknown ids or parameters are UserErrors."""
        if rule_id not in self.rules:
            raise UserError(f"unknown rule {rule_id!r}", file=origin, field="rule",
                            fix=f"use one of: {', '.join(self.ids())}")
        rule = self.rules[rule_id]
        unknown = sorted(set(override.params) - set(rule.params))
        if unknown:
            raise UserError(f"rule {rule_id!r} has no parameter(s) {', '.join(unknown)}", file=origin,
                            field="override.params", fix=f"override only: {', '.join(rule.params) or '(none)'}")
        changed = rule.model_copy(update={
            "params": {**rule.params, **override.params},
            "sentences": {**rule.sentences, **override.sentences},
        })
        return RuleBook({**self.rules, rule_id: changed}, self.source)


class RuleEngine:
    """Decides requests against the effective rules and logs the policy side of each decision."""

    def __init__(self, book: RuleBook, *, fault_rule: str | None = None,
                 override: RuleOverride | None = None, fault_origin: str = "fault") -> None:
        self.original = book
        self.effective = book
        self.forced: dict[str, Outcome] = {}
        self.silent: SilentBehaviour | None = None  # a silent fault's tool-call behaviour (agent.silent)
        self.silent_rule: str | None = None
        if fault_rule is not None and override is not None:
            self.silent, self.silent_rule = override.tool_calls, fault_rule
            self.effective = book.overridden(fault_rule, override, origin=fault_origin)
            if override.outcome is not None:
                self.forced[fault_rule] = override.outcome

    def params(self, rule_id: str) -> Mapping[str, Any]:
        """The effective parameters of a rule (what this agent variant believes)."""
        return self.effective.rules[rule_id].params

    def peek(self, rule_id: str, predicate: Predicate) -> bool:
        """This agent's decision without logging it (to choose what to ask before the user answers)."""
        forced = self.forced.get(rule_id)
        return (forced == "allowed") if forced else bool(predicate(self.effective.rules[rule_id].params))

    def decide(self, rule_id: str, predicate: Predicate, log: SideLog, turn: int) -> bool:
        """Whether the request passes ``rule_id`` for this agent; logs the policy side.

        The side log records what the *shipped* rule decides (the side of the boundary the request
        lies on); when the fault makes this agent decide otherwise, the activation is recorded too.
        """
        policy_ok = bool(predicate(self.original.rules[rule_id].params))
        forced = self.forced.get(rule_id)
        effective_ok = (forced == "allowed") if forced else bool(predicate(self.effective.rules[rule_id].params))
        log.record(rule_id, policy_ok, turn, activated=effective_ok != policy_ok)
        return effective_ok

    def say(self, rule_id: str, key: str = "denied", **values: Any) -> str:
        """The rule's sentence ``key`` filled with ``values`` and the rule's effective parameters.

        A list parameter ``p`` is available as ``{p}`` ("a or b") and ``{p_quoted}`` ("'a' or 'b'").
        """
        rule = self.effective.rules[rule_id]
        template = rule.sentences.get(key) or rule.sentences["denied"]
        fill: dict[str, Any] = {}
        for name, value in rule.params.items():
            if isinstance(value, list):
                fill[name] = join_or([str(v) for v in value])
                fill[f"{name}_quoted"] = join_or([f"'{v}'" for v in value])
            else:
                fill[name] = value
        fill.update(values)
        return template.format_map(_Blank(fill)).strip()


def join_or(words: list[str], last: str = "or") -> str:
    """'a', 'a or b', 'a, b or c'."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


class _Blank(dict[str, Any]):
    """format_map mapping that leaves a placeholder the caller did not fill empty, not a KeyError."""

    def __missing__(self, key: str) -> str:
        return ""
