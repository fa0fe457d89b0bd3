-- int_judged_executions: executions that have a verdict, with the verdict and the test's kind.
-- grain: run_id, execution_id (executions without a verdict are left out; inconclusive is a verdict)
-- inputs: stg_executions, stg_verdicts, stg_tests
-- kind is NULL for an execution whose test is not among its run's tests (see
-- checks/executions_without_test.sql).
select
    e.run_id,
    e.execution_id,
    e.test_id,
    e.agent_variant,
    v.verdict,
    t.kind
from stg_executions as e
join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
left join stg_tests as t on t.run_id = e.run_id and t.test_id = e.test_id
