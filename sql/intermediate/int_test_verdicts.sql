-- int_test_verdicts: one verdict per test and agent variant in a run — the worst of its judged
-- executions (fail before inconclusive before pass), with that execution's id, rationale,
-- duration and error.
-- grain: run_id, agent_variant, test_id
-- inputs: stg_executions, stg_verdicts, stg_tests
-- Ties between executions with the same verdict go to the first execution id. kind is '?' for a
-- test not in the run's tests (checks/executions_without_test.sql).
with judged as (
    select
        e.run_id, e.agent_variant, e.test_id, e.execution_id, e.duration_s, e.error, v.verdict, v.rationale,
        row_number() over (
            partition by e.run_id, e.agent_variant, e.test_id
            order by case v.verdict when 'fail' then 0 when 'inconclusive' then 1 else 2 end, e.execution_id
        ) as worst_first
    from stg_executions as e
    join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
)
select
    j.run_id, j.agent_variant, j.test_id, coalesce(t.kind, '?') as kind, t.goal,
    j.verdict, j.rationale, j.execution_id, j.duration_s, j.error
from judged as j
left join stg_tests as t on t.run_id = j.run_id and t.test_id = j.test_id
where j.worst_first = 1
