-- duplicate_llm_calls: call ids logged more than once in a run.
-- grain: one row per violating call (run_id, call_id)
-- inputs: stg_llm_calls
-- params: run_id
-- stg_llm_calls keeps every row (no dedupe window): the LLM client gives each call a fresh
-- uuid4 and the pipeline appends each drained call once. A repeated call_id means a call was
-- written twice and would be counted twice in llm_usage, run_llm_calls and the budget.
select run_id, call_id, count(*) as rows
from stg_llm_calls
where ($run_id is null or run_id = $run_id)
group by run_id, call_id
having count(*) > 1
order by run_id, call_id
