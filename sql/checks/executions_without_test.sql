-- executions_without_test: executions of a test that neither their run nor any other run holds.
-- grain: one row per violating execution (run_id, execution_id)
-- inputs: stg_executions, stg_tests
-- params: run_id
-- An execution runs a test of its own run or of the suite it ran (run_suite / regress execute
-- another run's tests). The runs table does not record that suite's run id, but test ids hash
-- their source run, so a test found in any run is the test that was executed.
select e.run_id, e.execution_id, e.test_id, e.agent_variant, 'test not found' as problem
from stg_executions as e
where ($run_id is null or e.run_id = $run_id)
  and not exists (select 1 from stg_tests as t where t.test_id = e.test_id)
order by e.run_id, e.execution_id
