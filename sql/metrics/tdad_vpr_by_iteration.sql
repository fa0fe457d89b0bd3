-- tdad_vpr_by_iteration: VPR after each PromptSmith iteration, from the start prompt (iteration 0).
-- grain: one row per run_id and iteration
-- inputs: stg_compile_iterations, stg_compile_results
-- params: run_id
-- VPR_i = passing / visible tests of the full visible run of the prompt in effect after
-- iteration i (the candidate when promoted, else the parent; its latest full run at or before
-- i). A candidate is promoted only when its full visible pass count does not fall. A test
-- nothing of which could be observed is not passed: visible_not_observable counts those (they
-- are also in `failing`).
with full_runs as (
    select run_id, iteration, artifact_digest,
           count(*) as visible_tests,
           count(*) filter (where passed) as visible_passed,
           count(*) filter (where not_observable) as visible_not_observable,
           coalesce(list(test_id order by test_id) filter (where not passed), []) as failing
    from stg_compile_results
    where scope = 'full'
    group by run_id, iteration, artifact_digest
),
in_effect as (
    select i.run_id, i.iteration, i.promoted, i.in_effect_digest, i.candidate_digest,
           f.visible_tests, f.visible_passed, f.visible_not_observable, f.failing
    from stg_compile_iterations as i
    join full_runs as f
      on f.run_id = i.run_id and f.artifact_digest = i.in_effect_digest and f.iteration <= i.iteration
    where ($run_id is null or i.run_id = $run_id)
    qualify row_number() over (partition by i.run_id, i.iteration order by f.iteration desc) = 1
)
select
    run_id,
    iteration,
    promoted,
    in_effect_digest,
    visible_tests,
    visible_passed,
    cast(visible_passed as double) / visible_tests as vpr,
    visible_not_observable,
    failing
from in_effect
order by run_id, iteration
