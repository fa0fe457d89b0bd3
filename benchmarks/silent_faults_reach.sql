-- silent_faults_reach (benchmarks/silent_faults.py): per seeded fault of a run, the tests a judge
-- could make detect it -- every execution of the test on the original agent passed in this run,
-- and the auditor finds the test's execution on the faulty agent not complied and caused by the
-- fault (its label is then TP with a fail verdict, FN with a pass). What the judge's verdict
-- adds is the fail: detecting_tests (sql/metrics/fault_detection.sql) <= detectable_tests.
-- The label row keeps the attribution of a TP only (attributed_fault); for the others it is read
-- from the rationale, which src/adat/evaluation/labels.py ends with 'caused by fault <id> (rule ...)'.
-- grain: one row per fault (agent_variant other than 'original') run in the run
-- inputs: stg_executions, stg_verdicts, stg_execution_labels
-- params: run_id
with original as (
    select e.test_id, bool_and(v.verdict = 'pass') as passed
    from stg_executions as e
    join stg_verdicts as v using (run_id, execution_id)
    where e.run_id = $run_id and e.agent_variant = 'original'
    group by e.test_id
)
select
    l.agent_variant as fault,
    count(distinct l.test_id) as labelled_tests,
    count(distinct l.test_id) filter (where l.complied = false) as not_complied_tests,
    count(distinct l.test_id) filter (
        where l.complied = false and l.rationale like '%caused by fault ' || l.agent_variant || ' %'
          and o.passed) as detectable_tests
from stg_execution_labels as l
join original as o using (test_id)
where l.run_id = $run_id and l.agent_variant <> 'original'
group by l.agent_variant
order by fault
