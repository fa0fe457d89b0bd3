-- inconclusive_share: the share of the original agent's executions the judge left inconclusive.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_executions, stg_verdicts, stg_tests
-- params: run_id
-- Only executions on the original agent (agent_variant = 'original') count: there every test is
-- meant to reach its behaviour, so an inconclusive verdict says the conversation never got
-- there (the paper's second item of future work). An execution without a verdict, or whose
-- 'inconclusive' no judge gave (judged = false: a target error or a failed judge call), counts
-- as not inconclusive, as in verdict_counts.sql (see checks/executions_without_verdict.sql);
-- kind is '?' for an execution whose test is not in the run's tests.
with judged as (
    select e.run_id, coalesce(t.kind, '?') as kind, case when v.judged then v.verdict end as verdict
    from stg_executions as e
    left join stg_tests as t on t.run_id = e.run_id and t.test_id = e.test_id
    left join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
    where e.agent_variant = 'original'
      and ($run_id is null or e.run_id = $run_id)
),
both_levels as (
    select run_id, kind, verdict from judged
    union all
    select run_id, 'all' as kind, verdict from judged
)
select
    run_id,
    kind,
    count(*) as executions,
    count(*) filter (where verdict = 'inconclusive') as inconclusive,
    count(*) filter (where verdict = 'inconclusive') / count(*) as inconclusive_share
from both_levels
group by run_id, kind
order by run_id, kind = 'all', kind
