-- stg_groupings: one row per boundary-side mapping in each of the auditor's groupings
-- (U and P are medians over grouping_no).
-- grain: run_id, grouping_no, test_id, boundary, side
-- source: groupings
select * exclude (_part, _row)
from groupings
qualify row_number() over (
    partition by run_id, grouping_no, test_id, boundary, side order by (_part, _row) desc) = 1
