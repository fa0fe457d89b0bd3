-- stg_llm_calls: one row per call through the LLM client (cache hits included).
-- grain: run_id, call_id
-- source: llm_calls
select
    * exclude (_part, _row),
    provider || '/' || model as provider_model,
    input_tokens + output_tokens as total_tokens
from llm_calls
qualify row_number() over (partition by run_id, call_id order by _part desc, _row desc) = 1
