"""A stand-in for the outside `tom-swe` package (not on this machine): records what the
executor hands it and answers as the real Tom agent's interface does."""
