-- failed_valid_tests: F_V, valid boundary tests with a fail verdict on the original agent.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_tests, stg_audit_labels, int_judged_executions
-- params: run_id
-- A test counts once when at least one of its executions on agent_variant 'original' in the same
-- run has the verdict 'fail' (repeated executions do not count twice). Valid = audit validity
-- explicit or valid; unlabelled tests are not valid. valid_tests is the denominator for reading.
with failed as (
    select distinct run_id, test_id
    from int_judged_executions
    where agent_variant = 'original' and verdict = 'fail'
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
