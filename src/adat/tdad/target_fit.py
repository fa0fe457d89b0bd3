"""Which agent a spec suite tests, and what that agent can take (issue #27 item 4).

A spec suite tests the built spec agent by default: an llm-agent whose system prompt and tool
descriptions are the prompt artifact and whose tools answer with each test's fixtures. A config
naming ``target:`` (``spec_suite.use_target``, which ``adat spec`` sets then) points the suite
elsewhere, and what the suite can do depends on the kind:

* ``llm-agent``: the built spec agent on the target's model. It reads the compiled prompt and
  takes fixtures, so compilation, prompt mutants and every assertion work; the target's
  ``policy`` and ``database`` are not used (the compiled prompt and the fixtures replace them).
* ``http``, ``python``, ``reference``: an agent adat does not build. It does not read the
  compiled prompt, so PromptSmith and MutationSmith cannot change it (``spec compile`` and
  ``spec mutate`` refuse it in one line; ``spec run`` runs the tests once on it and skips both),
  and its tools answer from its own backend, never from a test's fixtures: assertions whose
  expected value exists only in a fixture (:func:`fixture_bound`) are *not observable* on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from adat.config import LLMAgentTarget, RunConfig
from adat.spec_records import SpecAssertion, SpecTest

#: the detail every assertion made unobservable for want of fixtures starts with (sql/metrics reads it)
FIXTURES_NOT_DELIVERED = "fixtures not delivered"


@dataclass(frozen=True)
class SpecTargetFit:
    """The agent a spec suite runs its tests on, and what it can take."""

    kind: str
    agent_model: str | None
    prompt_driven: bool  # reads the compiled prompt and takes the tests' fixtures

    def label(self) -> str:
        if self.kind == "spec-agent":
            return f"the built spec agent ({self.agent_model})"
        if self.kind == "llm-agent":
            return f"the built spec agent on the llm-agent target's model ({self.agent_model})"
        return f"target {self.kind}"

    def skipped_line(self) -> str:
        """Why compilation and prompt mutation do not apply (empty for a prompt-driven agent)."""
        if self.prompt_driven:
            return ""
        return (f"compilation and prompt mutation skipped: {self.label()} does not read the compiled prompt, so "
                "PromptSmith and MutationSmith cannot change it; the spec's tests ran on it as it is, and its tools "
                "answered from its own data, not the tests' fixtures")


def target_fit(cfg: RunConfig) -> SpecTargetFit:
    """What the suite of ``cfg`` runs its tests on (see the module docstring)."""
    if not cfg.spec_suite.use_target:
        return SpecTargetFit("spec-agent", cfg.models.spec_agent, prompt_driven=True)
    if isinstance(cfg.target, LLMAgentTarget):
        return SpecTargetFit("llm-agent", cfg.target.model, prompt_driven=True)
    return SpecTargetFit(cfg.target.type, None, prompt_driven=False)


def fixture_bound(assertion: SpecAssertion, test: SpecTest) -> bool:
    """Whether ``assertion`` can only be judged on an agent that received ``test``'s fixtures.

    * ``no_pii`` without patterns whose canaries are all planted in fixture outputs: an agent that
      never saw them cannot leak them, so a pass would be empty;
    * ``json_equals`` / ``json_in`` / ``text_contains_any`` whose expected values are all data -- an
      id, amount or date (a value with a digit) -- found in a fixture output and in no user turn:
      the agent can only state it if its tool returned it.

    Tool-trace kinds, ``decision_in``, ``response_fields`` and expected words stay judged: what the
    agent calls, decides and says is observable whatever data its tools return.
    """
    if not test.fixtures:
        return False
    fixtures = "\n".join(f.output_json for f in test.fixtures if not f.failure).lower()
    values = [v.lower() for v in assertion.values if v.strip()]
    if assertion.kind == "no_pii":
        return bool(values) and not assertion.patterns and all(v in fixtures for v in values)
    if assertion.kind in ("json_equals", "json_in", "text_contains_any"):
        said = "\n".join(test.user_turns).lower()
        return bool(values) and all(any(c.isdigit() for c in v) and v in fixtures and v not in said for v in values)
    return False
