"""Reusable widgets of the settings drawer."""
