-- stg_audit_mappings: one row per boundary-side mapping the auditor gave a test.
-- mapping_index is 0-based.
-- grain: run_id, test_id, mapping_index
-- source: stg_audit_labels.mappings
-- unnest in the select list, not a lateral join: DuckDB then pushes a run_id filter below it.
select
    run_id, test_id, validity, mapping_index,
    item.boundary as boundary,
    item.side as side,
    item.explicit as explicit,
    item.passages as passages
from (
    select a.run_id, a.test_id, a.validity,
        generate_subscripts(a.mappings, 1) - 1 as mapping_index, unnest(a.mappings) as item
    from stg_audit_labels as a
)
