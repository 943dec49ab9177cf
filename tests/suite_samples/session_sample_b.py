"""Not a module of the suite: the twin of `session_sample_a.py` (the same tests, in a second
module that uses the same session fixture), for tests/test_suite_marks.py."""

from session_sample_a import test_records_its_worker

__all__ = ["test_records_its_worker"]
