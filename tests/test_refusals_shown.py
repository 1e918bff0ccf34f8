"""What a refusal shows of the value it refuses (REVC L4, L5): an address's password, query
and fragment hidden (a token may be in them)."""

from __future__ import annotations

import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_USAGE, main
from icoframes.errors import ConfigError, InvalidParameter
from icoframes.quoting import may_be_key
from icoframes.tables import Tables


@pytest.mark.parametrize(("url", "shown"), [
    ("https://user:pw-SECRET@api.example.com/?api_token=tok-SECRET",
     "'https://<hidden>@api.example.com/?<hidden>'"),
    ("https://api.example.com/v1?api_token=tok-SECRET#frag-SECRET",
     "'https://api.example.com/v1?<hidden>#<hidden>'"),
    ("http://127.0.0.1:8000/#SECRET", "'http://127.0.0.1:8000/#<hidden>'"),
    # an empty query or fragment: refused too (was taken, its first request refused: 481)
    ("http://127.0.0.1:8000/?", "'http://127.0.0.1:8000/?'"),  # nothing to hide: as given
    ("http://127.0.0.1:8000/#", "'http://127.0.0.1:8000/#'"),
    ("http://127.0.0.1:8000?#", "'http://127.0.0.1:8000?#'"),
])
def test_a_base_url_refusal_hides_its_query_and_fragment(monkeypatch, url, shown):
    why = "has a query or a fragment ('?', '#'): the API's paths go after it"
    try:
        with pytest.raises(InvalidParameter) as raised:
            icoframes.configure(base_url=url, public_key="K", private_key="S")
        assert str(raised.value) == f"invalid base_url={shown}: {why}"
        monkeypatch.setenv("ICOFRAMES_BASE_URL", url)
        with pytest.raises(ConfigError) as env:
            icoframes.get_settings()
    finally:
        icoframes.reset_configuration()
    assert f"ICOFRAMES_BASE_URL={shown}: {why}" in str(env.value)
    assert "SECRET" not in str(raised.value) + str(env.value)


# -- REVC L5: the name meant, and values no key can be shown ----------------------------


@pytest.mark.parametrize(("typed", "said"), [
    ("quota", "unknown setting 'quota'; did you mean 'daily_quota'?"),  # was 'quota_reset'
    ("Quota", "unknown setting 'Quota'; did you mean 'daily_quota'?"),
    ("secret", "unknown setting 'secret'; did you mean 'private_key'?"),
    ("dailyquota", "unknown setting 'dailyquota'; did you mean 'daily_quota'?"),  # as before
])
def test_configure_names_the_setting_a_word_means(typed, said):
    with pytest.raises(InvalidParameter) as raised:
        icoframes.configure(**{typed: 100})
    assert str(raised.value) == said


@pytest.mark.parametrize(("typed", "meant"), [
    ("kyc", "'investor_kyc' or 'ico_kyc_passed'"), ("accepting", "'accepted_currencies'"),
    ("currency", "'accepted_currencies'"), ("country", "'location'"),
    ("Country", "'location'"), ("whitelist", "'investor_wl'"),
    ("restricted_areas", "'exclude_areas'"), ("airdrop", "'airdrop_program'"),
])
def test_a_loader_names_the_list_parameter_a_word_means(typed, meant):
    # checked before any setting: no sandbox, no request
    with pytest.raises(InvalidParameter) as raised:
        icoframes.load_icos(**{typed: True})
    assert str(raised.value) == (f"{typed} is not a list parameter of spec 4.2; "
                                 f"did you mean {meant}?")


def test_refresh_as_the_command_line_words_it_names_the_loaders_value(tmp_path):
    with sandbox.serve(n_icos=10, seed=1) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            for word, meant in (("changed", "True (re-page, re-fetch what changed: the CLI's "
                                            "--refresh changed)"),
                                ("None ", "False (the CLI's --refresh none)")):
                with pytest.raises(InvalidParameter) as raised:
                    icoframes.load_icos(refresh=word, progress=False)
                assert str(raised.value) == (f"refresh must be False, True or 'all', got "
                                             f"{word!r}; did you mean {meant}?")
        finally:
            icoframes.reset_configuration()
        assert sb.stats.requests.total() == 0


def test_to_usd_names_the_date_column_and_the_quote_meant():
    icos = Tables.empty().icos
    rates = pd.DataFrame({"ETH-USD": [2000.0]}, index=pd.to_datetime(["2021-01-01"]))
    for date in ("end", "End_Datetime", " END"):
        with pytest.raises(InvalidParameter) as raised:
            icoframes.to_usd(icos, rates, date=date)
        assert str(raised.value) == (f"icos lacks columns [{date!r}]; "
                                     "did you mean 'end_datetime'?")
    with pytest.raises(InvalidParameter) as raised:
        icoframes.to_usd(icos, rates, quote="USD per unit")
    assert str(raised.value) == ("quote must be one of 'usd_per_unit', 'units_per_usd' or "
                                 "None, got 'USD per unit'; did you mean 'usd_per_unit'?")


@pytest.mark.parametrize(("argv", "said"), [
    (["--max-age", "1 month"], "argument --max-age: must be a duration such as 12h or 30D, or a "
                               "finite number of seconds >= 0 that a timedelta holds (below "
                               "8.64e+13), got '1 month' (a month has no fixed length); did you "
                               "mean '30D'?"),
    (["--max-age", "90 mins"], "got '90 mins'; did you mean '90min'?"),
    (["--profile-max-age", "past=30d"],  # shown: no key has that form
     "got 'past=30d'; the option is one age for every status: did you mean '30d'?"),
    (["--max-age", "sandbox-private"], "got a text of 15 characters (not shown: it may be a "
                                       "key)"),
])
def test_the_command_line_says_what_an_age_it_refuses_meant(capsys, argv, said):
    assert main(["export", "--out", "x", *argv]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert said in err
    assert "sandbox-private" not in err


@pytest.mark.parametrize(("setting", "value", "said"), [
    ("quota_reset", "06:00:00", "invalid quota_reset='06:00:00': must be a UTC time of day"),
    ("base_url", "127.0.0.1:8000", "invalid base_url='127.0.0.1:8000': must start with "
                                   "http:// or https://; did you mean 'http://127.0.0.1:8000'?"),
    ("base_url", "127.0.0.1", "invalid base_url='127.0.0.1': must start with http:// or "
                             "https://; did you mean 'http://127.0.0.1'?"),
    # may be keys: still not shown, nor hinted at
    ("base_url", "0123abcd", "invalid base_url=a text of 8 characters (not shown: it may be "
                             "a key): must start with http:// or https://"),
    ("base_url", "localhost:8000", "invalid base_url=a text of 14 characters (not shown: it "
                                   "may be a key): must start with http:// or https://"),
])
def test_a_value_without_a_letter_is_shown_as_no_key_is_written(setting, value, said):
    with pytest.raises(InvalidParameter) as raised:
        icoframes.configure(**{setting: value})
    message = str(raised.value)
    assert message.startswith(said)
    if "not shown" in said:
        assert value not in message
    assert may_be_key(value) is ("not shown" in said)
