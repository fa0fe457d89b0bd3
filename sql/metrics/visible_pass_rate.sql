-- visible_pass_rate: TDAD's VPR, the share of judged executions of visible tests that pass.
-- grain: one row per run_id and agent_variant (runs with executions of tests whose visibility is 'visible')
-- inputs: stg_executions, stg_verdicts, stg_tests
-- params: run_id
-- Over executions that have a verdict (inconclusive counts as not passing). With one execution
-- per test this is the share of visible tests that pass; with repeats, every repeat counts
-- once (see pass_k for "all repeats pass").
select
    e.run_id,
    e.agent_variant,
    count(distinct e.test_id) as tests,
    count(*) as executions,
    count(*) filter (where v.verdict = 'pass') as passed,
    cast(count(*) filter (where v.verdict = 'pass') as double) / count(*) as visible_pass_rate
from stg_executions as e
join stg_tests as t on t.run_id = e.run_id and t.test_id = e.test_id
join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
where t.visibility = 'visible' and ($run_id is null or e.run_id = $run_id)
group by e.run_id, e.agent_variant
order by e.run_id, e.agent_variant <> 'original', e.agent_variant
