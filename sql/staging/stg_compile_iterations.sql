-- stg_compile_iterations: one row per PromptSmith iteration (0 = the start prompt on every visible test).
-- grain: run_id, spec_id, spec_version, iteration
-- source: compile_iterations
select * exclude (_part, _row)
from compile_iterations
qualify row_number() over (partition by run_id, spec_id, spec_version, iteration order by (_part, _row) desc) = 1
