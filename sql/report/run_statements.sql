-- run_statements: the grounded statements of a run, in rank order (statement diffs).
-- grain: one row per run_id and statement_id
-- inputs: stg_statements
-- params: run_id
select run_id, statement_id, rank, text, condition, behavior, confidence
from stg_statements
where ($run_id is null or run_id = $run_id) and grounded
order by run_id, rank nulls last, statement_id
