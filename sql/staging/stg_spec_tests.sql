-- stg_spec_tests: one row per TDAD spec test of a run (visible, hidden, and v1 invariant tests of a v2 run).
-- grain: run_id, test_id
-- source: spec_tests
select * exclude (_part, _row)
from spec_tests
qualify row_number() over (partition by run_id, test_id order by _part desc, _row desc) = 1
