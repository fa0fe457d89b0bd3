-- pass_k: pass^k and RPR per test over its repeated executions on one agent variant in one run.
-- grain: one row per run_id, agent_variant and test_id, for tests judged at least twice there
-- inputs: int_judged_executions
-- params: run_id
-- k = judged executions of the test on the variant in the run; pass_k is true when all k have
-- the verdict 'pass'; rpr (reliability pass rate) = passes / k. The run-level pass^k rate is
-- avg(pass_k::int) over these rows. Tests run once are left out: pass^1 is just the verdict.
select
    run_id,
    agent_variant,
    test_id,
    count(*) as k,
    count(*) filter (where verdict = 'pass') as passes,
    count(*) filter (where verdict = 'pass') = count(*) as pass_k,
    cast(count(*) filter (where verdict = 'pass') as double) / count(*) as rpr
from int_judged_executions
where ($run_id is null or run_id = $run_id)
group by run_id, agent_variant, test_id
having count(*) >= 2
order by run_id, agent_variant <> 'original', agent_variant, test_id
