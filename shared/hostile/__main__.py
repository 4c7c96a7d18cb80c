"""`python -m hostile [--family NAME] [--list]`: run the hostile-input suite."""

from hostile.runner import main

raise SystemExit(main())
