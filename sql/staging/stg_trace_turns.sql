-- stg_trace_turns: one row per message of a trace. turn_index is 0-based, as
-- statements.supporting_turn.
-- grain: run_id, trace_id, turn_index
-- source: stg_traces.turns
select
    t.run_id,
    t.trace_id,
    t.kind,
    u.ordinality - 1 as turn_index,
    u.turn.role as role,
    u.turn.text as text,
    u.turn.ts as ts
from stg_traces as t,
    unnest(t.turns) with ordinality as u(turn, ordinality)
