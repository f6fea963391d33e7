"""The question host: one orchestrator that keeps save-before-notify in one place, and the
narrow ports the agent, the panel and other surfaces hold instead of the whole host."""
