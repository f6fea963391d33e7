"""``python -m asks``: same as the ``asks`` console script."""

from asks.cli import main

raise SystemExit(main())
