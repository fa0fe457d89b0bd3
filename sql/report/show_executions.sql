-- show_executions: executions of a test (or one execution) with verdict and labels (adat show).
-- grain: one row per execution_id
-- inputs: stg_executions, stg_verdicts, stg_execution_labels
-- params: run_id, test_id, execution_id, agent_variant
-- execution_id NULL means every execution of test_id; agent_variant NULL means every variant.
-- verdict and label are NULL for an execution not judged / not labelled.
select
    e.run_id, e.execution_id, e.test_id, e.agent_variant, e.ended_by, e.error, e.n_turns, e.duration_s,
    v.verdict, v.rationale, v.produced_by as judged_by,
    l.label, l.rationale as label_rationale, l.attributed_fault
from stg_executions as e
left join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
left join stg_execution_labels as l on l.run_id = e.run_id and l.execution_id = e.execution_id
where e.run_id = $run_id and e.test_id = $test_id
  and ($execution_id is null or e.execution_id = $execution_id)
  and ($agent_variant is null or e.agent_variant = $agent_variant)
order by e.agent_variant <> 'original', e.agent_variant, e.execution_id
