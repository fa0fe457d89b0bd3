-- ungrouped_mappings: explicit mappings of valid tests missing from one of the run's groupings.
-- grain: one row per violating (run_id, grouping_no, test_id, boundary, side)
-- inputs: stg_audit_mappings, stg_groupings
-- params: run_id
-- U and P count only mappings that a grouping places; a mapping a grouping left out would
-- silently lower that grouping's U and P.
with groupings as (
    select distinct run_id, grouping_no from stg_groupings
),
explicit_mappings as (
    select distinct run_id, test_id, boundary, side
    from stg_audit_mappings
    where explicit and validity in ('explicit', 'valid')
)
select m.run_id, g.grouping_no, m.test_id, m.boundary, m.side, 'not in grouping' as problem
from explicit_mappings as m
join groupings as g on g.run_id = m.run_id
where ($run_id is null or m.run_id = $run_id)
  and not exists (
      select 1 from stg_groupings as x
      where x.run_id = m.run_id and x.grouping_no = g.grouping_no and x.test_id = m.test_id
        and x.boundary = m.boundary and x.side = m.side)
order by m.run_id, g.grouping_no, m.test_id, m.boundary, m.side
