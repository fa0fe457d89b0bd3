-- tdad_unobservable_without_fixtures: assertions a target that takes no fixtures could not show.
-- grain: one row per run_id, assertion kind and clause
-- inputs: stg_spec_assertions
-- params: run_id
-- An external target (http, python, reference: adat.tdad.target_fit) answers from its own data,
-- never from a spec test's fixtures, so an assertion whose expected value only a fixture holds
-- (PII canaries planted in tool outputs, a field value only a tool returned) is judged
-- not_observable with a detail starting 'fixtures not delivered'. Counted over the reruns on the
-- compiled prompt (scope suite, every rerun): assertions = such judgements, tests = distinct tests.
select
    run_id,
    assertion_kind,
    clause,
    count(*) as assertions,
    count(distinct test_id) as tests
from stg_spec_assertions
where source = 'spec_reruns' and outcome = 'not_observable' and detail like 'fixtures not delivered%'
  and agent_variant = 'compiled' and ($run_id is null or run_id = $run_id)
group by run_id, assertion_kind, clause
order by run_id, tests desc, assertion_kind, clause
