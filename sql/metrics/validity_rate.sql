-- validity_rate: V/C, valid boundary tests (explicitly valid included) over counted tests.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: int_test_validity
-- params: run_id
-- Every counted test is in the denominator regardless of verdict (paper §4.3). A test without
-- an audit label is not valid: validity is the auditor's finding, and a missing label must not
-- inflate the rate (audited shows how many were labelled). When none of the row's tests was
-- audited (a run nobody evaluated, e.g. a `run-suite` run), valid and validity_rate are NULL:
-- "not audited", never 0.
select
    run_id, kind, counted, audited,
    case when audited > 0 then valid end as valid,
    case when audited > 0 then cast(valid as double) / counted end as validity_rate
from int_test_validity
where ($run_id is null or run_id = $run_id)
order by run_id, kind = 'all', kind
