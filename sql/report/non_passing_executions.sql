-- non_passing_executions: executions on the run's target judged fail or inconclusive, with the
-- test, the judge's rationale and the auditor's labels (the report's and JUnit's failures).
-- grain: one row per run_id and execution_id
-- inputs: stg_executions, stg_verdicts, stg_tests, stg_audit_labels, stg_execution_labels, stg_runs
-- params: run_id
-- The run's target is runs.agent_variant ('original', or the fault of a run-suite on a faulty
-- target). audit_validity and execution_label are NULL when the run was not evaluated. Fails first.
select
    e.run_id,
    e.execution_id,
    e.test_id,
    t.kind,
    t.goal,
    v.verdict,
    v.rationale,
    a.validity as audit_validity,
    l.label as execution_label,
    l.rationale as label_rationale,
    e.n_turns,
    e.error
from stg_executions as e
join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
left join stg_tests as t on t.run_id = e.run_id and t.test_id = e.test_id
left join stg_audit_labels as a on a.run_id = e.run_id and a.test_id = e.test_id
left join stg_execution_labels as l on l.run_id = e.run_id and l.execution_id = e.execution_id
left join stg_runs as r on r.run_id = e.run_id
where ($run_id is null or e.run_id = $run_id)
  and e.agent_variant = coalesce(r.agent_variant, 'original') and v.verdict <> 'pass'
order by e.run_id, v.verdict <> 'fail', t.kind, e.test_id, e.execution_id
