-- test_verdicts: one verdict per test and agent variant (the worst of its executions), for JUnit
-- and CI gates.
-- grain: one row per run_id, agent_variant and test_id (tests with at least one judged execution)
-- inputs: int_test_verdicts
-- params: run_id
select run_id, agent_variant, test_id, kind, goal, verdict, rationale, execution_id, duration_s, error
from int_test_verdicts
where ($run_id is null or run_id = $run_id)
order by run_id, agent_variant <> 'original', agent_variant, kind, test_id
