-- fault_detection: per seeded fault, the tests run on the faulty agent and those that detect it.
-- grain: one row per run_id and fault (every agent_variant other than 'original' executed in the run)
-- inputs: stg_executions, stg_verdicts, stg_execution_labels
-- params: run_id
-- A test detects fault F (paper §4.3, DESIGN §7) when, in the same run,
--   * every judged execution of it on the original agent has the verdict 'pass' (at least one),
--   * and one of its executions on F has the verdict 'fail', the auditor's label 'TP' and
--     attributed_fault = F.
-- "Every" rather than "some" on the original: a test that also fails on the original does not
-- separate the faulty agent from it. tests_run counts distinct tests executed on F.
with judged as (
    select e.run_id, e.execution_id, e.test_id, e.agent_variant, v.verdict
    from stg_executions as e
    join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
    where ($run_id is null or e.run_id = $run_id)
),
passes_on_original as (
    select run_id, test_id
    from judged
    where agent_variant = 'original'
    group by run_id, test_id
    having bool_and(verdict = 'pass')
),
detections as (
    select distinct j.run_id, j.agent_variant as fault, j.test_id
    from judged as j
    join stg_execution_labels as l on l.run_id = j.run_id and l.execution_id = j.execution_id
    join passes_on_original as o on o.run_id = j.run_id and o.test_id = j.test_id
    where j.agent_variant <> 'original' and j.verdict = 'fail'
      and l.label = 'TP' and l.attributed_fault = j.agent_variant
),
faults as (
    select run_id, agent_variant as fault, count(distinct test_id) as tests_run
    from stg_executions
    where agent_variant <> 'original' and ($run_id is null or run_id = $run_id)
    group by run_id, agent_variant
)
select
    f.run_id,
    f.fault,
    f.tests_run,
    count(d.test_id) as detecting_tests,
    count(d.test_id) > 0 as detected
from faults as f
left join detections as d on d.run_id = f.run_id and d.fault = f.fault
group by f.run_id, f.fault, f.tests_run
order by f.run_id, f.fault
