"""Events: one service per conversation, its REST routes, pub/sub and WebSocket."""
