"""The AdaT2 pipeline as steps: discovery, extraction, grounding, generation, execution, transformation."""
