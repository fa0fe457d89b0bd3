-- stg_spec_reruns: one row per execution of a rerun of a spec test on the compiled prompt (HPR, pass^k, SURS, the base of kills).
-- grain: run_id, result_id
-- source: spec_reruns
select
    * exclude (_part, _row),
    len(assertion_results) as n_assertions
from spec_reruns
qualify row_number() over (partition by run_id, result_id order by (_part, _row) desc) = 1
