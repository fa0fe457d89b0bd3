-- stg_statements: one row per extracted statement (grounded or not), latest version.
-- grain: run_id, statement_id
-- source: statements
select * exclude (_part, _row)
from statements
qualify row_number() over (partition by run_id, statement_id order by _part desc, _row desc) = 1
