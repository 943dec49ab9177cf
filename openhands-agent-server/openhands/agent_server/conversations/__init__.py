"""Conversations: the service that holds them all, its REST routes and models."""
