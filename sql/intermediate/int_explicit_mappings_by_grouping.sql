-- int_explicit_mappings_by_grouping: the explicit mappings of valid tests, as each of the auditor's groupings places them.
-- grain: run_id, grouping_no, test_id, mapping_index
-- inputs: stg_groupings, stg_audit_mappings, stg_tests
-- Only explicit mappings (explicit = true) of valid boundary tests (validity explicit|valid).
-- group_boundary names the boundary the grouping maps it to; group_side names that boundary and
-- a side. A mapping a grouping leaves out is not here (checks/ungrouped_mappings.sql).
select
    g.run_id,
    g.grouping_no,
    g.test_id,
    m.mapping_index,
    t.kind,
    g.boundary,
    g.side,
    g.group_boundary,
    g.group_side
from stg_groupings as g
join stg_audit_mappings as m
    on m.run_id = g.run_id and m.test_id = g.test_id and m.boundary = g.boundary and m.side = g.side
join stg_tests as t on t.run_id = g.run_id and t.test_id = g.test_id
where m.explicit and m.validity in ('explicit', 'valid')
