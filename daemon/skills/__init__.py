"""Everyday skills answered without the language model."""
