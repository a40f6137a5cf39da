"""Drivers for the box's physical edges; they import nothing from `daemon`."""
