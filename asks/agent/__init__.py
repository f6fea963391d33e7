"""The agent loop, its Model/Tool protocols, model providers, built-in tools, the transcript
model and foreign (permission) prompts."""
