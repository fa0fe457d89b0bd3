-- stg_llm_calls: one row per call through the LLM client (cache hits included).
-- grain: run_id, call_id
-- source: llm_calls
-- Not deduplicated: the table is append-only, every row is a new call with a fresh call_id
-- (a uuid4, adat.llm.client), and no stage rewrites it (the pipeline appends what it drains
-- once). checks/duplicate_llm_calls.sql pins that uniqueness. Without a dedupe window a run
-- filter reaches the Parquet scan directly (about 135k calls per run at scale).
select
    * exclude (_part, _row),
    provider || '/' || model as provider_model,
    input_tokens + output_tokens as total_tokens
from llm_calls
