-- stg_verdicts: the judge's verdict on each execution; when an execution was judged more than
-- once (a recomputed stage), the verdict written last wins (verdicts carry no timestamp: write
-- order is the part file name, then the row within the part). judged is false for an execution
-- no judge saw (target error, judge failure); parts written before the field existed count as judged.
-- grain: run_id, execution_id
-- source: verdicts
select
    * exclude (_part, _row, judged),
    coalesce(judged, true) as judged,
    len(criteria) as n_criteria
from verdicts
qualify row_number() over (partition by run_id, execution_id order by (_part, _row) desc) = 1
