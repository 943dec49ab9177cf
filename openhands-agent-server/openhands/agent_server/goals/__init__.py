"""A conversation's goal on the server: the driver (`driver.py`) and what it needs (`host.py`),
how each step is performed (`steps.py`), runs interpreted elsewhere (`remote.py`, `backend.py`)
and which LLM judges (`judges.py`).

This layer knows nothing of HTTP or of how conversations are stored: it depends only on the
`GoalHost` protocol, the SDK's `GoalController` (every rule) and the server's errors.
"""
