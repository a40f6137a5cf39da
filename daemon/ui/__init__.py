"""What the OLED shows: screens drawn from the box's events."""
