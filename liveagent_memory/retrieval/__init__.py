"""Task-aware memory: episodes, task types, context within a token budget, embeddings."""
