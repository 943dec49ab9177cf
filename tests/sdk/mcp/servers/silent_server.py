"""A "server" that starts but never answers: it reads its stdin and says nothing."""

import sys

for _line in sys.stdin:
    pass
