-- silent_faults_original_checks: the process checks judged on the original agent, by kind and
-- outcome: a check that fails there is a false alarm of the checks (benchmarks/silent_faults.py
-- leaves them in its data directory; docs/cases.md, section 3).
-- grain: one row per run_id, kind and outcome
-- inputs: stg_process_checks, stg_executions
-- params: run_id
select p.run_id, p.kind, p.outcome, count(*) as checks
from stg_process_checks as p
join stg_executions as e using (execution_id)
where e.agent_variant = 'original' and ($run_id is null or p.run_id = $run_id)
group by all
order by all
