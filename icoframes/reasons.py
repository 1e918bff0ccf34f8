"""Why a value is a row of ``problems``: the declared reason codes, one per kind of loss.

Every row of the ``problems`` table (:data:`icoframes.schema.PROBLEMS`) says in
its ``reason`` column why the parser did not turn the raw value into data, as
one of the short, stable codes of :data:`REASONS` (code -> meaning). The
parser gives a reason wherever it reports a value
(:meth:`icoframes.parse.problems.Problems.add` requires one, typed
:data:`Reason`, so mypy checks every code), and the data dictionary
(``make docs``) prints this table, so the codes and their documentation
cannot drift. Problems recorded before reasons existed (list pages kept in
the cache, or an export, by icoframes 0.1.0) have no reason: ``reason`` is
missing there.

Filter on them like any text column::

    tables.problems[tables.problems["reason"] == "unit_conflict"]
    tables.problems.groupby(["column", "reason"]).size()
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, TypeAlias, get_args

__all__ = ["REASONS", "Reason", "is_reason"]

#: A reason code; mypy refuses a code that is not declared.
Reason: TypeAlias = Literal[
    "wrong_shape", "absent_section", "wrong_type", "unreadable_id", "duplicate_id", "no_name",
    "surrogate",
    "unreadable_number", "grouping", "ambiguous_separator", "range", "vague", "percent",
    "negative", "infinite", "underflow", "out_of_bounds", "fraction", "share_total",
    "unit_conflict",
    "unreadable_unit", "unknown_unit", "unreadable_price",
    "unreadable_date", "impossible_date", "date_out_of_range", "no_year", "short_year",
    "us_order", "ambiguous_order",
    "duration", "unknown_flag", "qualified_flag",
    "doubtful_split",
]

#: Every reason code and what it means, in the order the data dictionary lists them.
REASONS: Final[Mapping[Reason, str]] = {
    # shapes and types
    "wrong_shape": "a record, section, person, map or filter list that is not an object or "
                   "list (``\"main\": \"oops\"``, a team member written as a string): "
                   "read as empty",
    "absent_section": "a section of a profile the service's answer left out (no ``finance`` "
                      "key; spec 2.3 has eight: main, links, finance, dates, additional, "
                      "roadmap, team, advisors): its columns are missing, ``value`` too. A "
                      "load reports it; an answer holding none of them is refused (the "
                      "item's failure)",
    "wrong_type": "a JSON type the column cannot hold: ``true`` as an amount or a name, a "
                  "list as a date, a map as a list item",
    "unreadable_id": "an id that is not a whole number within int64, or not above 0 for an "
                     "ICO (``\"x\"``, ``0``, ``\"99999999999999999999\"``, no id): the "
                     "record is left out",
    "duplicate_id": "a profile or list item whose id comes again later in the same input "
                    "with other content: the last copy is kept, this one (the row's value, "
                    "as JSON) is left out",
    "no_name": "a filter value without a name: it names no filter value and is left out",
    "surrogate": "text with a lone surrogate (``\"\\ud800\"``), which no file can hold: kept "
                 "with U+FFFD in its place",
    # numbers and amounts
    "unreadable_number": "text that is no number in any form read (``\"lots\"``, "
                         "``\"500 tokens\"``, an exchange outside a price)",
    "grouping": "digit groups that are no thousands and no decimals (``\"1,500,5\"``, "
                "``\"2 5\"``)",
    "ambiguous_separator": "one dot and three digits (``\"12.500\"``, ``\"$12.500\"``, "
                           "``\"1 ETH = 1.000 AQB\"``) in an amount whose ICO writes no other "
                           "amount that shows whether dots group thousands (``\"1.500.000\"``, "
                           "``\"1.500,50\"``) or commas do (``\"1,500,000\"``, "
                           "``\"1,000.5\"``), or shows both: 12.5, or 12,500? Never guessed; also "
                           "``\"1,500\"`` where the ICO shows both or a decimal comma "
                           "(``\"0,05\"``) without dots grouping, or where the only amount "
                           "showing dots grouping or a decimal comma is refused: 1,500, or "
                           "1.5? And a scale word after a dot group read as thousands "
                           "(``\"1.500M\"``), and digits grouped by spaces or apostrophes "
                           "before one mark and three digits (``\"1 500.000\"``, "
                           "``\"1'500,000\"``) that nothing in the ICO reads",
    "range": "a range, stages or several amounts in one value (``\"100-200\"``, "
             "``\"1 ETH = 3640-3367 IML\"``): never collapsed to one number",
    "vague": "an approximate or qualified amount (``\"~3,500,000\"``, ``\"> 100\"``, "
             "``\"1PSTS = 20¢ (25¢ AFTER SEPT 18)\"``), or share (``\"25% (vested)\"``, "
             "``\"25% vested\"``)",
    "percent": "a ``%`` or a percent word in a column that is not a share (``\"60%\"``, "
               "``\"60 percent\"`` as a hard cap)",
    "negative": "a negative amount, share or ICO score (``\"-5000\"`` as a hard cap)",
    "infinite": "an infinite number, or one too big for a float (``1e999``, ``\"inf\"``, an "
                "integer of over 308 digits)",
    "underflow": "a number written as text that is not 0 but too small for a float "
                 "(``\"1e-400\"``, a price ``\"1e-400 ETH = 1 AQB\"``, ``\"1e-323\"`` cents), "
                 "which a float would make 0: never read as 0 (a JSON number ``1e-400`` "
                 "arrives as 0)",
    "out_of_bounds": "a share above 100 (``\"150%\"`` of the tokens), an ICO score above 10 "
                     "(the scale the list filters by: spec 4.2)",
    "fraction": "a distribution written as fractions of 1 (``0.6``, ``0.25``, ``0.15``: two "
                "or more shares of one ICO, none with a ``%``, each between 0 and 1, summing "
                "to 1 +- 0.01), which the column (percent, 0-100) would read as 1% in all: "
                "every share of that ICO is missing, never multiplied by 100",
    "share_total": "a share of a distribution whose shares sum to over 100% (+1 for "
                   "rounding; a bare share refused as over 100 counted too: ``\"90%\"`` three "
                   "times, or ``25``, ``60``, ``115``, tokens?): no shares of one whole, and "
                   "which is wrong cannot be told: every share of that ICO is missing",
    "unit_conflict": "a unit written in the value that its unit column (or the value's other "
                     "end) contradicts (``\"$2,000,000\"`` with caps_unit ETH, ``\"$5 EUR\"``)",
    "unreadable_unit": "a unit column that names no unit read (``\"Singapore dollars\"``, "
                       "``\"ETH, BTC\"``, ``\"USD/ETH\"``, ``\"mln\"``): a row of the unit "
                       "column holds its text, and each amount of its group that writes no "
                       "unit, or a dollar of no country (``\"$3\"``, ``\"3 dollars\"``: "
                       "the column's dollar?), is missing, a row with this reason too",
    "unknown_unit": "a word beside a number that is no known currency or token code "
                    "(``UNIT_ALIASES``, ``FIAT_CODES``, ``TOKEN_CODES`` of "
                    "icoframes.vocabulary), nor the ICO's own ticker, nor its unit column's unit "
                    "(``\"Price 0.1\"``, ``\"5M required\"``, ``\"500 BFC\"`` for an ICO "
                    "of XYZ, ``\"1 XYZ = 5 BFC\"``): a unit no one can convert, or no unit "
                    "at all? Never read as a made-up unit; the word is in the row's value",
    "unreadable_price": "an exchange whose token side or currency cannot be told "
                        "(``\"1 BILL = 1 XLM\"`` for an ICO of another ticker), a token "
                        "amount of 0, or a price in the ICO's own token (``\"2500 XYZ\"`` "
                        "for XYZ: tokens per what?)",
    # dates
    "unreadable_date": "text that names no date in any form read (``\"soon\"``, "
                       "a roadmap key ``\"Phase 2\"``)",
    "impossible_date": "a day that does not exist (``\"31.02.2018\"``, "
                       "``\"00.00.0000 00:00:00\"``)",
    "date_out_of_range": "a year outside 1990-2100 (``\"01.01.2263 00:00:00\"``)",
    "no_year": "a day or month without a year (``\"20 Sep\"``, ``\"since 18 Sep\"``)",
    "short_year": "a date with a two-digit year (``\"01.03.18\"``): 1 March 2018, or 18 March "
                  "2001 (year first)? Never guessed",
    "us_order": "a month-first date (``\"01.13.2018\"``): day-first is the documented order",
    "ambiguous_order": "a date whose day and month could swap (``\"03.04.2018\"``) in a profile "
                       "that writes a date month-first (a start, end or roadmap key "
                       "``\"01.15.2018\"``), or a slashed start or end date "
                       "(``\"03/04/2018\"``) in one that writes no slashed date day first: "
                       "3 April, or 4 March? Never guessed",
    "duration": "a duration, not a date (``\"19 days\"``)",
    # flags
    "unknown_flag": "a value that is no flag word of the vocabulary (``\"maybe\"``): False",
    "qualified_flag": "a flag word with a qualifier (``\"YES (UNTIL 11 SEP)\"``): read as its "
                      "word, the qualifier is only here",
    # lists
    "doubtful_split": "a list written as one string where a separator may be part of a "
                      "name or an item (``\"Bosnia/Herzegovina\"``, ``\"Saint Vincent and "
                      "Grenadines\"``, ``\"Visa and Mastercard\"`` as accepting, a bracket "
                      "left open): kept as one item, its text here too",
}

if tuple(REASONS) != get_args(Reason):  # pragma: no cover
    raise ImportError("REASONS and Reason declare different codes")


def is_reason(code: object) -> bool:
    """True if ``code`` is a declared reason code.

    Examples
    --------
    >>> is_reason("range"), is_reason("because")
    (True, False)
    """
    return code in REASONS
