"""Goals on Temporal: the goal loop as a durable workflow driven by stateless workers.

Imported only when OH_GOAL_BACKEND=temporal or by `openhands-goal-worker`: it needs the
`temporalio` extra. The workflow (`workflow.py`) takes every decision from the SDK's
`GoalController` with the workflow's clock; its I/O are activities (`activities.py`) that talk
to the agent server over HTTP.
"""
