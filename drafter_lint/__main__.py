import sys

from drafter_lint.entry import main

sys.exit(main())
