-- stg_audit_mappings: one row per boundary-side mapping the auditor gave a test.
-- mapping_index is 0-based.
-- grain: run_id, test_id, mapping_index
-- source: stg_audit_labels.mappings
select
    a.run_id,
    a.test_id,
    a.validity,
    m.ordinality - 1 as mapping_index,
    m.item.boundary as boundary,
    m.item.side as side,
    m.item.explicit as explicit,
    m.item.passages as passages
from stg_audit_labels as a,
    unnest(a.mappings) with ordinality as m(item, ordinality)
