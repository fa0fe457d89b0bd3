-- stg_spec_tests: one row per TDAD spec test (visible or hidden), latest version.
-- grain: run_id, test_id
-- source: spec_tests
select
    * exclude (_part, _row),
    len(user_turns) as n_turns,
    len(assertions) as n_assertions
from spec_tests
qualify row_number() over (partition by run_id, test_id order by (_part, _row) desc) = 1
