"""Small helpers shared by the SDK, its tools and the server (one copy each)."""
