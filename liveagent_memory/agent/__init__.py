"""Agent integration: the Memory Index, the MemoryManager tool and post-turn extraction."""
