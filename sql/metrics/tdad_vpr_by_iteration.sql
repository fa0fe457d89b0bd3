-- tdad_vpr_by_iteration: VPR after each PromptSmith iteration, from the start prompt (iteration 0).
-- grain: one row per run_id and iteration
-- inputs: int_tdad_compile_vpr, int_tdad_compile_status
-- params: run_id
-- VPR_i = passing / visible tests of the full visible run of the prompt in effect after
-- iteration i (the candidate when promoted, else the parent; its latest full run at or before
-- i). A candidate is promoted only when its full visible pass count does not fall. A test
-- nothing of which could be observed is not passed: visible_not_observable counts those (they
-- are also in `failing`). compile_status (the run's, on every row): converged | not_converged |
-- not_compiled (int_tdad_compile_status); budget: the iterations allowed.
select
    v.run_id,
    v.iteration,
    v.promoted,
    v.in_effect_digest,
    v.visible_tests,
    v.visible_passed,
    cast(v.visible_passed as double) / v.visible_tests as vpr,
    v.visible_not_observable,
    v.failing,
    v.budget,
    s.compile_status
from int_tdad_compile_vpr as v
join int_tdad_compile_status as s on s.run_id = v.run_id
where ($run_id is null or v.run_id = $run_id)
order by v.run_id, v.iteration
