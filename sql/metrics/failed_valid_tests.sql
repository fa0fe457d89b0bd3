-- failed_valid_tests: F_V, valid boundary tests with a fail verdict on the original agent.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_tests, stg_audit_labels, stg_executions, stg_verdicts
-- params: run_id
-- A test counts once when at least one of its executions on agent_variant 'original' in the same
-- run has the verdict 'fail' (repeated executions do not count twice). Valid = audit validity
-- explicit or valid; unlabelled tests are not valid. valid_tests is the denominator for reading.
with failed as (
    select distinct e.run_id, e.test_id
    from stg_executions as e
    join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
    where e.agent_variant = 'original' and v.verdict = 'fail'
)
select
    t.run_id,
    case when grouping(t.kind) = 1 then 'all' else t.kind end as kind,
    count(*) filter (where a.is_valid) as valid_tests,
    count(*) filter (where a.is_valid and f.test_id is not null) as failed_valid_tests
from stg_tests as t
left join stg_audit_labels as a on a.run_id = t.run_id and a.test_id = t.test_id
left join failed as f on f.run_id = t.run_id and f.test_id = t.test_id
where ($run_id is null or t.run_id = $run_id)
group by grouping sets ((t.run_id, t.kind), (t.run_id))
order by t.run_id, grouping(t.kind), t.kind
