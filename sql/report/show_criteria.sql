-- show_criteria: the judge's per-criterion findings for the given executions (adat show).
-- grain: one row per execution_id and criterion_index
-- inputs: stg_verdict_criteria
-- params: run_id, execution_ids
select execution_id, criterion_index, criterion_kind, criterion, holds, criterion_rationale
from stg_verdict_criteria
where run_id = $run_id and list_contains($execution_ids, execution_id)
order by execution_id, criterion_index
