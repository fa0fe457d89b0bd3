-- int_fault_detection: every test executed on a seeded fault, and whether it detects that fault.
-- grain: run_id, fault, test_id (fault = every agent_variant other than 'original' executed in the run)
-- inputs: stg_executions, stg_execution_labels, int_judged_executions
-- A test detects fault F (paper §4.3, DESIGN §7) when, in the same run,
--   * every judged execution of it on the original agent has the verdict 'pass' (at least one),
--   * and one of its executions on F has the verdict 'fail', the auditor's label 'TP' and
--     attributed_fault = F.
-- "Every" rather than "some" on the original: a test that also fails on the original does not
-- separate the faulty agent from it. A test executed on F without a verdict is here, not detecting.
with passes_on_original as (
    select run_id, test_id
    from int_judged_executions
    where agent_variant = 'original'
    group by run_id, test_id
    having bool_and(verdict = 'pass')
),
detections as (
    select distinct j.run_id, j.agent_variant as fault, j.test_id
    from int_judged_executions as j
    join stg_execution_labels as l on l.run_id = j.run_id and l.execution_id = j.execution_id
    join passes_on_original as o on o.run_id = j.run_id and o.test_id = j.test_id
    where j.agent_variant <> 'original' and j.verdict = 'fail'
      and l.label = 'TP' and l.attributed_fault = j.agent_variant
),
tests_run as (
    select distinct run_id, agent_variant as fault, test_id
    from stg_executions
    where agent_variant <> 'original'
)
select r.run_id, r.fault, r.test_id, d.test_id is not null as detects
from tests_run as r
left join detections as d on d.run_id = r.run_id and d.fault = r.fault and d.test_id = r.test_id
