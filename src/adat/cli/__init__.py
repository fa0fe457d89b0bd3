"""The ``adat`` command line."""
