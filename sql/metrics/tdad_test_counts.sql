-- tdad_test_counts: visible, hidden and v1-invariant spec tests of each spec version run.
-- grain: one row per run_id (runs that wrote spec tests)
-- inputs: stg_spec_tests, int_spec_test_reruns
-- params: run_id
-- Visible and hidden are the tests TestSmith wrote (spec_tests), so a compile-only run
-- (`adat spec compile`) counts them too; invariant_tests are the v1 tests a v2 run reran on its
-- compiled prompt (scope 'invariant'), not_runnable_invariants the v1 invariant tests it could not
-- run (scope 'not_runnable': a tool they need is gone, or no fixture could be made for a new tool).
with written as (
    select run_id,
           any_value(spec_id) as spec_id,
           any_value(spec_version) as spec_version,
           count(*) filter (where split = 'visible') as visible_tests,
           count(*) filter (where split = 'hidden') as hidden_tests
    from stg_spec_tests
    where ($run_id is null or run_id = $run_id)
    group by run_id
),
invariants as (
    select run_id,
           count(*) filter (where scope = 'invariant') as invariant_tests,
           count(*) filter (where scope = 'not_runnable') as not_runnable_invariants
    from int_spec_test_reruns
    where ($run_id is null or run_id = $run_id)
    group by run_id
)
select
    w.run_id,
    w.spec_id,
    w.spec_version,
    w.visible_tests,
    w.hidden_tests,
    coalesce(i.invariant_tests, 0) as invariant_tests,
    coalesce(i.not_runnable_invariants, 0) as not_runnable_invariants
from written as w
left join invariants as i on i.run_id = w.run_id
order by w.run_id
