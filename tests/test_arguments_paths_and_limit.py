"""The last arguments read by a rule of their own, refused in words of their own (2026-11-27).

Left last session: ``QuotaLedger(limit=)`` kept its own integer test (``np.int64(1)``
refused, ``2**63`` taken, then an OverflowError at the first request); ``read_export`` and
``read_snapshots`` of a file, a FIFO or a path under a file said "no export folder at ..."
(a FileNotFoundError, as if nothing were there) after looking for a swap to wait for;
``cache_dir`` refusals appended the OS's text ("not writable (Not a directory)") or were
Python's own (``~nosuchuser``: a bare RuntimeError; a NUL: a ValueError at each load).
Requests are counted at a server on 127.0.0.1.
"""

from __future__ import annotations

import numpy as np
import pytest
from hostile import LIST, HostileServer, paged_list

from icoframes.api.client import Client, RetryPolicy
from icoframes.errors import InvalidParameter, QuotaExceeded
from icoframes.fetch.stops import Booking
from icoframes.numerals import INT64_MAX
from icoframes.quoting import quoted
from icoframes.store.ledger import QuotaLedger

# --- QuotaLedger(limit=): numerals.as_integer, as every integer argument ----------------------


def test_a_ledger_limit_is_any_integer_and_caps_what_a_client_sends(tmp_path, one_ledger_day):
    with HostileServer({LIST: paged_list(3)}) as srv:
        ledger = QuotaLedger(tmp_path, "pk", limit=np.int64(1), service=srv.base_url)
        with Client(**srv.settings(), retry=RetryPolicy(max_attempts=1), budget=Booking(ledger)) as c:
            assert [item["id"] for item in c.list_page(status="past")["data"]] == [1, 2, 3]
            with pytest.raises(QuotaExceeded, match=r"daily_quota setting \(1 requests\)"):
                c.list_page(status="past")
        assert srv.hits[LIST] == 1  # the cap held before sending
    assert type(ledger.limit) is int and ledger.state().sent == 1


@pytest.mark.parametrize(("limit", "hint"), [
    (True, ""), (2.5, ""), (2.0, "; did you mean 2?"), ("3", "; did you mean 3?"), (-1, ""),
    (INT64_MAX + 1, ""), (np.timedelta64(5), ""), (None, ""),
])
def test_a_ledger_limit_is_refused_naming_it_once(tmp_path, limit, hint):
    with pytest.raises(InvalidParameter) as caught:
        QuotaLedger(tmp_path, "pk", limit=limit, service="http://127.0.0.1:9")
    assert str(caught.value) == (f"limit must be a whole number from 0 to {INT64_MAX}, got "
                                 f"{quoted(limit)}{hint}")
    assert list(tmp_path.iterdir()) == []  # refused before the ledger's folder was made
