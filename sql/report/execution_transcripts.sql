-- execution_transcripts: the messages of the given executions, in order (report, JUnit, show).
-- grain: one row per run_id, execution_id and turn_index
-- inputs: stg_execution_turns
-- params: run_id, execution_ids
-- execution_ids is a list of execution ids; NULL means every execution of the run.
-- tool_calls: the agent's reported tool calls for that message (list of structs; see stg_execution_tool_calls).
select run_id, execution_id, test_id, agent_variant, turn_index, role, text, tool_calls
from stg_execution_turns
where ($run_id is null or run_id = $run_id)
  and ($execution_ids is null or list_contains($execution_ids, execution_id))
order by run_id, execution_id, turn_index
