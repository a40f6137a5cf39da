"""The box itself: the composition root that builds every part from the config and runs it."""
