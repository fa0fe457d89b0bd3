-- stg_attempts: one row per transformation attempt (statement x instruction pair tried).
-- grain: run_id, attempt_no
-- source: attempts
-- outcome is applicable | not_applicable | error; rows written before the column existed get
-- the outcome their applicable flag implies.
select
    * exclude (_part, _row, outcome) replace (coalesce(generator, '') as generator, coalesce(target_id, '') as target_id),
    coalesce(outcome, case when applicable then 'applicable' else 'not_applicable' end) as outcome
from attempts
qualify row_number() over (partition by run_id, attempt_no order by (_part, _row) desc) = 1
