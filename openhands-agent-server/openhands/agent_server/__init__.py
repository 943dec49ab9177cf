"""The agent server: conversations over REST and WebSocket, with background goal loops."""
