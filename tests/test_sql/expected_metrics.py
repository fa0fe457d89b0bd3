"""Every sql/metrics file's result on the fixture warehouse (warehouse_fixture.py), worked out by hand.

Comments give the arithmetic. Facts used throughout:

r1  tests: plain p1 p2 p3, transformed t1 t2 t3 t4. Audit: p1 explicit, p2 valid, p3 invalid,
    t1 explicit, t2 explicit, t3 valid, t4 unlabelled (counts as not valid).
    Verdicts on original: p1 pass, p2 fail, p3 fail, t1 pass+pass (e-t1, e-t1b),
    t2 fail+pass (e-t2, e-t2b), t3 inconclusive, t4 pass.
    Attempts: 1 (h1,k1) t1 | 2 (h1,k2) n/a | 3 (h2,k1) t2 | 4 (h2,k3) n/a | 5 (h2,k2) t3 |
    6 (h3,k3) n/a | 7 (h3,k1) t4. Configured generation.n = 3.
r2  tests: spec s1 s2 (visible), s3 s4 (hidden). Audit: s1 explicit, s2 explicit, s3 valid,
    s4 invalid. Verdicts (original / F1 / F2 / F3 / F4):
        s1: pass / fail / pass / pass / pass
        s2: pass / fail / fail / pass / -
        s3: pass / pass / -    / -    / fail
        s4: fail / -    / fail / -    / -
    and a spec-suite compilation of spec sx v1 (warehouse_fixture.tdad_tables): visible a1 a2 a3,
    hidden h1 h2, invariants i1 i2; compile VPR 1/3 -> 2/3 (D1) -> D2 rejected; reruns k = 3;
    mutants M1 (kills via a1) M2 M3 (survive) M4 (not activated).
"""

from __future__ import annotations

from tests.test_sql.rows import Case

FD_COLUMNS = ("run_id", "fault", "base_run", "activated", "tests_run", "pass_to_fail", "audited_tests",
              "detecting_tests", "detected", "evidence")
AUDITED = "audited: TP attributed to the fault"
MS_COLUMNS = ("run_id", "kind", "variants", "activated", "activated_intents", "killed", "mutation_score",
              "activation_rate", "killed_variants", "survivors", "not_activated", "duplicates", "compile_status")
SFD_COLUMNS = ("run_id", "seeded", "detected", "detection_rate", "activated", "activation_rate", "detected_faults",
               "unreached", "reached_undetected")

EXPECTED: dict[str, list[Case]] = {
    "run_llm_calls": [Case(
        ("run_id", "role", "provider_model", "calls", "errors"),
        [("r1", "agent", "openai/gpt-x", 1, 0),          # c7
         ("r1", "auditor", "openai/gpt-big", 1, 0),      # c5 (no evaluation phase recorded on it)
         ("r1", "generator", "openai/gpt-x", 2, 0),      # c2, c3 (a cache hit is a call)
         ("r1", "judge", "openai/gpt-x", 2, 1),          # c4, c6 (timeout)
         ("r1", "planner", "offline/heuristic", 1, 0),   # c1
         ("r2", "judge", "openai/gpt-x", 1, 0)])],       # c8
    "run_summary": [Case(
        ("run_id", "flow", "status", "stopped_in", "error", "agent_variant", "statements", "grounded_statements", "plain_tests", "transformed_tests",
         "tests", "attempts", "not_applicable", "attempt_errors", "target_errors", "failed_llm_calls", "cache_hits"),
        [("r1", "pipeline", "completed", "", "", "original", 8, 7,  # h1..h8; h4 has no rank
          3, 4, 7, 7, 2, 1,                    # p1-p3, t1-t4; attempts 2, 4 not applicable, 6 an error
          0, 1, 1),                            # no execution error; c6 timed out; c3 a cache hit
         ("r2", "regress", "completed", "", "", "original", 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0)])],  # s1..s4 are spec tests
    "counted_tests": [Case(
        ("run_id", "kind", "counted", "audited"),
        [("r1", "plain", 3, 3),            # p1 p2 p3, all audited
         ("r1", "transformed", 4, 3),      # t1..t4, t4 not audited
         ("r1", "all", 7, 6),
         ("r2", "spec", 4, 4),
         ("r2", "all", 4, 4)])],
    "validity_rate": [Case(
        ("run_id", "kind", "counted", "audited", "valid", "validity_rate"),
        [("r1", "plain", 3, 3, 2, 2 / 3),        # p1 explicit + p2 valid of 3
         ("r1", "transformed", 4, 3, 3, 3 / 4),  # t1 t2 t3 of 4 (t4 unlabelled = not valid)
         ("r1", "all", 7, 6, 5, 5 / 7),
         ("r2", "spec", 4, 4, 3, 3 / 4),         # s1 s2 s3
         ("r2", "all", 4, 4, 3, 3 / 4)])],
    "explicit_validity_rate": [Case(
        ("run_id", "kind", "counted", "audited", "explicit_valid", "explicit_validity_rate"),
        [("r1", "plain", 3, 3, 1, 1 / 3),        # p1
         ("r1", "transformed", 4, 3, 2, 2 / 4),  # t1 t2
         ("r1", "all", 7, 6, 3, 3 / 7),
         ("r2", "spec", 4, 4, 2, 2 / 4),         # s1 s2
         ("r2", "all", 4, 4, 2, 2 / 4)])],
    # Explicit mappings of valid tests in r1: p1 auth-denied; t1 auth-allowed, status-denied;
    # t2 cancel-denied (p2's and t3's mappings are not explicit; grouping 1 also groups p2's).
    # U per grouping (all / plain / transformed):
    #   g1 rule ids            -> all {auth,status,cancel}=3, plain {auth}=1, transformed 3
    #   g2 identity+cancel     -> all {identity,cancel}=2,    plain 1,        transformed 2
    #   g3 rule ids            -> all 3,                      plain 1,        transformed 3
    # u = median; u_extra = median(U_all - U_of_the_other_kinds):
    #   plain: [3-3, 2-2, 3-3] = [0,0,0] -> 0; transformed: [3-1, 2-1, 3-1] = [2,1,2] -> 2
    # r2 (one grouping): R_x and R_y both grouped as X -> U = 1
    "distinct_boundaries": [Case(
        ("run_id", "kind", "groupings", "u", "u_extra", "u_by_grouping"),
        [("r1", "plain", 3, 1.0, 0.0, [1, 1, 1]),
         ("r1", "transformed", 3, 3.0, 2.0, [3, 2, 3]),
         ("r1", "all", 3, 3.0, 3.0, [3, 2, 3]),          # median(3,2,3) = 3; extra of 'all' = U
         ("r2", "spec", 1, 1.0, 1.0, [1]),
         ("r2", "all", 1, 1.0, 1.0, [1])])],
    # P per grouping (group_side):
    #   g1 -> all {auth:d, auth:a, status:d, cancel:d}=4 (p2's cancel:allowed is not explicit),
    #         plain {auth:d}=1, transformed {auth:a, status:d, cancel:d}=3
    #   g2 -> all {identity:d, identity:a, cancel:d}=3, plain 1, transformed 3
    #   g3 -> t1's status side grouped as auth:d: all {auth:d, auth:a, cancel:d}=3, plain 1, transformed 3
    #   p_extra plain: [4-3, 3-3, 3-3] = [1,0,0] -> 0; transformed: [4-1, 3-1, 3-1] = [3,2,2] -> 2
    # r2: X:allowed, X:denied -> 2
    "distinct_sides": [Case(
        ("run_id", "kind", "groupings", "p", "p_extra", "p_by_grouping"),
        [("r1", "plain", 3, 1.0, 0.0, [1, 1, 1]),
         ("r1", "transformed", 3, 3.0, 2.0, [3, 3, 3]),
         ("r1", "all", 3, 3.0, 3.0, [4, 3, 3]),          # median(4,3,3) = 3
         ("r2", "spec", 1, 2.0, 2.0, [2]),
         ("r2", "all", 1, 2.0, 2.0, [2])])],
    # (P - U) / U from the medians above: r1's sides equal its boundaries; r2's one boundary has both sides
    "both_sides_share": [Case(
        ("run_id", "kind", "u", "p", "both_sides_share"),
        [("r1", "plain", 1.0, 1.0, 0.0),
         ("r1", "transformed", 3.0, 3.0, 0.0),
         ("r1", "all", 3.0, 3.0, 0.0),
         ("r2", "spec", 1.0, 2.0, 1.0),
         ("r2", "all", 1.0, 2.0, 1.0)])],
    # transformed tests written at attempts 1, 3, 5, 7; r2 has no attempts (no row)
    "attempts_until_n": [
        Case(("run_id", "n_target", "n", "reached_n_target", "attempts_until_n", "attempts", "transformed_tests"),
             [("r1", 2, 2, True, 3, 7, 4)],       # 2nd test at attempt 3
             params={"n": 2}),
        Case(("run_id", "n_target", "n", "reached_n_target", "attempts_until_n", "attempts", "transformed_tests"),
             [("r1", 3, 3, True, 5, 7, 4)],       # n from config generation.n = 3 -> attempt 5
             params={"n": None}),
        Case(("run_id", "n_target", "n", "reached_n_target", "attempts_until_n", "attempts", "transformed_tests"),
             [("r1", 10, 4, False, 7, 7, 4)],     # only 4 of 10 reached: the 4th is at attempt 7
             params={"n": 10})],
    "failed_valid_tests": [Case(
        ("run_id", "kind", "valid_tests", "failed_valid_tests"),
        [("r1", "plain", 2, 1),        # p2 fails (p3 fails too but is invalid)
         ("r1", "transformed", 3, 1),  # t2 (fail, then pass: counted once); t3 inconclusive
         ("r1", "all", 5, 2),
         ("r2", "spec", 3, 0),         # only invalid s4 fails on the original
         ("r2", "all", 3, 0)])],
    "top_instruction_share": [Case(
        ("run_id", "attempts", "top_instruction", "top_attempts", "top_share", "top_ties"),
        [("r1", 7, "k1", 3, 3 / 7, 1)])],   # k1 in attempts 1, 3, 7; k2 and k3 twice each
    "not_applicable_share": [Case(
        ("run_id", "attempts", "not_applicable", "errors", "not_applicable_share"),
        [("r1", 7, 2, 1, 2 / 6)])],         # attempts 2, 4; 6 is a generator error (not in the share)
    "instruction_stats": [Case(
        ("run_id", "instruction_id", "title", "factor", "attempts", "applicable", "errors", "applicability_rate",
         "tests_written", "mean_reward"),
        [("r1", "k1", "Change wording", "wording", 3, 3, 0, 1.0, 3, (1.0 + 0.0 + 1.0) / 3),  # attempts 1, 3, 7
         ("r1", "k2", "Change value", "value", 2, 1, 0, 1 / 2, 1, 0.5),                      # 2 n/a, 5 inconclusive
         ("r1", "k3", "Swap order", "sequence", 2, 0, 1, 0.0, 0, None)])],                   # 4 n/a, 6 error: rate 0/1
    # r1 labels: e-p1 TN, e-p2 TP (plain); e-t1 TN, e-t2 FP, e-t3 INC, e-t1b FN, e-t2b TN (transformed)
    # r2 labels (all spec): original TN TN TN; F1 TP(F1) TP(-) TN; F2 TN TP(F1); F3 TN INC; F4 INC TP(F4)
    # 'all' = the kinds summed; every labelled variant has a row per kind of its run's tests
    "execution_label_counts": [Case(
        ("run_id", "agent_variant", "kind", "labelled", "tp", "fp", "fn", "tn", "inc"),
        [("r1", "original", "plain", 2, 1, 0, 0, 1, 0),
         ("r1", "original", "transformed", 5, 0, 1, 1, 2, 1),
         ("r1", "original", "all", 7, 1, 1, 1, 3, 1),
         ("r2", "original", "spec", 3, 0, 0, 0, 3, 0),
         ("r2", "original", "all", 3, 0, 0, 0, 3, 0),
         ("r2", "F1", "spec", 3, 2, 0, 0, 1, 0),
         ("r2", "F1", "all", 3, 2, 0, 0, 1, 0),
         ("r2", "F2", "spec", 2, 1, 0, 0, 1, 0),
         ("r2", "F2", "all", 2, 1, 0, 0, 1, 0),
         ("r2", "F3", "spec", 2, 0, 0, 0, 1, 1),
         ("r2", "F3", "all", 2, 0, 0, 0, 1, 1),
         ("r2", "F4", "spec", 2, 1, 0, 0, 0, 1),
         ("r2", "F4", "all", 2, 1, 0, 0, 0, 1)])],
    "false_alarm_rate": [Case(
        ("run_id", "agent_variant", "fp", "tn", "false_alarm_rate"),
        [("r1", "original", 1, 3, 1 / (1 + 3)),
         ("r2", "original", 0, 3, 0.0),
         ("r2", "F1", 0, 1, 0.0),
         ("r2", "F2", 0, 1, 0.0),
         ("r2", "F3", 0, 1, 0.0),
         ("r2", "F4", 0, 0, None)])],       # FP + TN = 0
    "accuracy": [Case(
        ("run_id", "agent_variant", "tp", "tn", "labelled", "accuracy"),
        [("r1", "original", 1, 3, 7, (1 + 3) / 7),   # INC and FN, FP in the denominator
         ("r2", "original", 0, 3, 3, 1.0),
         ("r2", "F1", 2, 1, 3, 1.0),
         ("r2", "F2", 1, 1, 2, 1.0),
         ("r2", "F3", 0, 1, 2, 1 / 2),
         ("r2", "F4", 1, 0, 2, 1 / 2)])],
    # F1: s1 passes on original, fails on F1, TP attributed to F1 -> detects (s2's TP has no
    #     attributed fault). F2: s2's TP is attributed to F1; s4 fails on the original too.
    # F3: no fail. F4: s3 passes on original, fails on F4, TP attributed to F4 (hidden or not).
    # activated (the regression's mutants row, from the side log): F1 F2 F4; F3's rule never
    # decided unlike the shipped rule.
    "fault_detection": [Case(
        FD_COLUMNS,
        [("r2", "F1", "r2", True, 3, 2, 3, 1, True, AUDITED),    # s1 s2 s3 run; s1 s2 pass -> fail, s1 detects
         ("r2", "F2", "r2", True, 3, 1, 2, 0, False, AUDITED),   # s1 s2 s4; s2 pass -> fail (TP for F1); s4 unlabelled
         ("r2", "F3", "r2", False, 2, 0, 2, 0, False, AUDITED),  # s1 s2
         ("r2", "F4", "r2", True, 2, 1, 2, 1, True, AUDITED)], {"faults": None}),
        Case(FD_COLUMNS,  # --fault F1 --fault F3
             [("r2", "F1", "r2", True, 3, 2, 3, 1, True, AUDITED), ("r2", "F3", "r2", False, 2, 0, 2, 0, False, AUDITED)],
             {"faults": "F1,F3"})],
    # One formula for both kinds (killed / activated). Faults: F1 F4 killed, F2 activated but not
    # killed, F3 not activated (not scored) -> 2 / 3. Prompt mutants (tdad_tables): M1 killed by
    # a1 (TTT on the base); M2's failures are a2 (flaky on the base) and a3 (fails on the base):
    # no kill; M3 fails nothing; M4 not activated: not scored -> 1 / 3. r1 has no variant: no row.
    "mutation_score": [Case(
        MS_COLUMNS,
        [("r2", "fault", 4, 3, 3, 2, 2 / 3, 3 / 4, ["F1", "F4"], ["F2"], ["F3"], [], None),
         # the spec run's compilation ended at 2/3 visible: its MS is marked not_converged
         ("r2", "prompt", 4, 3, 3, 1, 1 / 3, 3 / 4, ["M1"], ["M2", "M3"], ["M4"], [], "not_converged")],
        {"faults": None}),
        Case(MS_COLUMNS, [("r2", "fault", 2, 1, 1, 1, 1.0, 1 / 2, ["F1"], [], ["F3"], [], None)],
             {"faults": "F1,F3"})],   # only the variants asked for
    # The seeded-fault headline counts detected faults out of all seeded ones (the paper's RQ4):
    # F1, F4 detected of F1..F4 -> 2 / 4, where MS above gives 2 / 3 by leaving F3 (unreached) out.
    # activated / seeded 3 / 4; F3 unreached; F2 reached and undetected.
    "seeded_fault_detection": [Case(
        SFD_COLUMNS,
        [("r2", 4, 2, 2 / 4, 3, 3 / 4, ["F1", "F4"], ["F3"], ["F2"])], {"faults": None}),
        Case(SFD_COLUMNS, [("r2", 2, 1, 1 / 2, 1, 1 / 2, ["F1"], ["F3"], [])],
             {"faults": "F1,F3"})],
    "pass_k": [Case(
        ("run_id", "agent_variant", "test_id", "k", "passes", "pass_k", "rpr"),
        [("r1", "original", "t1", 2, 2, True, 2 / 2),    # e-t1 pass, e-t1b pass
         ("r1", "original", "t2", 2, 1, False, 1 / 2)])],  # e-t2 fail, e-t2b pass; single runs left out
    # the original agent's executions of verdict_counts below: r1 t3 is the one inconclusive
    "inconclusive_share": [Case(
        ("run_id", "kind", "executions", "inconclusive", "inconclusive_share"),
        [("r1", "plain", 3, 0, 0.0),
         ("r1", "transformed", 6, 1, 1 / 6),
         ("r1", "all", 9, 1, 1 / 9),
         ("r2", "spec", 4, 0, 0.0),
         ("r2", "all", 4, 0, 0.0)])],
    "verdict_counts": [Case(
        ("run_id", "kind", "agent_variant", "executions", "pass", "fail", "inconclusive", "unjudged"),
        [("r1", "plain", "original", 3, 1, 2, 0, 0),          # p1 pass; p2, p3 fail
         ("r1", "transformed", "original", 6, 4, 1, 1, 0),    # t1 t1b t2b t4 pass; t2 fail; t3 inc
         ("r2", "spec", "original", 4, 3, 1, 0, 0),
         ("r2", "spec", "F1", 3, 1, 2, 0, 0),
         ("r2", "spec", "F2", 3, 1, 2, 0, 0),
         ("r2", "spec", "F3", 2, 2, 0, 0, 0),
         ("r2", "spec", "F4", 2, 1, 1, 0, 0)])],
    # spend = r1 calls except the cache hit c3, the auditor c5 and the agent c7: c1 c2 c4 c6
    #   tokens (100+20) + (1000+200) + (500+50) + (10+10) = 1890; cost 0 + 0.01 + 0.004 + 0 = 0.014
    #   per valid test (V = 5): 4/5 calls, 1890/5 = 378 tokens, 0.014/5 = 0.0028 USD; c6 unpriced
    # r2: c8 only: 330 tokens, 0.003 USD over V = 3
    "llm_cost_per_valid_test": [Case(
        ("run_id", "valid_tests", "calls", "tokens", "cost_usd", "cache_hits", "unpriced_calls",
         "calls_per_valid_test", "tokens_per_valid_test", "cost_per_valid_test"),
        [("r1", 5, 4, 1890, 0.014, 1, 1, 4 / 5, 1890 / 5, 0.014 / 5),
         ("r2", 3, 1, 330, 0.003, 0, 0, 1 / 3, 330 / 3, 0.003 / 3)])],
    "llm_usage": [Case(
        ("run_id", "role", "provider_model", "calls", "cache_hits", "provider_calls", "errors", "repaired",
         "input_tokens", "output_tokens", "cost_usd", "unpriced_calls",
         "invalid_answers", "pending_calls", "cut_calls", "cut_chars"),
        [("r1", "agent", "openai/gpt-x", 1, 0, 1, 0, 0, 400, 40, 0.002, 0, 0, 0, 0, 0),
         ("r1", "auditor", "openai/gpt-big", 1, 0, 1, 0, 0, 2000, 100, 0.05, 0, 0, 0, 0, 0),
         # c3 is a cache hit; c2 was cut to fit its context
         ("r1", "generator", "openai/gpt-x", 2, 1, 1, 0, 0, 1000, 200, 0.01, 0, 0, 0, 1, 4200),
         ("r1", "judge", "openai/gpt-x", 2, 0, 2, 1, 1, 500 + 10, 50 + 10, 0.004, 1, 1, 0, 0, 0),  # c4 repaired, c6 error
         ("r1", "planner", "offline/heuristic", 1, 0, 1, 0, 0, 100, 20, 0.0, 0, 0, 0, 0, 0),
         ("r2", "judge", "openai/gpt-x", 1, 0, 1, 0, 0, 300, 30, 0.003, 0, 0, 0, 0, 0)])],
    # r1 supporting replies -> user turn (i-1)/2 -> rule events of that session and turn:
    #   h1 d1@1 -> 0 -> R_auth | h2, h3 d1@3 -> 1 -> R_cancel, R_status | h4 (ungrounded) d2@3 -> 1
    #   -> R_exchange | h5 d2@1 -> 0 -> R_auth | h6 d2@5 -> 2 -> none | h7 d1@5 -> 2 -> R_refund |
    #   h8 is on an execution trace (session s-e1 has R_other) -> not counted. r2's R_r2 event on
    #   a session also named s-d1 belongs to another run.
    # matched: h1 h2 h3 h4 h5 h7 = 6; rules {auth, cancel, status, exchange, refund} = 5;
    # denied side at those turns: h1 (R_auth at s-d1/0), h2 h3 (R_status at s-d1/1), h4
    #   (R_exchange at s-d2/1); h5's R_auth at s-d2/0 and h7's R_refund are allowed -> 4 statements,
    #   rules {auth, status, exchange} = 3 (s-e1's denied R_other is an execution's)
    # grounded (all but h4): 7 statements, 5 matched, rules {auth, cancel, status, refund} = 4
    "rule_coverage": [Case(
        ("run_id", "statements", "matched_statements", "distinct_rules", "denied_statements",
         "distinct_denied_rules", "grounded_statements", "matched_grounded_statements",
         "distinct_rules_grounded", "rule_ids"),
        [("r1", 8, 6, 5, 4, 3, 7, 5, 4, ["R_auth", "R_cancel", "R_exchange", "R_refund", "R_status"])])],
    # visible / hidden from spec_tests; invariant: i1 i2 (passed on v1); i4 not runnable
    "tdad_test_counts": [Case(
        ("run_id", "spec_id", "spec_version", "visible_tests", "hidden_tests", "invariant_tests",
         "not_runnable_invariants"),
        [("r2", "sx", "1", 3, 2, 2, 1)])],
    "tdad_vpr_by_iteration": [Case(
        ("run_id", "iteration", "promoted", "in_effect_digest", "visible_tests", "visible_passed", "vpr",
         "visible_not_observable", "failing", "budget", "compile_status"),
        # the budget is not recorded (-1); the last prompt in effect passes 2 of 3: not converged
        [("r2", 0, True, "D0", 3, 1, 1 / 3, 1, ["a2", "a3"], -1, "not_converged"),  # the start prompt: a1; a3 n/o
         ("r2", 1, True, "D1", 3, 2, 2 / 3, 0, ["a3"], -1, "not_converged"),        # D1 promoted: a1 a2
         ("r2", 2, False, "D1", 3, 2, 2 / 3, 0, ["a3"], -1, "not_converged")])],    # D2's 1 < 2: D1 stays
    "tdad_hidden_pass_rate": [Case(
        ("run_id", "hidden_tests", "hidden_passed", "hidden_not_observable", "hpr", "compile_status"),
        [("r2", 2, 1, 1, 1 / 2, "not_converged")])],   # h1 first run T, h2 first run not observable
    "tdad_surs": [Case(
        ("run_id", "invariant_tests", "invariant_passed", "surs", "broken", "v1_failed", "not_runnable",
         "compile_status"),
        # i1 i2 passed on v1; i3 failed on v1 (passes on v2, counted nowhere); i4 not runnable
        [("r2", 2, 1, 1 / 2, ["i2"], ["i3"], ["i4"], "not_converged")])],
    # i3's no_pii (clause P7) was not observable for want of fixtures
    "tdad_unobservable_without_fixtures": [Case(
        ("run_id", "assertion_kind", "clause", "assertions", "tests"), [("r2", "no_pii", "P7", 1, 1)])],
    "tdad_pass_k": [Case(
        ("run_id", "split", "tests", "k", "tests_pass_k", "pass_k_rate", "mean_pass_rate", "flaky"),
        [("r2", "visible", 3, 3, 1, 1 / 3, (1 + 2 / 3 + 0) / 3, 1),   # a1 TTT; a2 TFT flaky; a3 FFF
         ("r2", "hidden", 2, 3, 1, 1 / 2, (1 + 2 / 3) / 2, 1)])],      # h1 TTT; h2 FTT flaky
    "tdad_flaky_tests": [Case(
        ("run_id", "scope", "test_id", "split", "k", "passes", "pass_rate"),
        [("r2", "suite", "a2", "visible", 3, 2, 2 / 3),
         ("r2", "suite", "h2", "hidden", 3, 2, 2 / 3)])],
    # repeated trials (int_test_trials): r1 t1 and t2 ran twice on the original; every execution of
    # the fixture has the same turns(2) replies, so t2's fail + pass is one transcript judged two
    # ways (judge-flaky); r2 runs every test once per variant (left out)
    "test_trials": [Case(
        ("run_id", "agent_variant", "test_id", "k", "passes", "fails", "inconclusive", "pass_rate", "pass_k",
         "flake_class"),
        [("r1", "original", "t1", 2, 2, 0, 0, 1.0, True, "stable"),
         ("r1", "original", "t2", 2, 1, 1, 0, 0.5, False, "judge-flaky")])],
    "trial_summary": [Case(
        ("run_id", "agent_variant", "tests", "k", "tests_pass_k", "pass_k_rate", "mean_pass_rate", "stable",
         "agent_flaky", "judge_flaky"),
        [("r1", "original", 2, 2, 1, 1 / 2, (1 + 1 / 2) / 2, 1, 0, 1)])],
}
