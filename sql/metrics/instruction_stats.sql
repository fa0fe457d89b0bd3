-- instruction_stats: per instruction, how often it was tried, applied, and the reward it earned.
-- grain: one row per run_id and instruction_id (instructions attempted at least once in the run)
-- inputs: stg_attempts, stg_instructions
-- params: run_id
-- applicability_rate = applicable / (attempts - errors), NULL when every attempt was an error
-- (a generator error says nothing about applicability). mean_reward averages the attempts' reward
-- (1 pass, 0.5 inconclusive, 0 fail; NULL rewards - not applicable, not yet judged - are left
-- out), NULL when no attempt has one. tests_written counts attempts with a test_id.
select
    a.run_id,
    a.instruction_id,
    any_value(i.title) as title,
    any_value(i.factor) as factor,
    count(*) as attempts,
    count(*) filter (where a.applicable) as applicable,
    count(*) filter (where a.outcome = 'error') as errors,
    cast(count(*) filter (where a.applicable) as double)
        / nullif(count(*) filter (where a.outcome <> 'error'), 0) as applicability_rate,
    count(a.test_id) as tests_written,
    avg(a.reward) as mean_reward
from stg_attempts as a
left join stg_instructions as i on i.run_id = a.run_id and i.instruction_id = a.instruction_id
where ($run_id is null or a.run_id = $run_id)
group by a.run_id, a.instruction_id
order by a.run_id, a.instruction_id
