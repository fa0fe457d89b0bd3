-- llm_usage: LLM calls, tokens and cost by role and provider/model.
-- grain: one row per run_id, role and provider_model
-- inputs: stg_llm_calls
-- params: run_id
-- calls counts every row (one per logical call, cache hits included); provider_calls those that
-- reached a provider. Tokens and cost are spend: summed over provider calls only (a cache hit's
-- row carries the cached answer's token counts, not tokens spent). unpriced_calls: provider
-- calls of a model without a price (their cost 0 means unknown). role 'agent' is the llm-agent
-- target's own model, not the tester's. invalid_answers: answers that failed validation (schema or
-- missing content; each call re-asks once); pending_calls: requests folded from the request journal
-- (sent, no answer recorded: a crash), counted as provider calls with unknown tokens. cut_calls /
-- cut_chars: calls whose input was cut to fit the model's context, and the characters cut
-- (adat.llm.context_budget; NULL on rows written before the cut was recorded counts as none).
select
    run_id,
    role,
    provider_model,
    count(*) as calls,
    count(*) filter (where cache_hit) as cache_hits,
    count(*) filter (where not cache_hit) as provider_calls,
    count(*) filter (where error is not null) as errors,
    count(*) filter (where repaired) as repaired,
    cast(coalesce(sum(input_tokens) filter (where not cache_hit), 0) as bigint) as input_tokens,
    cast(coalesce(sum(output_tokens) filter (where not cache_hit), 0) as bigint) as output_tokens,
    coalesce(sum(cost_usd) filter (where not cache_hit), 0.0) as cost_usd,
    count(*) filter (where not cache_hit and not priced) as unpriced_calls,
    cast(coalesce(sum(invalid_answers), 0) as bigint) as invalid_answers,
    count(*) filter (where pending) as pending_calls,
    count(*) filter (where cut_chars > 0 or cut_rule <> '') as cut_calls,
    cast(coalesce(sum(cut_chars), 0) as bigint) as cut_chars
from stg_llm_calls
where ($run_id is null or run_id = $run_id)
group by run_id, role, provider_model
order by run_id, role, provider_model
