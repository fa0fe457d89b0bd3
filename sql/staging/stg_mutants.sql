-- stg_mutants: one row per mutant (prompt mutant of a TDAD intent) with its activation outcome.
-- grain: run_id, mutant_id
-- source: mutants
select * exclude (_part, _row)
from mutants
qualify row_number() over (partition by run_id, mutant_id order by (_part, _row) desc) = 1
