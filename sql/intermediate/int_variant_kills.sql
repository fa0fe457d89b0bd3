-- int_variant_kills: every (variant, visible test) pair of mutation testing, and whether the test kills the variant.
-- grain: run_id, variant, test_id
-- inputs: int_spec_test_reruns, stg_mutant_results, stg_mutants
-- The one kill rule of mutation testing (DESIGN §9): a test kills a variant when it fails on the
-- variant AND passed on the unmutated base in every one of its reruns there (a test flaky on the
-- base kills nothing). Only visible tests run on variants; activation comes from the variant's
-- own probe (stg_mutants.activated) and is carried here so scores need one view.
with base as (
    select run_id, test_id, k as base_reruns, pass_k as base_pass_all
    from int_spec_test_reruns
    where scope = 'suite' and split = 'visible'
),
on_variant as (
    select run_id, agent_variant as variant, test_id, bool_or(not passed) as variant_failed
    from stg_mutant_results
    where scope = 'suite' and split = 'visible'
    group by run_id, agent_variant, test_id
)
select
    v.run_id,
    v.variant,
    m.kind,
    m.activated,
    v.test_id,
    coalesce(b.base_reruns, 0) as base_reruns,
    coalesce(b.base_pass_all, false) as base_pass_all,
    v.variant_failed,
    v.variant_failed and coalesce(b.base_pass_all, false) as kills
from on_variant as v
join stg_mutants as m on m.run_id = v.run_id and m.mutant_id = v.variant
left join base as b on b.run_id = v.run_id and b.test_id = v.test_id
