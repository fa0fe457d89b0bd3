-- explicit_validity_rate: V_E/C, explicitly valid boundary tests over counted tests.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: int_test_validity
-- params: run_id
-- As validity_rate, with V_E = tests the auditor labelled 'explicit' (a mapping supported by
-- passages from the agent's artifacts). Unlabelled tests count as not explicitly valid.
select
    run_id, kind, counted, explicit_valid,
    cast(explicit_valid as double) / counted as explicit_validity_rate
from int_test_validity
where ($run_id is null or run_id = $run_id)
order by run_id, kind = 'all', kind
