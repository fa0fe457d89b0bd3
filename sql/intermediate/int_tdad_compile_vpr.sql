-- int_tdad_compile_vpr: the prompt in effect after each PromptSmith iteration and its full visible run.
-- grain: run_id, iteration
-- inputs: stg_compile_iterations, stg_compile_results
-- The prompt in effect after iteration i is the candidate when promoted, else the parent; its
-- visible figures are those of its latest full run at or before i. A test nothing of which could
-- be observed is not passed (visible_not_observable counts those; they are also in `failing`).
-- budget: the iterations PromptSmith was allowed (0 = not compiled, -1 = not recorded).
with full_runs as (
    select run_id, iteration, artifact_digest,
           count(*) as visible_tests,
           count(*) filter (where passed) as visible_passed,
           count(*) filter (where not_observable) as visible_not_observable,
           coalesce(list(test_id order by test_id) filter (where not passed), []) as failing
    from stg_compile_results
    where scope = 'full'
    group by run_id, iteration, artifact_digest
)
select i.run_id, i.iteration, i.promoted, i.in_effect_digest, i.candidate_digest,
       coalesce(i.budget, -1) as budget,
       f.visible_tests, f.visible_passed, f.visible_not_observable, f.failing
from stg_compile_iterations as i
join full_runs as f
  on f.run_id = i.run_id and f.artifact_digest = i.in_effect_digest and f.iteration <= i.iteration
qualify row_number() over (partition by i.run_id, i.iteration order by f.iteration desc) = 1
