-- stg_instructions: the instruction catalog as snapshotted by each run.
-- grain: run_id, instruction_id
-- source: instructions
select * exclude (_part, _row)
from instructions
qualify row_number() over (partition by run_id, instruction_id order by (_part, _row) desc) = 1
