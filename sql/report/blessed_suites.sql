-- blessed_suites: each suite name and the run blessed last under it (what `adat suite export NAME`
-- and the nightly of that name use), with how many times the name was blessed.
-- grain: one row per name
-- inputs: stg_suite_blessings
-- params: run_id
-- run_id: only names whose current suite is that run; null = every name.
select name, arg_max(run_id, blessed_at) as run_id, max(blessed_at) as blessed_at,
       arg_max(tests, blessed_at) as tests, arg_max(source, blessed_at) as source, count(*) as blessings
from stg_suite_blessings
group by name
having $run_id is null or arg_max(run_id, blessed_at) = $run_id
order by name
