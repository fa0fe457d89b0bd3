-- llm_cost_per_valid_test: the tester's LLM calls, tokens and cost per valid boundary test.
-- grain: one row per run_id (runs with LLM calls or tests)
-- inputs: stg_llm_calls, int_test_validity
-- params: run_id
-- Spend is what the tester's roles cost to make the run's tests: calls that reached a provider
-- (cache hits excluded) of every role except 'auditor' (evaluation only) and 'agent' (the
-- llm-agent target's own model). valid_tests = V over all the run's tests (validity explicit
-- or valid); NULL when none of the run's tests was audited ("not audited", never 0). Ratios are
-- NULL when the run has no valid test or was not audited. unpriced_calls > 0 means cost_usd is a
-- lower bound.
with spend as (
    select
        run_id,
        count(*) as calls,
        cast(sum(input_tokens + output_tokens) as bigint) as tokens,
        sum(cost_usd) as cost_usd,
        count(*) filter (where not priced) as unpriced_calls
    from stg_llm_calls
    where not cache_hit and role not in ('auditor', 'agent')
      and ($run_id is null or run_id = $run_id)
    group by run_id
),
cache as (
    select run_id, count(*) filter (where cache_hit) as cache_hits
    from stg_llm_calls
    where role not in ('auditor', 'agent') and ($run_id is null or run_id = $run_id)
    group by run_id
),
valid as (
    select run_id, case when audited > 0 then valid end as valid_tests
    from int_test_validity
    where kind = 'all' and ($run_id is null or run_id = $run_id)
),
runs as (
    select run_id from spend union select run_id from cache union select run_id from valid
)
select
    r.run_id,
    v.valid_tests,
    coalesce(s.calls, 0) as calls,
    coalesce(s.tokens, 0) as tokens,
    coalesce(s.cost_usd, 0.0) as cost_usd,
    coalesce(c.cache_hits, 0) as cache_hits,
    coalesce(s.unpriced_calls, 0) as unpriced_calls,
    cast(coalesce(s.calls, 0) as double) / nullif(v.valid_tests, 0) as calls_per_valid_test,
    cast(coalesce(s.tokens, 0) as double) / nullif(v.valid_tests, 0) as tokens_per_valid_test,
    coalesce(s.cost_usd, 0.0) / nullif(v.valid_tests, 0) as cost_per_valid_test
from runs as r
left join spend as s on s.run_id = r.run_id
left join cache as c on c.run_id = r.run_id
left join valid as v on v.run_id = r.run_id
order by r.run_id
