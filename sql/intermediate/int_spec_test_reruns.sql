-- int_spec_test_reruns: per spec test, its reruns on the compiled prompt: k, passes, first-run pass, all-pass.
-- grain: run_id, scope, test_id
-- inputs: stg_spec_reruns
-- scope 'suite' = the run's own visible and hidden tests; 'invariant' = v1 invariant tests run on
-- a v2 compilation. first_passed is the result of rerun 0 (HPR and SURS count it); pass_k is
-- true when every one of the k reruns passed; a test with 0 < passes < k is flaky.
-- first_not_observable: rerun 0 showed nothing the test needs (adat.tdad.assertions.verdict_of):
-- not passed, and counted apart so a figure says how many were not observable.
select
    run_id,
    scope,
    test_id,
    any_value(spec_id) as spec_id,
    any_value(spec_version) as spec_version,
    any_value(split) as split,
    count(*) as k,
    count(*) filter (where passed) as passes,
    cast(count(*) filter (where passed) as double) / count(*) as pass_rate,
    bool_and(passed) as pass_k,
    coalesce(bool_or(passed) filter (where rerun = 0), false) as first_passed,
    coalesce(bool_or(not_observable) filter (where rerun = 0), false) as first_not_observable,
    count(*) filter (where not_observable) as not_observable_runs
from stg_spec_reruns
where agent_variant = 'compiled'
group by run_id, scope, test_id
