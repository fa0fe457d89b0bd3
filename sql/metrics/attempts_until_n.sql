-- attempts_until_n: N_n, the attempt number at which a run wrote its n-th transformed test.
-- grain: one row per run_id (runs with at least one transformation attempt)
-- inputs: stg_attempts, stg_runs
-- params: run_id, n
-- Attempts ending as not applicable count (paper §4.3). n_target = $n, else the run's configured
-- generation.n (stg_runs.config_json), else its transformed-test count. When the run wrote
-- fewer tests than n_target, n drops to the count it reached and reached_n_target is false, so
-- attempts_until_n is then the attempt of the run's last transformed test (NULL with none).
-- A transformed test is an attempt with a test_id.
with totals as (
    select run_id, count(*) as attempts, count(test_id) as transformed_tests
    from stg_attempts
    where ($run_id is null or run_id = $run_id)
    group by run_id
),
targets as (
    select
        t.run_id,
        t.attempts,
        t.transformed_tests,
        coalesce(cast($n as bigint),
                 try_cast(json_extract_string(r.config_json, '$.generation.n') as bigint),
                 t.transformed_tests) as n_target
    from totals as t
    left join stg_runs as r on r.run_id = t.run_id
),
written as (
    select run_id, attempt_no, row_number() over (partition by run_id order by attempt_no) as test_no
    from stg_attempts
    where test_id is not null and ($run_id is null or run_id = $run_id)
)
select
    t.run_id,
    t.n_target,
    least(t.n_target, t.transformed_tests) as n,
    t.transformed_tests >= t.n_target as reached_n_target,
    w.attempt_no as attempts_until_n,
    t.attempts,
    t.transformed_tests
from targets as t
left join written as w on w.run_id = t.run_id and w.test_no = least(t.n_target, t.transformed_tests)
order by t.run_id
