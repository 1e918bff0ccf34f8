"""A list summary's ``raised`` that is not read (``"$512.500"``: 512.5, or 512,500? a summary
has no other amount to tell) is keyed by its text, so a change to it re-fetches the profile.

Failed on 12e427d: both texts read as missing, the summary keys were equal, and
``load_icos(refresh=True)`` kept the old profile (its ``raised`` stale).
"""

from __future__ import annotations

import threading

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply

import icoframes
from icoframes.parse.lists import list_frame, summary_keys
from icoframes.parse.problems import Problems


class Service:
    """Three past ICOs; id 1's summary and profile show ``raised``, which a test changes."""

    def __init__(self, raised: str):
        self.raised = raised
        self.profiles = 0
        self.lock = threading.Lock()

    def page(self, h):
        items = [{"id": i, "main": {"name": f"ICO {i}", "ico_score": "3.0"},
                  "finance": {"raised": self.raised if i == 1 else "1000"}} for i in (1, 2, 3)]
        json_reply({"total_icos": 3, "current_page": 1, "error": None, "total_pages": 1,
                    "data": items})(h)

    def profile(self, h):
        asked = int(h.request_json()["id"])
        with self.lock:
            self.profiles += 1
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"ICO {asked}"},
                    "finance": {"raised": self.raised if asked == 1 else "1000",
                                "hard_cap": "1.500.000", "caps_unit": "USD"}}})(h)


@pytest.mark.parametrize(("before", "after", "raised"), [
    ("$512.500", "$612.500", (512500.0, 612500.0)),  # not read in the summary: its text
    ("$512,500", "$612,500", (512.5, 612.5)),  # read (German profile: 1.5 per "1,500")
])
def test_a_changed_summary_raised_refetches_its_profile(tmp_path, before, after, raised):
    state = Service(before)
    with HostileServer({LIST: state.page, PROFILE: state.profile}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache", max_workers=1)
        try:
            first = icoframes.load_icos(status="past", progress=False)
            assert state.profiles == 3
            again = icoframes.load_icos(status="past", refresh=True, progress=False)
            assert state.profiles == 3  # nothing changed: nothing fetched again
            state.raised = after
            second = icoframes.load_icos(status="past", refresh=True, progress=False)
            assert state.profiles == 4  # id 1's profile only
            # from the cached list (its problems key the text): its copies are not stale
            warm = icoframes.load_icos(status="past", progress=False)
            assert state.profiles == 4
            offline = icoframes.load_icos(status="past", offline=True, progress=False)
        finally:
            icoframes.reset_configuration()
    assert first.set_index("id").loc[1, "raised"] == raised[0] == again.set_index("id").loc[
        1, "raised"]
    assert second.set_index("id").loc[1, "raised"] == raised[1]
    assert warm.set_index("id").loc[1, "raised"] == raised[1]
    assert offline.set_index("id").loc[1, "raised"] == raised[1] and len(offline) == 3


def test_summary_keys_of_values_read_are_as_they_were():
    log = Problems()
    frame = list_frame([{"id": 1, "main": {"name": "X", "ico_score": "3"},
                         "finance": {"raised": "$5M"}},
                        {"id": 2, "main": {"name": "Y"}, "finance": {"raised": ""}},
                        {"id": 3, "main": {"name": "Z"}, "finance": {"raised": "$512.500"}}],
                       status="past", problems=log)
    assert summary_keys(frame, log.records()) == [
        '["X", 3.0, 5000000.0]', '["Y", null, null]', '["Z", null, null, "$512.500"]']
