-- stg_trace_turns: one row per message of a trace. turn_index is 0-based, as
-- statements.supporting_turn.
-- grain: run_id, trace_id, turn_index
-- source: stg_traces.turns
-- unnest in the select list, not a lateral join: DuckDB then pushes a run_id filter below it.
select run_id, trace_id, kind, turn_index, turn.role as role, turn.text as text, turn.ts as ts
from (
    select t.run_id, t.trace_id, t.kind, generate_subscripts(t.turns, 1) - 1 as turn_index, unnest(t.turns) as turn
    from stg_traces as t
)
