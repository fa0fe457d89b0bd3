-- stg_tests: one row per test case (plain, transformed, direct, agenteval, spec), latest version.
-- grain: run_id, test_id
-- source: tests
select
    * exclude (_part, _row),
    len(step_hints) as n_steps
from tests
qualify row_number() over (partition by run_id, test_id order by (_part, _row) desc) = 1
