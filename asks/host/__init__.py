"""The question host: the :class:`~asks.host.host.QuestionHost` facade an embedder holds, the
ports each consumer holds instead, and the private shared state behind them that keeps
save-before-notify in one place (:mod:`asks.host.state`, :mod:`asks.host.announce`)."""
