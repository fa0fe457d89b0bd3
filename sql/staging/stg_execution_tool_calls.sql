-- stg_execution_tool_calls: one row per tool call an agent reported in an execution, in order.
-- turn_index is the agent message's index in stg_execution_turns; call_order the call's position
-- within that reply (from 0). Arguments and result are JSON text; error is the tool's error text.
-- grain: run_id, execution_id, turn_index, call_order
-- source: stg_execution_turns.tool_calls
select run_id, execution_id, test_id, agent_variant, turn_index,
    call.order as call_order, call.name as name, call.arguments_json as arguments_json,
    call.result_json as result_json, call.error as error
from (
    select run_id, execution_id, test_id, agent_variant, turn_index, unnest(tool_calls) as call
    from stg_execution_turns
    where tool_calls is not null
)
