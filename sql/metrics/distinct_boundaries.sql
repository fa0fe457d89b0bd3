-- distinct_boundaries: U, distinct explicit boundaries covered, median over the auditor's groupings.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: int_explicit_coverage
-- params: run_id
-- Only explicit mappings (explicit = true) of valid boundary tests (validity explicit|valid)
-- count. Per grouping, U = count(distinct group_boundary); a grouping in which a kind has no
-- explicit mapping counts 0 for it. u = median over the run's groupings; u_by_grouping lists
-- them by grouping_no. u_extra = median over groupings of U(all kinds) - U(every other kind):
-- the boundaries only this kind's tests cover (paper Table 2's transformed-test rows); for
-- 'all' it equals u. Runs without groupings have no rows. Computed with P in
-- intermediate/int_explicit_coverage.sql, so U and P cannot drift apart.
select run_id, kind, groupings, u, u_extra, u_by_grouping
from int_explicit_coverage
where ($run_id is null or run_id = $run_id)
order by run_id, kind = 'all', kind
