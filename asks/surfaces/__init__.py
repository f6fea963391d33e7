"""Non-terminal surfaces on the same host: the web bridge (``web``, ``web_forms``,
``web_page``), headless ``-p`` (``headless``), line mode (``line``, ``line_questions``,
``line_io``, ``line_prompts``; chosen by ``terminal``), hooks on typed events (``hooks``) and
the session listing (``listing``)."""
