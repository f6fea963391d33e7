"""Non-terminal surfaces on the same host: the web bridge and headless ``-p`` mode."""
