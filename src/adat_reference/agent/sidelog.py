"""The evaluation-only side log: which rule the agent evaluated, on which side, at which user turn.

A tester never sees it. The auditor maps tests to boundary sides with it, and attributes fail
verdicts on a faulty agent to the fault through the recorded activations (turns where the
fault made the agent decide differently from the shipped rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adat.records import RuleEvent


@dataclass
class SideLog:
    """Rule evaluations of one session, in order."""

    events: list[tuple[str, str, int]] = field(default_factory=list)
    activations: list[tuple[str, int]] = field(default_factory=list)
    decisions: list[tuple[str, str, int]] = field(default_factory=list)  # the side this variant took

    def record(self, rule_id: str, allowed: bool, turn: int, *, activated: bool = False) -> None:
        """Log one evaluation; ``allowed`` is the side under the shipped rule.

        ``activated``: the agent variant decided the other way (a seeded fault); ``decisions`` keeps
        the side it took either way.
        """
        self.events.append((rule_id, "allowed" if allowed else "denied", turn))
        self.decisions.append((rule_id, "allowed" if allowed != activated else "denied", turn))
        if activated:
            self.activations.append((rule_id, turn))

    def rule_events(self, run_id: str, session_id: str, agent_variant: str = "original") -> list[RuleEvent]:
        """The log as :class:`adat.records.RuleEvent` rows."""
        return [RuleEvent(run_id=run_id, session_id=session_id, agent_variant=agent_variant, rule_id=rule_id,
                          side=side, turn=turn, decision=taken)  # type: ignore[arg-type]
                for (rule_id, side, turn), (_, taken, _) in zip(self.events, self.decisions, strict=True)]
