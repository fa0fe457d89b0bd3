"""Cache keys name what changes a result and nothing else (issue 8, Done-when 1).

Under a real (ephemeral) Prefect API: a second `pipeline` run with only `llm.concurrency` and
`execution.workers` changed makes 0 provider calls; editing the reference agent's rule table
reruns discovery (its traces then say the edited sentence); editing a fault file reruns that
fault's regression but not the pipeline; the llm-agent's policy document enters the keys of the
stages that talk to the target and no other.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from prefect.task_runners import ThreadPoolTaskRunner

import adat.config
from adat.cli.flow_loader import load_flow
from adat.config import LLMAgentTarget, RunConfig
from adat.pipeline.fingerprint import stage_key, target_digest
from adat.warehouse import read_records
from adat_offline.provider import OfflineHeuristicProvider
from adat_reference.agent import faults as fault_mod
from adat_reference.agent import rules as rules_mod
from tests.support.demo_config import small_demo_config

FAULT = "cancel_any_reason"


def _said_fragment(rules: Path, replies: list[str]) -> str:
    """A literal piece (≥ 25 characters, no placeholder) of a rule sentence the agent said in the
    first run: which sentences a small run hears depends on the tester, so the test looks."""
    sentences = re.findall(r'"([^"]+)"', rules.read_text())
    pieces = sorted({p.strip() for s in sentences for p in re.split(r"\{[^}]*\}", s) if len(p.strip()) >= 25},
                    key=len, reverse=True)
    heard = [p for p in pieces if any(p in r for r in replies)]
    assert heard, "the first run said no sentence of the rule table"
    return heard[0]


def _slower(cfg: RunConfig) -> RunConfig:
    """Same run, different performance knobs."""
    return cfg.model_copy(update={"llm": cfg.llm.model_copy(update={"concurrency": 1}),
                                  "execution": cfg.execution.model_copy(update={"workers": 1})})


@pytest.fixture(scope="module")
def calls(prefect_harness, tmp_path_factory):
    """Provider calls by prompt id since the last ``reset``; rules and faults read from a copy."""
    home = tmp_path_factory.mktemp("artifacts")
    rules = home / "rules.yaml"
    shutil.copy(rules_mod.default_rules_path(), rules)
    fault_dir = home / "faults"
    shutil.copytree(fault_mod.default_fault_dir(), fault_dir)
    seen: Counter[str] = Counter()
    original = OfflineHeuristicProvider.complete

    def counting(self, request):  # type: ignore[no-untyped-def]
        seen[request.prompt_id] += 1
        return original(self, request)

    mp = pytest.MonkeyPatch()
    mp.setattr(OfflineHeuristicProvider, "complete", counting)
    mp.setattr(adat.config, "reference_rules_path", lambda: rules)  # the agent and the keys read these
    mp.setattr(adat.config, "fault_dir", lambda: fault_dir)
    yield seen, rules, fault_dir
    mp.undo()


@pytest.mark.slow
def test_artifact_edits_rerun_their_stages_and_knobs_rerun_nothing(calls, tmp_path):
    seen, rules, fault_dir = calls
    cfg = small_demo_config(tmp_path / "data", sessions=4, n=4, run_id="keys-1")
    # threads, not the regression's worker processes: the rule table and fault files are patched in this process
    pipeline = load_flow("pipeline")
    regress = load_flow("regress").with_options(task_runner=ThreadPoolTaskRunner(max_workers=2))

    pipeline(config=cfg)
    regress(config=cfg, suite_run_id="keys-1", faults=[FAULT])
    assert seen["planner"] > 0 and seen["judge"] > 0

    seen.clear()
    pipeline(config=_slower(cfg))
    regress(config=_slower(cfg), suite_run_id="keys-1", faults=[FAULT])
    assert sum(seen.values()) == 0, f"a performance knob reran stages: {dict(seen)}"

    # the fault file: its regression reruns (judge calls), the pipeline does not
    path = fault_dir / f"{FAULT}.yaml"
    path.write_text(path.read_text().replace("title: ", "title: Edited, ", 1))
    seen.clear()
    pipeline(config=cfg)
    assert sum(seen.values()) == 0, f"a fault edit reran the pipeline: {dict(seen)}"
    regress(config=cfg, suite_run_id="keys-1", faults=[FAULT])
    assert seen["judge"] > 0, "the regression was served from the cache after its fault file changed"

    # the rule table: discovery reruns, and its traces say the edited sentence
    def said(text: str) -> int:
        return sum(text in turn.text for t in read_records(cfg.data_path(), "traces", run_id="keys-1")
                   for turn in t.turns if turn.role == "agent")

    replies = [turn.text for t in read_records(cfg.data_path(), "traces", run_id="keys-1")
               for turn in t.turns if turn.role == "agent"]
    old_text = _said_fragment(rules, replies)
    new_text = old_text.upper()
    assert said(old_text) > 0 and said(new_text) == 0
    rules.write_text(rules.read_text().replace(old_text, new_text))
    seen.clear()
    pipeline(config=cfg)
    assert seen["planner"] > 0 and seen["driver"] > 0
    assert said(new_text) > 0 and said(old_text) == 0


def test_policy_enters_the_keys_of_target_stages_only(tmp_path: Path) -> None:
    policy = tmp_path / "policy.md"
    policy.write_text("Refunds go to the original payment method.\n")
    cfg = RunConfig(data_dir=str(tmp_path / "data"),
                    target=LLMAgentTarget(model="openai/agent", policy=str(policy)))
    inputs = {"cfg": cfg, "run_id": "p-1"}
    before = {name: stage_key(name, inputs) for name in ("discovery", "execution", "extraction", "grounding")}
    digest = target_digest(cfg)
    policy.write_text("Refunds go to a gift card.\n")
    after = {name: stage_key(name, inputs) for name in before}
    assert target_digest(cfg) != digest
    assert after["discovery"] != before["discovery"] and after["execution"] != before["execution"]
    assert after["extraction"] == before["extraction"] and after["grounding"] == before["grounding"]
    slower = {name: stage_key(name, {**inputs, "cfg": _slower(cfg)}) for name in before}
    assert slower == after
    assert stage_key("discovery", {**inputs, "cfg": cfg.model_copy(update={"seed": 1})}) != after["discovery"]
