"""talkbox: an offline voice assistant appliance (the service side)."""

__version__ = "0.1.0"
