-- verdict_counts: the judge's verdicts per run, test kind and agent variant.
-- grain: one row per run_id, kind and agent_variant
-- inputs: stg_executions, stg_verdicts, stg_tests
-- params: run_id
-- executions counts every execution; unjudged those without a verdict (see
-- checks/executions_without_verdict.sql) or whose verdict no judge gave (judged = false: a
-- target error or a failed judge call); inconclusive counts only judged verdicts. kind is '?' for an execution whose test is not in
-- the run's tests (see checks/executions_without_test.sql).
select
    e.run_id,
    coalesce(t.kind, '?') as kind,
    e.agent_variant,
    count(*) as executions,
    count(*) filter (where v.verdict = 'pass' and v.judged) as pass,
    count(*) filter (where v.verdict = 'fail' and v.judged) as fail,
    count(*) filter (where v.verdict = 'inconclusive' and v.judged) as inconclusive,
    count(*) filter (where v.verdict is null or not v.judged) as unjudged
from stg_executions as e
left join stg_tests as t on t.run_id = e.run_id and t.test_id = e.test_id
left join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
where ($run_id is null or e.run_id = $run_id)
group by e.run_id, coalesce(t.kind, '?'), e.agent_variant
order by e.run_id, kind, e.agent_variant <> 'original', e.agent_variant
