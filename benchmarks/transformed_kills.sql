-- transformed_kills: what each kind of test of a demo run detects on its own, and the wording share.
-- grain: one row per run_id and test kind ('plain', 'transformed', 'all')
-- inputs: stg_tests, int_variant_kills
-- params: run_id
-- tests: tests of the kind; rewordings: transformed tests of instruction 'wording-paraphrase';
-- wording_tests: transformed tests of any 'wording-*' instruction; detected: seeded faults with a
-- killing test (int_variant_kills.kills, the mutation-testing kill rule) of that kind alone.
with tests as (
    select run_id, test_id, kind, instruction_id
    from stg_tests
    where kind in ('plain', 'transformed') and ($run_id is null or run_id = $run_id)
),
kinds as (
    select run_id, test_id, kind, instruction_id from tests
    union all
    select run_id, test_id, 'all', instruction_id from tests
),
kills as (
    select run_id, test_id, variant
    from int_variant_kills
    where kind = 'fault' and kills and ($run_id is null or run_id = $run_id)
)
select
    k.run_id,
    k.kind,
    count(distinct k.test_id) as tests,
    count(distinct k.test_id) filter (where k.instruction_id = 'wording-paraphrase') as rewordings,
    count(distinct k.test_id) filter (where k.instruction_id like 'wording-%') as wording_tests,
    count(distinct x.variant) as detected,
    list_sort(list_distinct(list(x.variant) filter (where x.variant is not null))) as detected_faults
from kinds as k
left join kills as x on x.run_id = k.run_id and x.test_id = k.test_id
group by k.run_id, k.kind
order by k.run_id, k.kind
