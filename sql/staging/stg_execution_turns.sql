-- stg_execution_turns: one row per message of an execution. turn_index is 0-based over all
-- messages (user and agent).
-- grain: run_id, execution_id, turn_index
-- source: stg_executions.turns
select
    e.run_id,
    e.execution_id,
    e.test_id,
    e.agent_variant,
    u.ordinality - 1 as turn_index,
    u.turn.role as role,
    u.turn.text as text,
    u.turn.ts as ts
from stg_executions as e,
    unnest(e.turns) with ordinality as u(turn, ordinality)
