import sys

from drafter_lint.cli import main

sys.exit(main())
