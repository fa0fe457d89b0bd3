-- stg_attempts: one row per transformation attempt (statement x instruction pair tried).
-- grain: run_id, attempt_no
-- source: attempts
select * exclude (_part, _row)
from attempts
qualify row_number() over (partition by run_id, attempt_no order by _part desc, _row desc) = 1
