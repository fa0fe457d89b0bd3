-- counted_tests: C, the counted tests of a run, per test kind and over all kinds ('all').
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: int_test_validity
-- params: run_id
-- RQ1/RQ3 count every test of a suite (kind 'all'); RQ2 counts a run's transformed tests (kind
-- 'transformed'). audited = counted tests the auditor labelled; an unlabelled test counts as not
-- valid in validity_rate / explicit_validity_rate, so audited < counted flags a missing audit.
select run_id, kind, counted, audited
from int_test_validity
where ($run_id is null or run_id = $run_id)
order by run_id, kind = 'all', kind
