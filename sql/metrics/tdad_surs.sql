-- tdad_surs: SURS, the share of v1 invariant tests (clauses v2 keeps) still passing on compiled v2.
-- grain: one row per run_id (v2 runs that reran v1 invariant tests)
-- inputs: int_spec_test_reruns
-- params: run_id
-- An invariant test counts as passing when its first run (rerun 0) on the compiled v2 prompt passed.
select
    run_id,
    count(*) as invariant_tests,
    count(*) filter (where first_passed) as invariant_passed,
    cast(count(*) filter (where first_passed) as double) / count(*) as surs,
    coalesce(list(test_id order by test_id) filter (where not first_passed), []) as broken
from int_spec_test_reruns
where scope = 'invariant' and ($run_id is null or run_id = $run_id)
group by run_id
order by run_id
