"""``PostLedger``: the ledger (``run.Ledger``) of an alert's posts, so that the steps
that carry a schedule's runs (``run.send``, ``run.finish``, ``run.renew``) carry posts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from toolkit.models import Summary
from toolkit.requests import SummaryRequest
from toolkit.store.base import PostStore
from toolkit.store.schedule_rows import ResultRecord, ResultState, RunStatus


class PostLedger:
    """A ``run.Ledger`` over an alert's posts, so that they are carried by the steps
    that carry a schedule's runs."""

    def __init__(self, store: PostStore) -> None:
        self.store = store

    def update_run(
        self,
        run_id: int,
        *,
        owner: str,
        lease_until: datetime,
        status: RunStatus | None = None,
        attempts: int | None = None,
        digest: str | None = None,
        error: str | None = None,
        finished_at: datetime | None = None,
    ) -> bool:
        """``AlertStore.update_post`` (a post has no digest nor tries of its own)."""
        return self.store.update_post(
            run_id,
            owner=owner,
            lease_until=lease_until,
            status=status,
            error=error,
            finished_at=finished_at,
        )

    def set_result(
        self,
        run_id: int,
        destination: int,
        *,
        state: ResultState,
        attempts: int,
        detail: str | None,
        now: datetime,
    ) -> None:
        """``AlertStore.set_post_result``."""
        self.store.set_post_result(
            run_id, destination, state=state, attempts=attempts, detail=detail, now=now
        )

    def results(self, run_ids: Sequence[int]) -> list[ResultRecord]:
        """``AlertStore.post_results``."""
        return self.store.post_results(run_ids)


def no_digest(_request: SummaryRequest) -> Summary:
    """The summary verb of a ``RunContext`` that carries posts: never called."""
    raise AssertionError("an alert writes no digest")
