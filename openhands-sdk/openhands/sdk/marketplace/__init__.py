"""Marketplaces: a folder's `.plugin/marketplace.json` listing plugins and skills to install.

```json
{"name": "team-tools", "owner": {"name": "DevTools"},
 "plugins": [{"name": "formatter", "source": "./plugins/formatter"}],
 "skills": [{"name": "github", "source": "https://github.com/o/r/blob/main/skills/github"}]}
```

Install its skills with `openhands.sdk.skills.install_skills_from_marketplace(folder)`, a
plugin with `openhands.sdk.plugin.install_plugin(...)`. See docs/skills.md.
"""

from openhands.sdk.marketplace.types import (
    MARKETPLACE_MANIFEST_DIRS,
    MARKETPLACE_MANIFEST_FILE,
    Marketplace,
    MarketplaceEntry,
    MarketplaceError,
    MarketplaceMetadata,
    MarketplaceNotFoundError,
    MarketplaceOwner,
    MarketplacePluginEntry,
    MarketplacePluginSource,
)

__all__ = [
    "MARKETPLACE_MANIFEST_DIRS",
    "MARKETPLACE_MANIFEST_FILE",
    "Marketplace",
    "MarketplaceEntry",
    "MarketplaceError",
    "MarketplaceMetadata",
    "MarketplaceNotFoundError",
    "MarketplaceOwner",
    "MarketplacePluginEntry",
    "MarketplacePluginSource",
]
