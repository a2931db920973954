"""Model access through litellm (the only package that imports it)."""
