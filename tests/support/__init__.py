"""Test helpers shared across test packages (local fake servers)."""
