"""The run engine: the run context, stage declarations and the one wrapper every stage runs in,
cache keys, run-id claims and preflight."""
