-- tdad_surs: SURS, the share of v1 invariant tests that passed on v1 and still pass on compiled v2.
-- grain: one row per run_id (v2 runs that reran v1 invariant tests)
-- inputs: int_spec_test_reruns, int_tdad_compile_status
-- params: run_id
-- The v2 run's reliability stage (adat.tdad.evolution) files each v1 invariant test under a scope:
--   invariant           -- passed on v1 (its first run on the compiled v1 prompt) and ran on v2;
--   invariant_v1_failed -- ran on v2 but had already failed on v1: never counted as broken by v2;
--   not_runnable        -- could not run on v2 (a tool it needs is gone, or no fixture could be
--                          made for a tool v2 adds); listed, never counted.
-- SURS = invariant tests whose first run on v2 passed / invariant tests; broken names the others.
-- compile_status is the v2 run's (int_tdad_compile_status): a SURS of a prompt that did not
-- converge is marked so.
select
    r.run_id,
    count(*) filter (where r.scope = 'invariant') as invariant_tests,
    count(*) filter (where r.scope = 'invariant' and r.first_passed) as invariant_passed,
    cast(count(*) filter (where r.scope = 'invariant' and r.first_passed) as double)
        / nullif(count(*) filter (where r.scope = 'invariant'), 0) as surs,
    coalesce(list(r.test_id order by r.test_id) filter (where r.scope = 'invariant' and not r.first_passed), [])
        as broken,
    coalesce(list(r.test_id order by r.test_id) filter (where r.scope = 'invariant_v1_failed'), []) as v1_failed,
    coalesce(list(r.test_id order by r.test_id) filter (where r.scope = 'not_runnable'), []) as not_runnable,
    any_value(s.compile_status) as compile_status
from int_spec_test_reruns as r
left join int_tdad_compile_status as s on s.run_id = r.run_id
where r.scope in ('invariant', 'invariant_v1_failed', 'not_runnable') and ($run_id is null or r.run_id = $run_id)
group by r.run_id
order by r.run_id
