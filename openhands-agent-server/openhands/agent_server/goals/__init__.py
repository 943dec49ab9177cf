"""Goal loops driven in the background on a live conversation."""
