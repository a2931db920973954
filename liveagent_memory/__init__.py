"""LiveAgent Memory: long-term memory for AI agents that a person can see, review and correct."""

__version__ = "0.1.0"
