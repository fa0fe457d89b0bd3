-- stg_statements: one row per extracted statement (grounded or not) with grounding's verdict,
-- confidence and rank (extraction owns `statements`, grounding owns `ranked_statements`).
-- grain: run_id, statement_id
-- source: statements, ranked_statements
select
    s.* exclude (_part, _row, grounded, confidence, rank),
    coalesce(r.grounded, s.grounded) as grounded,
    coalesce(r.confidence, s.confidence) as confidence,
    coalesce(r.rank, s.rank) as rank
from statements as s
left join (
    select run_id, statement_id, grounded, confidence, rank
    from ranked_statements
    qualify row_number() over (partition by run_id, statement_id order by (_part, _row) desc) = 1
) as r using (run_id, statement_id)
qualify row_number() over (partition by s.run_id, s.statement_id order by (s._part, s._row) desc) = 1
