"""An empty page 1 without error 482 is a wrong answer, not "no ICO matches".

Spec 4.2 answers a query that matches nothing with error 482. An HTTP 200 with
``"error": null`` and no ICO (a glitch of the service, a proxy's cached placeholder) was
read as no match: with ``--allow-empty`` a cron export wrote a complete empty day, and
``changes()`` then called every ICO of the day before removed, and new again the next day.
It is refused by the gate as any wrong page 1 is (asked twice, then ``BadResponse``),
and an export writes nothing.
"""

from __future__ import annotations

import pytest
from hostile import LIST, HostileServer, json_reply

import icoframes
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.cli import EXIT_ERROR, main
from icoframes.errors import BadResponse

EMPTY_200 = json_reply({"error": None, "total_icos": 0, "total_pages": 0, "current_page": 1,
                        "data": []})
NO_MATCH = json_reply({"error": 482, "message": "Projects not found", "data": []})


def test_a_load_refuses_an_empty_page_1_without_error_482(configure, quick_retries):
    with HostileServer({LIST: EMPTY_200}) as srv:
        configure(srv)
        with pytest.raises(BadResponse, match=r"page 1 is empty with no error.*error 482"):
            icoframes.load_icos(status="ongoing", progress=False)
        assert srv.hits[LIST] == ANSWERS_REFUSED


def test_error_482_is_still_no_match(configure, quick_retries):
    with HostileServer({LIST: NO_MATCH}) as srv:
        configure(srv)
        with pytest.warns(icoframes.IcoframesWarning, match="no ICO matches"):
            icos = icoframes.load_icos(status="ongoing", progress=False)
        assert len(icos) == 0 and icos.attrs["icoframes"]["complete"]
        assert srv.hits[LIST] == 1


def test_an_export_allowing_empty_writes_no_day_from_an_empty_page_1(configure, quick_retries,
                                                                     tmp_path):
    out = tmp_path / "out"
    with HostileServer({LIST: EMPTY_200}) as srv:
        configure(srv)
        assert main(["export", "--out", str(out), "--status", "ongoing", "--snapshot",
                     "--allow-empty"]) == EXIT_ERROR
    assert not list(out.glob("snapshot_date=*"))
