-- tdad_hidden_pass_rate: HPR, the share of hidden spec tests passing on the compiled prompt.
-- grain: one row per run_id (runs with hidden tests rerun on the compiled prompt)
-- inputs: int_spec_test_reruns, int_tdad_compile_status
-- params: run_id
-- A hidden test counts as passing when its first run (rerun 0) passed; its reruns are pass^k's.
-- Hidden tests are never an input of compilation. A test nothing of which could be observed
-- (not_observable) is not passed; hidden_not_observable says how many of the failures those are.
-- compile_status (int_tdad_compile_status): an HPR of a prompt that did not converge is marked so.
select
    r.run_id,
    count(*) as hidden_tests,
    count(*) filter (where r.first_passed) as hidden_passed,
    count(*) filter (where r.first_not_observable) as hidden_not_observable,
    cast(count(*) filter (where r.first_passed) as double) / count(*) as hpr,
    any_value(s.compile_status) as compile_status
from int_spec_test_reruns as r
left join int_tdad_compile_status as s on s.run_id = r.run_id
where r.scope = 'suite' and r.split = 'hidden' and ($run_id is null or r.run_id = $run_id)
group by r.run_id
order by r.run_id
