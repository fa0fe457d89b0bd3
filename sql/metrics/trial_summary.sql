-- trial_summary: the run's repeated trials in one row per agent variant — pass^k rate, mean pass
-- rate and how many tests are stable, agent-flaky or judge-flaky.
-- grain: one row per run_id and agent_variant with tests run at least twice
-- inputs: int_test_trials
-- params: run_id
-- k is the largest trial count; pass_k_rate = tests passing all their trials / tests.
select
    run_id,
    agent_variant,
    count(*) as tests,
    max(k) as k,
    count(*) filter (where pass_k) as tests_pass_k,
    cast(count(*) filter (where pass_k) as double) / count(*) as pass_k_rate,
    avg(pass_rate) as mean_pass_rate,
    count(*) filter (where flake_class = 'stable') as stable,
    count(*) filter (where flake_class = 'agent-flaky') as agent_flaky,
    count(*) filter (where flake_class = 'judge-flaky') as judge_flaky
from int_test_trials
where k >= 2 and ($run_id is null or run_id = $run_id)
group by run_id, agent_variant
order by run_id, agent_variant <> 'original', agent_variant
