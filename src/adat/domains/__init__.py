"""Domains an agent under test works in: a database, tools over it and a policy document.

adat ships one, ``retail``, in the τ²-bench retail format (DESIGN §7).
"""
