"""A copy whose field was read with a problem decides no filter of a list holding it, so it is
not out of date by that list: only a copy whose stored value fails the filter is fetched again.
Over loopback: a list that holds every ICO whatever its filters, and profiles as written here.
"""

from __future__ import annotations

from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes

#: kyc per id: 1 not readable ("maybe": a problem recorded), 2 yes, 3 no.
KYC = {1: "maybe", 2: True, 3: False}


def test_only_the_copy_whose_read_value_fails_a_paged_list_is_fetched_again(configure):
    asked: list[int] = []

    def profile(h):
        ico = int(h.request_json()["id"])
        asked.append(ico)
        json_reply({"error": None, "data": {  # the summary the list shows (hostile.list_item)
            "id": ico, "main": {"name": f"ICO {ico}", "ico_score": "3.0", "kyc": KYC[ico]},
            "finance": {"raised": "1000"}}})(h)

    with HostileServer({LIST: paged_list(3), PROFILE: profile}) as srv:
        configure(srv, max_workers=1)
        cached = icoframes.load_tables(status="past", progress=False)
        assert sorted(asked) == [1, 2, 3]
        unread = cached.problems[cached.problems["column"] == "kyc"]["ico_id"].tolist()
        assert unread == [1]  # the premise: id 1's kyc was not read
        asked.clear()
        # the service lists all three under kyc=yes: id 3's copy says no (out of date), id
        # 1's says nothing; id 2's passes
        loaded = icoframes.load_icos(status="past", investor_kyc="yes", refresh=True,
                                     progress=False)
        assert asked == [3]
        assert loaded["id"].tolist() == [1, 2, 3]
