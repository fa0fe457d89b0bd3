-- show_process_checks: the process checks judged on the given executions, beside the judge's own
-- verdict (adat show, the report): outcome pass | fail | not_observable, the statement a check
-- comes from and the assertion in words.
-- grain: one row per execution_id and check_index
-- inputs: stg_process_checks
-- params: run_id, execution_ids
select execution_id, check_index, judge_verdict, verdict, statement_id, statement, kind, "check", outcome, detail
from stg_process_checks
where run_id = $run_id and list_contains($execution_ids, execution_id)
order by execution_id, check_index
