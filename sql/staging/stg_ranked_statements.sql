-- stg_ranked_statements: grounding's output, one row per statement (grounded or not, with its
-- confidence and rank); stg_statements joins it onto the extracted statements.
-- grain: run_id, statement_id
-- source: ranked_statements
select * exclude (_part, _row)
from ranked_statements
qualify row_number() over (partition by run_id, statement_id order by (_part, _row) desc) = 1
