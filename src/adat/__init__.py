"""adat: black-box boundary testing of tool-using LLM agents against their policies."""

__version__ = "0.1.0"
