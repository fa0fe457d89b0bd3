-- fault_detection: per seeded fault, the tests run on the faulty agent and those that detect it.
-- grain: one row per run_id and fault (every agent_variant other than 'original' executed in the run)
-- inputs: int_variant_kills
-- params: run_id, faults
-- faults: comma-separated fault ids to report (`adat regress --fault X`); null = every fault run.
-- A test detects fault F (paper §4.3, DESIGN §7) when, in the same run,
--   * every judged execution of it on the original agent has the verdict 'pass' (at least one),
--   * and one of its executions on F has the verdict 'fail', the auditor's label 'TP' and
--     attributed_fault = F.
-- "Every" rather than "some" on the original: a test that also fails on the original does not
-- separate the faulty agent from it. tests_run counts distinct tests executed on F. The rule is
-- mutation testing's one kill rule, intermediate/int_variant_kills.sql (kind 'fault'), shared
-- with TDAD's prompt mutants. activated: the side log shows F's rule deciding unlike the shipped
-- rule in one of these executions; mutation_score.sql scores only activated faults.
select
    run_id,
    variant as fault,
    bool_or(activated) as activated,
    count(*) as tests_run,
    count(*) filter (where kills) as detecting_tests,
    bool_or(kills) as detected
from int_variant_kills
where kind = 'fault' and ($run_id is null or run_id = $run_id)
  and ($faults is null or list_contains(string_split($faults, ','), variant))
group by run_id, variant
order by run_id, fault
