-- pass_k: pass^k and RPR per test over its repeated executions on one agent variant in one run.
-- grain: one row per run_id, agent_variant and test_id, for tests judged at least twice there
-- inputs: stg_executions, stg_verdicts
-- params: run_id
-- k = judged executions of the test on the variant in the run; pass_k is true when all k have
-- the verdict 'pass'; rpr (reliability pass rate) = passes / k. The run-level pass^k rate is
-- avg(pass_k::int) over these rows. Tests run once are left out: pass^1 is just the verdict.
select
    e.run_id,
    e.agent_variant,
    e.test_id,
    count(*) as k,
    count(*) filter (where v.verdict = 'pass') as passes,
    count(*) filter (where v.verdict = 'pass') = count(*) as pass_k,
    cast(count(*) filter (where v.verdict = 'pass') as double) / count(*) as rpr
from stg_executions as e
join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
where ($run_id is null or e.run_id = $run_id)
group by e.run_id, e.agent_variant, e.test_id
having count(*) >= 2
order by e.run_id, e.agent_variant <> 'original', e.agent_variant, e.test_id
