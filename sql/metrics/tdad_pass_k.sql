-- tdad_pass_k: pass^k over the k reruns of every spec test on the compiled prompt, and the flaky count.
-- grain: one row per run_id and split (visible | hidden; the run's own tests)
-- inputs: int_spec_test_reruns
-- params: run_id
-- pass_k_rate = share of tests passing all k reruns; mean_pass_rate = mean per-test pass rate;
-- flaky = tests with 0 < passes < k. k is the largest rerun count of the split.
select
    run_id,
    split,
    count(*) as tests,
    max(k) as k,
    count(*) filter (where pass_k) as tests_pass_k,
    cast(count(*) filter (where pass_k) as double) / count(*) as pass_k_rate,
    avg(pass_rate) as mean_pass_rate,
    count(*) filter (where passes > 0 and passes < k) as flaky
from int_spec_test_reruns
where scope = 'suite' and ($run_id is null or run_id = $run_id)
group by run_id, split
order by run_id, split desc
