"""The services layer: conversations on this server, below the HTTP layer (`api/`).

registry.py       ConversationRegistry: every conversation; opens one when a request needs it
catalog.py        Catalog: listing order and the summaries of conversations not open
storage.py        the disk work on one conversation: summaries, open, create, delete
live.py           LiveConversation (the design's EventService): one open conversation
event_queries.py  reading an event log for clients: one event, counts, pages
pubsub.py         waking a conversation's WebSockets when its log grows
credentials.py    Credentials: where the LLMs of a conversation get their keys (a seam)

It uses the goal layer (`goals/`) and the SDK, never the HTTP layer.
"""
