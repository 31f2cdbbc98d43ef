"""``mlens`` as a real process whose delivery clock a test moves:
``python tests/clocked_scheduler.py CLOCK_FILE scheduler ...``.

Everything is the real command (the store, its leases, the runner's loop, the Bot API
and webhook adapters over HTTP) but two parts: the runner's clock reads the ISO time in
``CLOCK_FILE`` on every call (the test rewrites it to move time by days at once), and
the digest is ``delivery_fakes.FakeSummaries``'s small one (the summary engines are
tested elsewhere; importing them costs a process seconds).
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Any


def main() -> None:
    """Patch the clock and the digest, then run ``mlens`` with the remaining arguments."""
    clock_file = Path(sys.argv[1])

    def clock() -> datetime:
        return datetime.fromisoformat(clock_file.read_text().strip())

    from delivery_fakes import FakeSummaries

    from toolkit.delivery.runner import Runner
    from toolkit.workspace.delivery import Delivery

    real = Delivery.delivery_runner

    def clocked(self: Delivery, **kwargs: Any) -> Runner:
        runner = real(self, **(kwargs | {"clock": clock}))
        runner.ctx.summarize = FakeSummaries()
        return runner

    Delivery.delivery_runner = clocked  # type: ignore[method-assign]
    sys.argv = ["mlens", *sys.argv[2:]]
    from cli import main as mlens

    mlens()


if __name__ == "__main__":
    main()
