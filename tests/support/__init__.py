"""Test helpers shared across test packages (local fake servers, the small demo run config)."""
