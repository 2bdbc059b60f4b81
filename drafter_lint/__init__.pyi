from drafter_lint.api import DrafterLintError as DrafterLintError
from drafter_lint.api import Finding as Finding
from drafter_lint.api import Fix as Fix
from drafter_lint.api import Report as Report
from drafter_lint.api import Result as Result
from drafter_lint.api import Skipped as Skipped
from drafter_lint.api import WouldNotServe as WouldNotServe
from drafter_lint.api import assert_serves as assert_serves
from drafter_lint.api import check as check

__version__: str
__all__: list[str]
