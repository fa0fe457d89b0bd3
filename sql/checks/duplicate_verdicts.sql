-- duplicate_verdicts: executions given more than one verdict in the same write.
-- grain: one row per violating execution (run_id, execution_id) and part file
-- inputs: verdicts (base view)
-- params: run_id
-- One verdict per execution. This check reads the base view, not stg_verdicts, on purpose:
-- staging keeps the verdict written last, which is right when a stage was recomputed (a later
-- part) but would hide two verdicts written together for one execution - a judging bug
-- whose surviving verdict is an accident of row order.
select run_id, execution_id, _part as part_file, count(*) as verdicts,
       list(verdict order by _row) as verdict_values
from verdicts
where ($run_id is null or run_id = $run_id)
group by run_id, execution_id, _part
having count(*) > 1
order by run_id, execution_id
