-- stg_mutant_results: one row per execution of a visible test or an activation probe run on a mutant.
-- grain: run_id, result_id
-- source: mutant_results
select
    * exclude (_part, _row),
    len(assertion_results) as n_assertions
from mutant_results
qualify row_number() over (partition by run_id, result_id order by (_part, _row) desc) = 1
