"""Measuring the box's hearing: spoken questions made at run time, the conditions they arrive in, the scores."""
