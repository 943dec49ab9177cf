"""Rule-based analyzers that need no model: known dangerous command patterns and policy rails.

Both read the call's tool name and raw arguments. They are a floor, not a sandbox: a command
can hide its intent from any pattern. Combine them with `EnsembleSecurityAnalyzer` and a
`ConfirmRisky` policy.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from openhands.sdk.security.analyzer import SecurityAnalyzerBase, call_text
from openhands.sdk.security.risk import SecurityRisk

if TYPE_CHECKING:
    from openhands.sdk.event.action import ActionEvent

_HIGH_PATTERNS = [
    # A recursive delete of /, home, or everything here (`*`, `./*`, `.`).
    r"\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*\s+|--recursive\s+)+(-[a-zA-Z]+\s+)*"
    r"(/|~/?|\$HOME/?|/\*|\./?\*?|\*)(\s|$|\"|;|&)",
    r"\bmkfs(\.\w+)?\b",
    r"\bdd\s+[^|;]*\bof=/dev/",
    r">\s*/dev/(sd|nvme|hd)\w*",
    r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:",  # the classic fork bomb
    r"\b(curl|wget)\b[^|;]*\|\s*(sudo\s+)?(ba|z|da)?sh\b",
    r"\bchmod\s+(-R\s+)?[0-7]*777\s+/(\s|$|\")",
    r"\b(shutdown|reboot|halt|poweroff)\b",
]
_MEDIUM_PATTERNS = [
    r"\bsudo\b",
    r"\brm\s+-[a-zA-Z]*[rRf]",
    r"\bgit\s+push\b[^;|]*(--force|-f)\b",
    r"\bgit\s+reset\s+--hard\b",
    r"\b(pip|pip3|npm|apt|apt-get|yum|brew)\s+install\b",
    r"\b(curl|wget)\b",
    r"\bchmod\s+[0-7]*777\b",
    r"\bkill(all)?\s+-9\b",
]
_RAIL_PATTERNS = [
    # Credentials and keys.
    r"(~|\$HOME|/root|/home/[^/\s]+)/\.(ssh|aws|gnupg|netrc|docker/config\.json)",
    r"/etc/(shadow|sudoers)",
    # Environment or secrets sent over the network.
    r"\b(env|printenv|set)\b[^;]*\|\s*(curl|wget|nc|ncat|socat)\b",
    r"\b(nc|ncat|socat)\b[^;]*\s-e\s",
    # Persistence and weakened defences.
    r"(~|\$HOME)/\.(bashrc|profile|zshrc|bash_profile)\b[^;]*(>>|>)|(>>|>)\s*(~|\$HOME)/\.(bashrc|profile|zshrc)",
    r"\bcrontab\s+-",
    r"\b(setenforce\s+0|ufw\s+disable|iptables\s+-F)\b",
]


def _compiled(patterns: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(pattern) for pattern in patterns]


_HIGH = _compiled(_HIGH_PATTERNS)
_MEDIUM = _compiled(_MEDIUM_PATTERNS)
_RAILS = _compiled(_RAIL_PATTERNS)


class PatternSecurityAnalyzer(SecurityAnalyzerBase):
    """HIGH for destructive commands (wiping `/`, piping a download into a shell, ...),
    MEDIUM for commands that change the system or reach the network, LOW otherwise."""

    kind: Literal["PatternSecurityAnalyzer"] = "PatternSecurityAnalyzer"

    def security_risk(self, action: ActionEvent) -> SecurityRisk:
        text = call_text(action)
        if any(pattern.search(text) for pattern in _HIGH):
            return SecurityRisk.HIGH
        if any(pattern.search(text) for pattern in _MEDIUM):
            return SecurityRisk.MEDIUM
        return SecurityRisk.LOW


class PolicyRailSecurityAnalyzer(SecurityAnalyzerBase):
    """HIGH for what no agent should do unasked: read credentials, send the environment
    over the network, make itself persistent or switch defences off. UNKNOWN otherwise (a
    rail only speaks when it is crossed)."""

    kind: Literal["PolicyRailSecurityAnalyzer"] = "PolicyRailSecurityAnalyzer"

    def security_risk(self, action: ActionEvent) -> SecurityRisk:
        text = call_text(action)
        if any(pattern.search(text) for pattern in _RAILS):
            return SecurityRisk.HIGH
        return SecurityRisk.UNKNOWN
