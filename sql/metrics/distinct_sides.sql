-- distinct_sides: P, distinct sides of the explicit boundaries covered, median over groupings.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: int_explicit_coverage
-- params: run_id
-- Only explicit mappings (explicit = true) of valid boundary tests (validity explicit|valid)
-- count. Per grouping, P = count(distinct group_side) (group_side names a canonical boundary
-- and side, so it is counted alone); a grouping in which a kind has no explicit mapping counts
-- 0 for it. p = median over the run's groupings; p_by_grouping lists them by grouping_no.
-- p_extra = median over groupings of P(all kinds) - P(every other kind): the sides only this
-- kind's tests cover (paper Table 2's transformed-test rows); for 'all' it equals p. Runs
-- without groupings have no rows. Computed with U in intermediate/int_explicit_coverage.sql.
select run_id, kind, groupings, p, p_extra, p_by_grouping
from int_explicit_coverage
where ($run_id is null or run_id = $run_id)
order by run_id, kind = 'all', kind
