"""The compiled artifact of a spec agent: its system prompt and its tool descriptions.

PromptSmith edits it, MutationSmith mutates it (both through :meth:`PromptArtifact.edited_by`),
the spec agent host runs it. The seed artifact
is the shipped starting point (``seed_prompt.txt`` + ``seed_tool_descriptions.yaml`` in an
agent's artifacts directory).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from adat.contracts.tdad_roles import MutationSmithOutput, PromptSmithOutput, ToolDescriptionView
from adat.errors import UserError
from adat.llm.types import TesterLLM
from adat.yaml_io import read_yaml

SEED_PROMPT_FILE = "seed_prompt.txt"
SEED_TOOLS_FILE = "seed_tool_descriptions.yaml"


class PromptArtifact(BaseModel):
    """What the agent is given: a system prompt and one description per tool (name -> text)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system_prompt: str
    tool_descriptions: dict[str, str] = Field(default_factory=dict,
                                              description="tool name -> description shown to the agent")

    def digest(self) -> str:
        """A short content hash: equal artifacts have equal digests, any edit changes it."""
        payload = json.dumps({"system_prompt": self.system_prompt,
                              "tool_descriptions": dict(sorted(self.tool_descriptions.items()))},
                             ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]

    def description(self, tool: str) -> str:
        """The description the agent sees for ``tool`` (empty when the artifact has none)."""
        return self.tool_descriptions.get(tool, "")

    def tool_views(self) -> list[ToolDescriptionView]:
        return [ToolDescriptionView(name=k, description=v) for k, v in self.tool_descriptions.items()]

    def edited_by(self, client: TesterLLM, role: str, prompt_id: str, inp: BaseModel,
                  output: type[PromptSmithOutput | MutationSmithOutput], attempt: int) -> PromptArtifact:
        """This artifact with the prompt and tool descriptions ``role`` answers, keeping only the tools
        it has (no new tools, none lost)."""
        out = client.structured(role, prompt_id, inp.model_dump(), output, cache_tag=f"attempt={attempt}")
        given = {v.name: v.description for v in out.tool_descriptions}
        return self.model_copy(update={"system_prompt": out.system_prompt, "tool_descriptions": {
            name: given.get(name, old) for name, old in self.tool_descriptions.items()}})


def seed_artifact(agent_artifacts_dir: str | Path) -> PromptArtifact:
    """Read the seed prompt and seed tool descriptions of one agent."""
    root = Path(agent_artifacts_dir)
    prompt_path, tools_path = root / SEED_PROMPT_FILE, root / SEED_TOOLS_FILE
    if not prompt_path.is_file():
        raise UserError("seed prompt not found", file=str(prompt_path),
                        fix=f"give the agent's artifacts directory (it holds {SEED_PROMPT_FILE})")
    descriptions: dict[str, str] = {}
    if tools_path.is_file():
        raw = read_yaml(tools_path) or {}
        if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
            raise UserError("must map each tool name to a description string", file=str(tools_path),
                            fix="write 'tool_name: \"description\"' lines")
        descriptions = {str(k): v for k, v in raw.items()}
    return PromptArtifact(system_prompt=prompt_path.read_text(encoding="utf-8"), tool_descriptions=descriptions)
