"""A small hand-made warehouse whose metric values are worked out by hand in test_metrics.py.

Two runs:

* ``r1`` — an AdaT2 run: two discovery traces (plus one execution-kind trace), a rule side log,
  eight statements, three instructions, three plain and four transformed tests, seven attempts,
  nine executions on the original agent (t1 and t2 twice, for pass^k), verdicts, audit labels
  (t4 has none), three groupings, execution labels and seven LLM calls.
* ``r2`` — a regression/TDAD run: four spec tests (two visible, two hidden) run on the original
  agent and on four faulty variants F1..F4, with verdicts, audit labels, one grouping, execution
  labels and one LLM call; and a spec-suite compilation (``tdad_tables``): three compile iterations, reruns on the compiled prompt (pass^k, HPR, SURS) and four prompt mutants.

Every data-quality check in sql/checks returns no rows on it; test_checks.py injects one
violation per check on top of it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from adat.records import (
    AssertionOutcome,
    Attempt,
    AuditLabel,
    BoundaryMapping,
    CompileIteration,
    Execution,
    ExecutionLabel,
    Grouping,
    Instruction,
    LLMCall,
    MutantRow,
    RuleEvent,
    Run,
    SpecResult,
    Statement,
    TestCase,
    Trace,
    Turn,
    Verdict,
)
from adat.spec_records import SpecTest
from adat.warehouse import write_records

T0 = datetime(2031, 1, 1, 12, 0, tzinfo=UTC)


def turns(n: int) -> list[Turn]:
    """``n`` alternating messages starting with the user, as discovery writes them."""
    return [Turn(role="user" if i % 2 == 0 else "agent", text=f"message {i}", ts=float(i)) for i in range(n)]


def statement(run_id: str, sid: str, trace: str, turn: int, rank: int | None) -> Statement:
    return Statement(statement_id=sid, run_id=run_id, text=f"statement {sid}", condition="c", behavior="b",
                     supporting_trace_id=trace, supporting_turn=turn, supporting_reply="reply",
                     grounded=rank is not None, rank=rank)


def test_case(run_id: str, tid: str, kind: str, statement_id: str | None = None,
              instruction_id: str | None = None) -> TestCase:
    return TestCase(test_id=tid, run_id=run_id, kind=kind, statement_id=statement_id,  # type: ignore[arg-type]
                    instruction_id=instruction_id, goal=f"goal of {tid}", step_hints=["hello"])


def attempt(run_id: str, no: int, sid: str, kid: str, test_id: str | None = None,
            verdict: str | None = None, reward: float | None = None, error: bool = False) -> Attempt:
    return Attempt(run_id=run_id, attempt_no=no, statement_id=sid, instruction_id=kid,
                   applicable=test_id is not None, test_id=test_id, verdict=verdict,  # type: ignore[arg-type]
                   reward=reward, selector="adat2", outcome="error" if error else None)  # type: ignore[arg-type]


def execution(run_id: str, eid: str, tid: str, variant: str = "original", session: str | None = None) -> Execution:
    return Execution(execution_id=eid, run_id=run_id, test_id=tid, agent_id="reference",
                     agent_variant=variant, session_id=session or f"s-{run_id}-{eid}", turns=turns(2))


def verdict(run_id: str, eid: str, tid: str, value: str) -> Verdict:
    return Verdict(run_id=run_id, execution_id=eid, test_id=tid, verdict=value)  # type: ignore[arg-type]


def label(run_id: str, tid: str, validity: str, *mappings: tuple[str, str, bool]) -> AuditLabel:
    return AuditLabel(run_id=run_id, test_id=tid, validity=validity,  # type: ignore[arg-type]
                      mappings=[BoundaryMapping(boundary=b, side=s, explicit=e,  # type: ignore[arg-type]
                                                passages=["passage"] if e else [])
                                for b, s, e in mappings])


def grouping(run_id: str, no: int, tid: str, boundary: str, side: str, group_boundary: str,
             group_side: str) -> Grouping:
    return Grouping(run_id=run_id, grouping_no=no, test_id=tid, boundary=boundary, side=side,  # type: ignore[arg-type]
                    group_boundary=group_boundary, group_side=group_side)


def exec_label(run_id: str, eid: str, tid: str, value: str, variant: str = "original",
               fault: str | None = None) -> ExecutionLabel:
    return ExecutionLabel(run_id=run_id, execution_id=eid, test_id=tid, agent_variant=variant,
                          label=value, attributed_fault=fault)  # type: ignore[arg-type]


def event(run_id: str, session: str, turn: int, rule: str, side: str = "allowed") -> RuleEvent:
    return RuleEvent(run_id=run_id, session_id=session, rule_id=rule, side=side, turn=turn)  # type: ignore[arg-type]


def call(run_id: str, cid: str, role: str, model: str, tokens_in: int, tokens_out: int, cost: float, *,
         cache_hit: bool = False, priced: bool = True, error: str | None = None,
         repaired: bool = False, invalid_answers: int = 0, cut_chars: int = 0) -> LLMCall:
    provider, name = model.split("/", 1)
    return LLMCall(call_id=cid, run_id=run_id, role=role, provider=provider, model=name,
                   input_tokens=tokens_in, output_tokens=tokens_out, cost_usd=cost, cache_hit=cache_hit,
                   priced=priced, error=error, repaired=repaired, invalid_answers=invalid_answers, ts=T0,
                   cut_chars=cut_chars, cut_items=int(cut_chars > 0),
                   cut_rule="context-v1: dropped the oldest 1 of 3 discovery_traces" if cut_chars else "")


def r1_tables() -> dict[str, list]:
    r = "r1"
    return {
        "runs": [Run(run_id=r, flow="pipeline", started_at=T0, finished_at=T0, status="completed",
                     config_json='{"generation": {"n": 3}}')],
        "traces": [Trace(trace_id="d1", run_id=r, kind="discovery", session_id="s-d1", turns=turns(6)),
                   Trace(trace_id="d2", run_id=r, kind="discovery", session_id="s-d2", turns=turns(6)),
                   # the trace of execution e-p1 (same session); statement h8 points at it
                   Trace(trace_id="x1", run_id=r, kind="execution", session_id="s-e1", turns=turns(2))],
        "rule_events": [event(r, "s-d1", 0, "R_auth", "denied"),
                        event(r, "s-d1", 1, "R_cancel"), event(r, "s-d1", 1, "R_status", "denied"),
                        event(r, "s-d1", 1, "R_cancel"),  # evaluated twice in one turn
                        event(r, "s-d1", 2, "R_refund"),
                        event(r, "s-d2", 0, "R_auth"), event(r, "s-d2", 1, "R_exchange", "denied"),
                        event(r, "s-e1", 0, "R_other", "denied")],  # an execution's session
        "statements": [statement(r, "h1", "d1", 1, 1), statement(r, "h2", "d1", 3, 2),
                       statement(r, "h3", "d1", 3, 3), statement(r, "h4", "d2", 3, None),
                       statement(r, "h5", "d2", 1, 4), statement(r, "h6", "d2", 5, 5),
                       statement(r, "h7", "d1", 5, 6), statement(r, "h8", "x1", 1, 7)],
        "instructions": [Instruction(instruction_id="k1", run_id=r, title="Change wording", text="t", factor="wording",
                                     applicability="a", prior_applicability=0.5),
                         Instruction(instruction_id="k2", run_id=r, title="Change value", text="t", factor="value",
                                     applicability="a", prior_applicability=0.5),
                         Instruction(instruction_id="k3", run_id=r, title="Swap order", text="t", factor="sequence",
                                     applicability="a", prior_applicability=0.5)],
        "tests": [test_case(r, "p1", "plain", "h1"), test_case(r, "p2", "plain", "h2"),
                  test_case(r, "p3", "plain", "h3"),
                  test_case(r, "t1", "transformed", "h1", "k1"), test_case(r, "t2", "transformed", "h2", "k1"),
                  test_case(r, "t3", "transformed", "h2", "k2"), test_case(r, "t4", "transformed", "h3", "k1")],
        "attempts": [attempt(r, 1, "h1", "k1", "t1", "pass", 1.0), attempt(r, 2, "h1", "k2"),
                     attempt(r, 3, "h2", "k1", "t2", "fail", 0.0), attempt(r, 4, "h2", "k3"),
                     attempt(r, 5, "h2", "k2", "t3", "inconclusive", 0.5), attempt(r, 6, "h3", "k3", error=True),
                     attempt(r, 7, "h3", "k1", "t4", "pass", 1.0)],
        "executions": [execution(r, "e-p1", "p1", session="s-e1"), execution(r, "e-p2", "p2"),
                       execution(r, "e-p3", "p3"), execution(r, "e-t1", "t1"), execution(r, "e-t2", "t2"),
                       execution(r, "e-t3", "t3"), execution(r, "e-t4", "t4"),
                       execution(r, "e-t1b", "t1"), execution(r, "e-t2b", "t2")],
        "verdicts": [verdict(r, "e-p1", "p1", "pass"), verdict(r, "e-p2", "p2", "fail"),
                     verdict(r, "e-p3", "p3", "fail"), verdict(r, "e-t1", "t1", "pass"),
                     verdict(r, "e-t2", "t2", "fail"), verdict(r, "e-t3", "t3", "inconclusive"),
                     verdict(r, "e-t4", "t4", "pass"), verdict(r, "e-t1b", "t1", "pass"),
                     verdict(r, "e-t2b", "t2", "pass")],
        "audit_labels": [label(r, "p1", "explicit", ("R_auth", "denied", True)),
                         label(r, "p2", "valid", ("R_cancel", "allowed", False)),
                         label(r, "p3", "invalid"),
                         label(r, "t1", "explicit", ("R_auth", "allowed", True), ("R_status", "denied", True)),
                         label(r, "t2", "explicit", ("R_cancel", "denied", True)),
                         label(r, "t3", "valid", ("R_cancel", "allowed", False))],  # t4: never audited
        "groupings": [
            # grouping 1: one group per rule; p2's mapping is not explicit and must not count
            grouping(r, 1, "p1", "R_auth", "denied", "R_auth", "R_auth:denied"),
            grouping(r, 1, "t1", "R_auth", "allowed", "R_auth", "R_auth:allowed"),
            grouping(r, 1, "t1", "R_status", "denied", "R_status", "R_status:denied"),
            grouping(r, 1, "t2", "R_cancel", "denied", "R_cancel", "R_cancel:denied"),
            grouping(r, 1, "p2", "R_cancel", "allowed", "R_cancel", "R_cancel:allowed"),
            # grouping 2: auth and status merged into one boundary
            grouping(r, 2, "p1", "R_auth", "denied", "identity", "identity:denied"),
            grouping(r, 2, "t1", "R_auth", "allowed", "identity", "identity:allowed"),
            grouping(r, 2, "t1", "R_status", "denied", "identity", "identity:denied"),
            grouping(r, 2, "t2", "R_cancel", "denied", "cancel", "cancel:denied"),
            # grouping 3: boundaries as in 1, but t1's status side grouped with p1's side
            grouping(r, 3, "p1", "R_auth", "denied", "R_auth", "R_auth:denied"),
            grouping(r, 3, "t1", "R_auth", "allowed", "R_auth", "R_auth:allowed"),
            grouping(r, 3, "t1", "R_status", "denied", "R_status", "R_auth:denied"),
            grouping(r, 3, "t2", "R_cancel", "denied", "R_cancel", "R_cancel:denied")],
        "execution_labels": [exec_label(r, "e-p1", "p1", "TN"), exec_label(r, "e-p2", "p2", "TP"),
                             exec_label(r, "e-t1", "t1", "TN"), exec_label(r, "e-t2", "t2", "FP"),
                             exec_label(r, "e-t3", "t3", "INC"), exec_label(r, "e-t1b", "t1", "FN"),
                             exec_label(r, "e-t2b", "t2", "TN")],
        "llm_calls": [call(r, "c1", "planner", "offline/heuristic", 100, 20, 0.0),
                      call(r, "c2", "generator", "openai/gpt-x", 1000, 200, 0.01, cut_chars=4200),
                      call(r, "c3", "generator", "openai/gpt-x", 1000, 200, 0.0, cache_hit=True),
                      call(r, "c4", "judge", "openai/gpt-x", 500, 50, 0.004, repaired=True, invalid_answers=1),
                      call(r, "c5", "auditor", "openai/gpt-big", 2000, 100, 0.05),
                      call(r, "c6", "judge", "openai/gpt-x", 10, 10, 0.0, priced=False, error="timeout"),
                      call(r, "c7", "agent", "openai/gpt-x", 400, 40, 0.002)],
    }


def r2_tables() -> dict[str, list]:
    r = "r2"
    runs = {  # execution id -> (test, variant, verdict)
        "o1": ("s1", "original", "pass"), "o2": ("s2", "original", "pass"),
        "o3": ("s3", "original", "pass"), "o4": ("s4", "original", "fail"),
        "f1a": ("s1", "F1", "fail"), "f1b": ("s2", "F1", "fail"), "f1c": ("s3", "F1", "pass"),
        "f2a": ("s1", "F2", "pass"), "f2b": ("s2", "F2", "fail"), "f2d": ("s4", "F2", "fail"),
        "f3a": ("s1", "F3", "pass"), "f3b": ("s2", "F3", "pass"),
        "f4a": ("s1", "F4", "pass"), "f4c": ("s3", "F4", "fail"),
    }
    labels = {  # execution id -> (label, attributed fault); s4 is invalid, so f2d/o4 have none
        "o1": ("TN", None), "o2": ("TN", None), "o3": ("TN", None),
        "f1a": ("TP", "F1"), "f1b": ("TP", None), "f1c": ("TN", None),
        "f2a": ("TN", None), "f2b": ("TP", "F1"),
        "f3a": ("TN", None), "f3b": ("INC", None),
        "f4a": ("INC", None), "f4c": ("TP", "F4"),
    }
    return {
        "runs": [Run(run_id=r, flow="regress", started_at=T0, status="completed")],
        # same session id as r1's d1: must not leak into r1's rule coverage
        "rule_events": [event(r, "s-d1", 1, "R_r2")],
        "tests": [test_case(r, "s1", "spec"), test_case(r, "s2", "spec"), test_case(r, "s3", "spec"),
                  test_case(r, "s4", "spec")],
        "executions": [execution(r, eid, tid, variant) for eid, (tid, variant, _) in runs.items()],
        "verdicts": [verdict(r, eid, tid, value) for eid, (tid, _, value) in runs.items()],
        "audit_labels": [label(r, "s1", "explicit", ("R_x", "allowed", True)),
                         label(r, "s2", "explicit", ("R_y", "denied", True)),
                         label(r, "s3", "valid", ("R_z", "allowed", False)),
                         label(r, "s4", "invalid")],
        "groupings": [grouping(r, 1, "s1", "R_x", "allowed", "X", "X:allowed"),
                      grouping(r, 1, "s2", "R_y", "denied", "X", "X:denied")],
        "execution_labels": [exec_label(r, eid, runs[eid][0], value, runs[eid][1], fault)
                             for eid, (value, fault) in labels.items()],
        "llm_calls": [call(r, "c8", "judge", "openai/gpt-x", 300, 30, 0.003)],
        # the regressions' activation rows: F3's rule never decided unlike the shipped rule
        "mutants": [MutantRow(run_id=r, mutant_id=f, kind="fault", intent=f"R_{f}", activated=f != "F3",
                              activation_attempts=1, probe_holds_on_base=False) for f in ("F1", "F2", "F3", "F4")],
    }


def spec_result(run_id: str, rid: str, tid: str, passed: bool, *, split: str = "visible", variant: str = "compiled",
                digest: str = "D1", iteration: int = 0, scope: str = "suite", rerun: int = 0,
                not_observable: bool = False) -> SpecResult:
    outcome = "not_observable" if not_observable else "pass" if passed else "fail"
    return SpecResult(run_id=run_id, result_id=rid, spec_id="sx", spec_version="1", test_id=tid,
                      split=split, agent_variant=variant, artifact_digest=digest, iteration=iteration,  # type: ignore[arg-type]
                      scope=scope, rerun=rerun, passed=passed and not not_observable, not_observable=not_observable,
                      assertion_results=[AssertionOutcome(index=0, kind="tool_called", clause="P1", outcome=outcome),
                                         AssertionOutcome(index=1, kind="decision_in", clause="N1",
                                                          outcome="not_observable")])


def iteration(run_id: str, no: int, parent: str, candidate: str, promoted: bool, failing: list[str]) -> CompileIteration:
    return CompileIteration(run_id=run_id, spec_id="sx", spec_version="1", iteration=no, parent_digest=parent,
                            candidate_digest=candidate, promoted=promoted,
                            in_effect_digest=candidate if promoted else parent, failing_tests=failing)


def tdad_tables(r: str) -> dict[str, list]:
    """A spec-suite run. Visible a1 a2 a3, hidden h1 h2, v1 invariants i1 i2.

    Compilation (full visible runs): it0 D0: a1 pass, a2 fail, a3 fail; it1 D1 (promoted): a1 a2
    pass, a3 fail; it2 D2 (not promoted: 1 < 2): a3 passes in the inner loop, full run a3 pass,
    a1 a2 fail. Reruns on the compiled prompt (k = 3): a1 TTT, a2 TFT, a3 FFF, h1 TTT, h2 FTT;
    invariants i1 T, i2 F (passed on v1), i3 T (failed on v1: scope invariant_v1_failed; its no_pii
    assertion not observable for want of fixtures), i4 not runnable on v2. spec_tests: the five
    tests TestSmith wrote (what tdad_test_counts counts). Mutants: M1 fails a1; M2 fails a2 (flaky on the base) and a3 (fails on
    the base); M3 fails nothing; M4 fails a1 but its probe never held (not activated).
    """
    compile_runs = [(0, "D0", "full", {"a1": True, "a2": False, "a3": False}),
                    (1, "D1", "full", {"a1": True, "a2": True, "a3": False}),
                    (2, "D2", "failing", {"a3": True}),
                    (2, "D2", "full", {"a1": False, "a2": False, "a3": True})]
    reruns = {"a1": ("visible", "TTT"), "a2": ("visible", "TFT"), "a3": ("visible", "FFF"),
              "h1": ("hidden", "TTT"), "h2": ("hidden", "FTT")}
    on_mutants = {"M1": {"a1": False, "a2": True, "a3": True}, "M2": {"a1": True, "a2": False, "a3": False},
                  "M3": {"a1": True, "a2": True, "a3": True}, "M4": {"a1": False}}
    return {
        "compile_iterations": [iteration(r, 0, "", "D0", True, []),
                               iteration(r, 1, "D0", "D1", True, ["a2", "a3"]),
                               iteration(r, 2, "D1", "D2", False, ["a3"])],
        # a3's first full run (D0) and h2's first rerun showed nothing the test needs: not observable
        "compile_results": [spec_result(r, f"c{no}-{scope}-{t}", t, ok, variant="candidate", digest=d,
                                        iteration=no, scope=scope, not_observable=(no, t) == (0, "a3"))
                            for no, d, scope, outcomes in compile_runs for t, ok in outcomes.items()],
        "spec_reruns": [spec_result(r, f"k-{t}-{i}", t, flag == "T", split=split, rerun=i,
                                    not_observable=(t, i) == ("h2", 0))
                        for t, (split, flags) in reruns.items() for i, flag in enumerate(flags)]
        + [spec_result(r, "k-i1", "i1", True, scope="invariant"), spec_result(r, "k-i2", "i2", False, scope="invariant"),
           spec_result(r, "k-i3", "i3", True, scope="invariant_v1_failed").model_copy(update={"assertion_results": [
               AssertionOutcome(index=0, kind="no_pii", clause="P7", outcome="not_observable",
                                detail="fixtures not delivered: the expected value exists only in the fixtures")]}),
           spec_result(r, "k-i4", "i4", False, scope="not_runnable"),
           # another prompt's rerun: not the compiled prompt, counts nowhere
           spec_result(r, "k-a3-x", "a3", True, variant="seed", rerun=3)],
        "spec_tests": [SpecTest(test_id=t, run_id=r, spec_id="sx", spec_version="1", family="MFT" if s == "visible"
                                else "paraphrase", split=s, leaf_id="END_X", user_turns=["hi"])  # type: ignore[arg-type]
                       for t, (s, _) in reruns.items()],
        "mutants": [MutantRow(run_id=r, mutant_id=m, spec_id="sx", spec_version="1", activated=m != "M4",
                              activation_attempts=1 if m != "M4" else 5) for m in on_mutants],
        "mutant_results": [spec_result(r, f"m-{m}-{t}", t, ok, variant=m, digest=f"D-{m}")
                           for m, outcomes in on_mutants.items() for t, ok in outcomes.items()]
        + [spec_result(r, "m-M3-probe", "probe", False, variant="M3", scope="probe")],  # probes kill nothing
    }


def write_metrics_fixture(root: Path) -> Path:
    """Write runs r1 and r2 under ``root`` (a warehouse data root) and return it."""
    r2, tdad = r2_tables(), tdad_tables("r2")
    for table, records in tdad.items():  # a table both parts of r2 write (mutants) holds both
        r2[table] = r2.get(table, []) + records
    for run_id, tables in (("r1", r1_tables()), ("r2", r2)):
        for table, records in tables.items():
            write_records(root, table, records, run_id=run_id)
    return root
