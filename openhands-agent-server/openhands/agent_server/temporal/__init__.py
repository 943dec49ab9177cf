"""Goals on Temporal: the goal's step machine as a durable workflow driven by stateless workers.

Imported only when OH_GOAL_BACKEND=temporal or by `openhands-goal-worker`: it needs the
`temporalio` extra. The workflow (`workflow.py`) interprets the SDK's `GoalController` with the
workflow's clock; each step is performed by the agent server (`activities.py`: POST /goal/steps
through the SDK's remote client), exactly as the built-in driver performs it.
"""
