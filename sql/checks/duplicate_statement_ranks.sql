-- duplicate_statement_ranks: ranks held by more than one statement of a run.
-- grain: one row per violating (run_id, rank)
-- inputs: stg_statements
-- params: run_id
-- Grounding ranks grounded statements 1, 2, ... (ties broken by extraction order); ungrounded
-- statements have no rank. Also flags ranks below 1 and ranks on ungrounded statements.
select run_id, rank, count(*) as statements, list(statement_id order by statement_id) as statement_ids,
       case when rank < 1 then 'rank below 1'
            when count(*) filter (where not grounded) > 0 then 'ranked statement not grounded'
            else 'rank not unique' end as problem
from stg_statements
where rank is not null and ($run_id is null or run_id = $run_id)
group by run_id, rank
having count(*) > 1 or rank < 1 or count(*) filter (where not grounded) > 0
order by run_id, rank
