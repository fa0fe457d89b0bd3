-- explicit_validity_rate: V_E/C, explicitly valid boundary tests over counted tests.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: int_test_validity
-- params: run_id
-- As validity_rate, with V_E = tests the auditor labelled 'explicit' (a mapping supported by
-- passages from the agent's artifacts). Unlabelled tests count as not explicitly valid; when none
-- of the row's tests was audited, explicit_valid and the rate are NULL ("not audited", never 0).
select
    run_id, kind, counted, audited,
    case when audited > 0 then explicit_valid end as explicit_valid,
    case when audited > 0 then cast(explicit_valid as double) / counted end as explicit_validity_rate
from int_test_validity
where ($run_id is null or run_id = $run_id)
order by run_id, kind = 'all', kind
