-- fault_detection: per seeded fault, the tests run on the faulty agent and those that detect it.
-- grain: one row per run_id and fault (every agent_variant other than 'original' executed in the run)
-- inputs: int_variant_kills
-- params: run_id, faults
-- faults: comma-separated fault ids to report (`adat regress --fault X`); null = every fault run.
-- The fault's executions are compared with the original agent's in base_run: the run itself when
-- it executed the original too (`adat evaluate` / `regress` write the faults into the suite run),
-- else the suite run a `run-suite` run on a faulty target executed (runs.suite_run_id).
--   * pass_to_fail: tests that passed on the original in base_run (every judged execution, at
--     least one) and have a judged 'fail' on F -- what a CI gate on F sees, audited or not.
--   * detecting_tests (paper §4.3, DESIGN §7): of those, the ones whose failing execution on F the
--     auditor labels 'TP' and attributes to F. NULL when no execution of F was audited (a
--     `run-suite` run): "not audited", never 0.
--   * detected: by detecting_tests when F was audited; otherwise by pass_to_fail, and evidence
--     says which ('audited: TP attributed to the fault' or 'pass -> fail, not audited').
-- "Every" rather than "some" on the original: a test that also fails on the original does not
-- separate the faulty agent from it. tests_run counts distinct tests executed on F. The rule is
-- mutation testing's one kill rule, intermediate/int_variant_kills.sql (kind 'fault'), shared
-- with TDAD's prompt mutants. activated: the side log shows F's rule deciding unlike the shipped
-- rule in one of these executions; NULL when not measured (only the regression measures it);
-- mutation_score.sql scores only activated faults.
select
    run_id,
    variant as fault,
    any_value(base_run_id) as base_run,
    bool_or(activated) as activated,
    count(*) as tests_run,
    count(*) filter (where pass_to_fail) as pass_to_fail,
    count(*) filter (where variant_labelled) as audited_tests,
    case when bool_or(variant_labelled) then count(*) filter (where kills) end as detecting_tests,
    case when bool_or(variant_labelled) then bool_or(kills) else bool_or(pass_to_fail) end as detected,
    case when bool_or(variant_labelled) then 'audited: TP attributed to the fault'
         else 'pass -> fail, not audited' end as evidence
from int_variant_kills
where kind = 'fault' and ($run_id is null or run_id = $run_id)
  and ($faults is null or list_contains(string_split($faults, ','), variant))
group by run_id, variant
order by run_id, fault
