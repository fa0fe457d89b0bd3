-- stg_execution_turns: one row per message of an execution. turn_index is 0-based over all
-- messages (user and agent). tool_calls: the calls the agent reported with that reply (empty for
-- user messages and text-only targets; NULL in parts written before targets reported them).
-- grain: run_id, execution_id, turn_index
-- source: stg_executions.turns
-- unnest in the select list, not a lateral join: DuckDB then pushes a run_id filter below it.
select run_id, execution_id, test_id, agent_variant, turn_index, turn.role as role, turn.text as text, turn.ts as ts,
    turn.tool_calls as tool_calls
from (
    select e.run_id, e.execution_id, e.test_id, e.agent_variant,
        generate_subscripts(e.turns, 1) - 1 as turn_index, unnest(e.turns) as turn
    from stg_executions as e
)
