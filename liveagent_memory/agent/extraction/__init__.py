"""Post-turn extraction: gates, context, the SubmitMemoryPlan protocol, engine and controller."""
