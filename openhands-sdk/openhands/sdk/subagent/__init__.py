"""Sub-agents: named agent recipes that delegating tools (task, delegate, workflow) run.

Register one from Python (`register_agent(name, factory_func, description)`), or describe it
in a Markdown file with front matter (`AgentDefinition.load`, `load_agents_from_dir`,
`register_file_agents`) and turn the definition into a factory with
`agent_definition_to_factory`.
"""

from openhands.sdk.subagent.load import (
    discover_agents,
    load_agents_from_dir,
    load_project_agents,
    load_user_agents,
)
from openhands.sdk.subagent.registry import (
    DEFAULT_AGENT_NAME,
    AgentFactory,
    AgentFactoryFunc,
    DuplicateAgentError,
    UnknownAgentError,
    agent_definition_to_factory,
    canonical_agent_name,
    get_agent_factory,
    get_factory_info,
    get_registered_agent_definitions,
    register_agent,
    register_agent_if_absent,
    register_file_agents,
    unregister_agent,
)
from openhands.sdk.subagent.schema import (
    AgentDefinition,
    AgentDefinitionError,
    AgentDefinitionLevel,
    PermissionMode,
)
from openhands.sdk.utils.frontmatter import FrontMatterError

__all__ = [
    "DEFAULT_AGENT_NAME",
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentDefinitionLevel",
    "AgentFactory",
    "AgentFactoryFunc",
    "DuplicateAgentError",
    "FrontMatterError",
    "PermissionMode",
    "UnknownAgentError",
    "agent_definition_to_factory",
    "canonical_agent_name",
    "discover_agents",
    "get_agent_factory",
    "get_factory_info",
    "get_registered_agent_definitions",
    "load_agents_from_dir",
    "load_project_agents",
    "load_user_agents",
    "register_agent",
    "register_agent_if_absent",
    "register_file_agents",
    "unregister_agent",
]
