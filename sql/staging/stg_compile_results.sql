-- stg_compile_results: one row per execution of a visible test run during compilation (full visible run or the inner loop on failing tests).
-- grain: run_id, result_id
-- source: compile_results
select
    * exclude (_part, _row),
    len(assertion_results) as n_assertions
from compile_results
qualify row_number() over (partition by run_id, result_id order by (_part, _row) desc) = 1
