"""Goal loops on a live conversation: the driver (`driver.py`) and what it needs (`host.py`),
which LLM judges (`judges.py`), and what a server restart means for a goal (`restart.py`).

This layer knows nothing of HTTP or of how conversations are stored: it depends only on the
`GoalHost` protocol, the SDK's `GoalController` and the server's errors.
"""
