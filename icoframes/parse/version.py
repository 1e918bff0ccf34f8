"""The parser's version: ``PARSER_VERSION`` names the reading rules of :mod:`icoframes.parse`.

Read as ``icoframes.parse.rules.PARSER_VERSION`` (the cache's derived tables are fingerprinted
with it); kept here with what each version reads differently, so that the rules module holds
the rules.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PARSER_VERSION"]

#: Bump when a rule changes meaning (the source hash catches edits too).
#: 6: problems are one row per value, with the ICO's id.
#: 7: the declared vocabulary (icoframes.vocabulary): flag words, none words, aliases.
#: 8: numbers as people write them, prices in every form, units as tickers, roadmap
#:    precision, dates within 1990-2100 (issue 20).
#: 9: every problem has its reason (problems.reason, icoframes.reasons).
#: 10: a final dot after an amount with a currency is read ("$2,000,000." was unreadable).
#:     An exchange whose money side names no currency ("1 ABC = 500" for ABC) is
#:     unreadable_price (it was read with the unit "").
#: 11: a multiplier glued to a currency is read ("5kUSD" is 5,000 USD; it was 5 in "KUSD").
#: 12: a JSON integer too big for a float is an infinite amount (tidy raised OverflowError).
#: 13: a multiplier in capitals glued to a currency symbol keeps it ("5M$" is 5,000,000 USD;
#:     it was 5,000,000 in the unit column's unit, "5M€" unreadable).
#: 14: "5KΞ" too: Ξ, a symbol, is a letter to str.isalpha (it stayed unreadable in 13).
#: 15: in an exchange, a multiplier glued to the ICO's own ticker multiplies it ("$1 = 5kKIN"
#:     for KIN was 0.2 USD), and that ticker is never a glued multiplier ("1 kUSD" for KUSD).
#: 16: amounts too ("1,000,000 kUSD" for KUSD was 1e9 USD); a capital multiplier glued to
#:     the own ticker multiplied it ("$1 = 5KKIN" for KIN was 0.2 USD), a lone "m" is
#:     unreadable ("2 mKIN = $1"); a unit column "kUSD" is thousands of USD (was a token
#:     KUSD); "5 USD." and "5MUSD$" are read (were unreadable).
#: 17: a multiplier in capitals glued to the own ticker is unreadable, never a guess ("1 MOD =
#:     0.5 USD" for OD was 5e-7 USD in 16, "5 MANA" for ANA 5 million ANA); a lowercase one
#:     multiplies it ("$1 = 5kKIN" for KIN).
#: 18: "mln" (and "Mln"), with or without a dot, is a million ("$5 mln." was unit_conflict,
#:     "5 mln" 5 in "MLN"; "5 MLN" stays the ticker). In an exchange a currency may end in a
#:     symbol, "1 ABC = 0.1 USD$" is 0.1 USD (it was unreadable_price). "min 5000" for an
#:     ICO of IN is vague, as for any ICO (it was unreadable_number: "m" glued to "in").
#: 19: for an ICO whose ticker is MLN, "mln"/"Mln" written last is unreadable ("5 mln" was
#:     5,000,000 with no unit in 18, 5 MLN in 17): 5 million, or 5 MLN? Copies of an id alike
#:     but for NaN objects are no duplicate_id; a Series in a copy no longer raises.
#:     "minimum 5000"/"maximum 5000" are vague (were 5000 in a unit MINIMUM/MAXIMUM).
#: 20: a list page's dropped copy of an id is a duplicate_id; any multiplier word written
#:     last that is the own ticker ("5k" for K) is unreadable, in raised and tokens_for_sale
#:     too; a unit column of a multiplier alone ("mln") is no unit. "5 millions", "5 bln",
#:     "10 cents", "1'000'000" and "$0.1 per token" (a price) are read; "5 mil" is unreadable
#:     (was 5 MIL). tokens_for_sale reads "500,000,000 KIN" for KIN; "$5M" there is a
#:     unit_conflict (was 5e6 tokens). Long hostile values are read in linear time.
#: 21: a unit column of a currency, then an English scale word, scales it ("USD mln", "$ mln",
#:     "USD millions": millions of USD; they were made-up units "USD MLN"); one naming a scale
#:     word of another language ("mil", "lakh", "crore", "kk", "Mrd") or a multiplier word
#:     beside another word ("USD MLN", "XYZ mln") names no unit (was 5 in "MIL" ...).
#:     "0.1 per token" is 0.1 in the unit column's unit (was unreadable_price); "500 tokens."
#:     is 500 tokens (was unreadable). A two-digit year ("01.03.18") is short_year (was
#:     no_year). Digits are ASCII after NFKC: "٣ ETH", an id "٣", "1_000" are unreadable (were
#:     3 ETH, the id 3, 1000).
#: 22: list copies of an id that read as the same row with the same problems ("3.5" and 3.5)
#:     are no duplicate_id.
#: 23: a character NFKC would make a digit ("12²", "①", "⒈5") makes an amount, id or date
#:     unreadable (was 122, 1, 1.5); dates refuse other scripts' digits ("٢٠١٨-03-01" was read)
#:     and read full-width ones, roadmap keys too ("２０１８" was unreadable in 21-22). A
#:     price per token writing no currency needs a currency unit column ("0.1 per token" in
#:     XYZ or TOKENS was 0.1); no scale word scales a price ("USD mln": was 1e6 times); a
#:     value writing a multiplier under a scaling unit column is unreadable ("5 mln" under
#:     "USD mln" was 5e12 USD); "ETH m" names no unit (was millions: milli?). A scale word
#:     beside a currency reads alike in a value and a unit column ("K USD", "5 USD mln",
#:     "$M"); a unit column of a currency and text not understood names no unit ("USD (mln)").
#:     A two-digit year is short_year outside quarters and halves ("1 Mar 18" as a roadmap key
#:     was 2018, "01 Mar 18" as a start no_year); "00.00.00" is impossible_date.
#: 24: a value's scale word obeys prices.scaled_currency ("5 m ETH", "5 B USD" were 5e6 ETH,
#:     5e9 USD); "5e6" under "USD mln" is unreadable (was 5e12); "USDmln" is "USD mln".
#:     A price unit "tokens" or the own ticker names no unit (0.1 was 0.1 TOKENS); "USD¹" none.
#:     A roadmap "Mar '18" is March 2018 (was short_year). An exchange's side obeys them too
#:     ("= 0.1 ETHm" was 0.1 ETHM); "㎡" in a value is unreadable; "¥ m" names no unit.
#: 25: an amount's scale word obeys the rule of units in parse_amount too (raised): "5 BUSD",
#:     "5 B USD", "USD 5B" (were 5e9 USD) and "5KUSD" (5,000 USD: KUSD is a ticker) are
#:     unreadable. A scale word glued after a currency is read only when it is a word, not in
#:     capitals ("USDmln"): "USDk" (was 5,000 USD: the token USDK?) and "USDMLN", "USDMM",
#:     "USDCENTS" (were tickers) name no unit, as "MMUSD", "BNUSD", "MLNUSD" before one (were
#:     tickers); "USDK", "KUSD" (a lone letter) stay tickers. "k.USD" as a unit column
#:     is thousands of USD, as "5 k.USD" is (was no unit). A unit column of a currency and a
#:     footnote mark ("USD*", "USD†") names no unit (was a unit USD*), nor does a price unit
#:     naming tokens ("XYZ tokens", "per token": 0.1 was 0.1 XYZ TOKENS). "MLN$" is no
#:     millions of USD (MLN in capitals is a ticker), and "$1 = 5 MLN" for XYZ is
#:     unreadable_price (5 million XYZ, or 5 MLN? was 0.2 USD). A roadmap "Q4 '99" or
#:     "H1 99" is short_year (was 2099: 1999 or 2099?), "Q4 ’18" is Q4 2018 (a typographic
#:     apostrophe; was unreadable_date). "1٫5", "1٬000" are unreadable_number (were range).
#: 26: a roadmap two-digit year is 2000-2029 only ("Q4 '89" was 2089: short_year), and a quarter
#:     or half as a start date is unreadable_date ("Q4 '99" was short_year). A lone scale letter
#:     glued to a currency's letters is a ticker in capitals or unreadable ("5kUSD", "5 mUSD",
#:     "5 musd", a unit column "kUSD", "= 0.1 mUSD" were 5,000 or 5e6 USD: Karura's kUSD,
#:     mStable's mUSD?); "$5B USD" is 5e9 USD (was unreadable: a "$" settles B), "5 BUSD$",
#:     "5 B USD$" unreadable (were 5e9 USD: b scales a symbol alone); "5m" under ETH and "5 B"
#:     under USD are unreadable (were 5e6 ETH, 5e9 USD); a unit column "USD.", "(USD)", "USD:"
#:     is USD, a price unit "USD per token" USD (were a made-up unit or none); a scale is
#:     exact in decimal ("$4.1B" was 4099999999.9999995), cents on an exchange's side too
#:     ("1 XYZ = 0.7 cents" was 0.006999999999999999 USD). A scale word glued after a ticker in
#:     capitals ("USDCk", "DAIk", "XYZmln") and a unit ending in dots ("USD..") name no unit
#:     (were USDCK, USD.); raised reads "5MUSD$", "5 USD.", "$5k.$" as the value reader does
#:     (were unreadable), a unit column "k.$" too; an amount unit "per token", "tokens", "XYZ/token"
#:     names no unit (was PER TOKEN). The scale rule is declared once, in parse/scales.py;
#:     raised reads a scale after its currency ("5 USD mln", "5 $k": were unreadable), caps
#:     "$5b.USD" (was unreadable); "5 USD k" for K is unreadable in raised too. An amount unit
#:     "XYZ tokens" for XYZ is XYZ (was XYZ TOKENS); "5 k.KIN", a unit column "k.KIN" for KIN
#:     are thousands of KIN, as "5 k KIN" (were unreadable). One rule of case for a scale glued
#:     after any letters: "usdck", "usdcK", "XYZMLN" name no unit (were USDCK, XYZMLN), as
#:     "usdk", "USDMLN"; the own ticker glued to a symbol ("5KUSD$" for KUSD, "5k$" for K) is
#:     unreadable, in raised too (was 5,000 USD); a unit column "%", "percent", "8.3M", "5M+"
#:     names no unit (were %, PERCENT...), "N/A" none either (its numbers were unreadable);
#:     "5 percent" is percent; "5 XYZ tokens" for XYZ is 5 XYZ (was unreadable); raised reads
#:     "5 USD ." (was unreadable) and caps leave "5 $k.." (were 5,000 USD). The own ticker's
#:     letters with a scale glued after them, in lowercase or as a name ("xyzmln", "Xyzk" for
#:     XYZ), name no unit, as a currency's ("usdk"). The own ticker then token words is that
#:     token when the ticker is a percent word too ("5 PCT tokens", a unit column "PCT tokens",
#:     tokens_for_sale "500 PCT tokens" for PCT: were percent, or no unit); with a percent
#:     sign it is a share ("5% XYZ tokens" for XYZ is percent: was 5 XYZ).
#: 27: one rule for every amount: a lone "b" after a number that writes no
#:     currency is billions of the unit column's currency too ("1.2B" under a caps_unit USD,
#:     EUR or ETH was unreadable_number, while raised, in USD, read it); raised is read as an
#:     amount under a unit column USD (parse/amounts.py, list summaries alike): a value in
#:     another unit is a unit_conflict ("5000 ETH", "5 BUSD", "$5 EUR": were
#:     unreadable_number; "5 PCT tokens" for PCT: was percent), "10 cents" is 0.1 (was
#:     unreadable_number). An accepting list's item
#:     holding several tickers is split as a lone string is (["BTC, ETH"] was one ticker).
#: 28: an ICO score outside 0-10, the scale the list filters by (spec 4.2), is missing and a
#:     problem, in profiles and list summaries: negative below 0, out_of_bounds above 10
#:     (-3, 11 and 1e6 were read as given). A lone surrogate in a ticker or an accepting
#:     item is a problem (surrogate), as in every other text (it became U+FFFD silently).
#: 29: a distribution written as fractions of 1 (two or more shares of an ICO, none with a %,
#:     each within 0-1, summing to 1 +- 0.01: 0.6/0.25/0.15) is missing and a problem
#:     (fraction): it was read as percents, 1% of the tokens in all. Bonus terms that are a
#:     share of 0 ("0%", "0 % bonus tokens", 0) are no bonus row when no term of the ICO
#:     gives more, as "NO" (it was one, so has_bonus was True); beside a bonus ("Week 1":
#:     "20%", "Week 4": "0%") a 0% tier stays a row, as before.
#:     Dates: start and end dates read ISO 8601 with a zone that writes its offset (``Z``,
#:     ``+08:00``, ``UTC``, JavaScript's ``GMT+0800 (...)``), converted to UTC, and every day
#:     form roadmap keys read ("1 March 2018", "2018/03/01"), "24:00:00" as the next day's
#:     00:00 (all were unreadable_date; a JavaScript date date_out_of_range); a zone name
#:     without an offset ("PST") stays unreadable_date. A roadmap "2H 2018" is a half (was
#:     unreadable_date). Where a profile writes a start, end or roadmap key month-first
#:     (us_order, anywhere in the text: "Mon 01/15/2018"), its dates whose day and month
#:     could swap are ambiguous_order ("03/04/2018" beside "01/15/2018" was 3 April). A
#:     slashed start or end whose day and month could swap ("03/04/2018") is ambiguous_order
#:     unless the profile writes a slashed day first ("15/03/2018"). A bare offset is read
#:     only after seconds, in ISO's T form or after UTC/GMT ("10:00-12:00" is a time range:
#:     unreadable_date); a bracketed zone only after GMT+hhmm, not naming UTC for another
#:     offset ("12:00:00 UTC (CET)": unreadable_date). A ticker or accepting item holding a
#:     lone surrogate has the text around it made plain as in any ticker (NFKC, zero-width,
#:     look-alikes).
#:     Amounts: one dot and three digits alone in an amount ("12.500", "$12.500", "1 ETH =
#:     1.000 AQB"), 12.5 in 28, is read by the convention the ICO's other amounts show ("1.500.000":
#:     12,500; "1,500,000": 12.5), else ambiguous_separator (list summaries: always). A value
#:     of a group whose empty unit column takes the unit another value wrote obeys it as a
#:     unit column ("1.5m" beside "3,000 ETH" was 1.5e6 ETH: milli?). A capital M is millions
#:     of any currency ("1.5M ETH", "5M" under ETH, a unit column "ETH M" were unreadable as
#:     milli?): SI's milli is a lowercase m, which stays unreadable beside a currency not fiat.
#:     A unit column that names no unit ("Singapore dollars", "USD/ETH") is a row of its own,
#:     unreadable_unit, and so are its group's numbers (were unreadable_number or
#:     unreadable_price, the unit text in no row); "Ethereum Classic" is ETC (was no unit).
#:     "-0.0" is 0.0 (was negative zero, in amounts, prices and scores). An exchange side with
#:     an exponent is read as an amount ("1 ETH = 1e3 AQB"; "1e400": infinite; both were range),
#:     a power of ten written out ("1.5x10^7") is unreadable_number (was range). Its mirror
#:     "1,500" is 1.5 where the ICO shows dots grouping (was 1,500), ambiguous_separator where
#:     it shows both, else 1,500; "1.500M" where dots group: ambiguous_separator (was 1.5e9);
#:     only amounts that are read show the convention ("0,1 ETH" refused: none).
#: 30: a value refused for another reason ("1,000,000 BTC" under USD) still shows its marks
#:     where the amounts read show the other convention: both shown, "1,500" and "12.500"
#:     there are ambiguous_separator (were read by the one convention of the read amounts);
#:     alone it still settles nothing. A share with words after its % ("25% (vested)",
#:     "25% vested") is vague, "20% + 5%" a range (both were percent). A dollar of no country
#:     ("$3", "3 dollars", "1 AQB = $3") under a unit column naming another dollar that is
#:     not read ("Singapore dollars", "S$", "$ (SGD)", "$NZD", "USD or SGD") is unreadable_unit
#:     (was 3 USD, its unit USD); under "$ mln", "dollars (US)" it stays 3 USD. A nonzero
#:     number written too small for a float ("1e-400", "1e-400 ETH = 1 AQB", "1e-300 ETH =
#:     1e300 AQB", "1e-323" cents), in amounts, prices, raised and scores, is the new reason
#:     underflow (was 0.0, no row); a written 0 ("0e-400") stays 0.
#: 31: one comma before three digits in an amount ("1,500", "30,000 ETH", "1 ETH = 3,000 AQB")
#:     is ambiguous_separator where the ICO's amounts read show a decimal comma ("0,05 USD",
#:     "1,5M") and no dots grouping, alone or beside commas grouping (was read 1,500 by the
#:     English default); where no amount read shows a convention but a refused one shows
#:     dots grouping or a decimal comma ("1.500,5 EUR" in raised: was 1,500); and where a
#:     refused one shows a decimal comma beside read commas grouping ("0,05 USD" a
#:     unit_conflict beside "$1,000,000": was 1,500). Beside dots grouping read
#:     ("1.500.000", with a decimal comma or not) it stays 1.5, beside commas grouping alone
#:     or no sign 1,500. A value missing as ambiguous_separator ("1,500 USD", "12.500 ETH")
#:     still counts the unit it writes in its group: an empty unit column takes it
#:     ("12.500 ETH" beside "5000": was missing), and a value of its group naming another
#:     unit is a unit_conflict ("5 USD" beside "12.500 ETH": was 5 USD; "12.500 ETH" beside
#:     "1,500 USD" stays one).
#: 32: a date written "Jan 5,2018" in an amount shows no decimal comma ("1,500 ETH" beside
#:     a refused "$1,500,000 (Jan 5,2018)" was ambiguous_separator in 31: it is 1,500).
#: 33: an English word beside a bare number is no unit (vocabulary.NOT_UNITS, any case): words
#:     of approximation or bound, of what the amount is or was, joining words and token
#:     standards ("around 5M", "5M hard", "Hardcap 20M", "Presale 0.1", "5M raised" were 5e6
#:     or 0.1 in a made-up unit AROUND, HARD, HARDCAP, PRESALE, RAISED, no row, and the unit
#:     spread to the group's other values): the amount is vague; a unit column of one
#:     ("mixed", "ERC20") names no unit (unreadable_unit). The ICO's own ticker written as it
#:     is stays its token ("500M HARD", caps_unit "HARD" for HARD, "1 ETH = 1000 EST" for EST).
#:     Reasons: "over 5M" under USD is vague (was unit_conflict), "$20M hard / $5M soft" a
#:     range (was unit_conflict), "CHF 1'000'000.-"
#:     unreadable_number (was range), a score over its scale ("4.5/5", "8 out of 10")
#:     unreadable_number (was range). A price "1 ETH : 1000 XYZ", "1 ETH → 1000 XYZ", "1000
#:     tokens per 1 ETH" is read as with "=" (0.001 ETH; was range), elsewhere
#:     unreadable_number.
#: 34: a word beside a number is a unit only when it is a known currency or token code
#:     (UNIT_ALIASES, FIAT_CODES, vocabulary.TOKEN_CODES), the ICO's own ticker or its unit
#:     column's unit: "Price 0.1", "5M required", "capped 5M", "Аround 5M" (Cyrillic), "500
#:     BFC" for XYZ were 0.1 PRICE, 5e6 REQUIRED... with no row; now missing, unknown_unit
#:     (as are "500 BFC" in raised and tokens_for_sale: were unit_conflict, and "1 XYZ = 5
#:     BFC"). An exchange whose token side is another unknown ticker, for an ICO with a ticker,
#:     is unreadable_price ("1 BILL = 1 XLM" for XYZ: was 1 XLM, or a unit_conflict under
#:     USD). Read now: A$, C$, HK$, S$, NZ$, R$, ₩, ₽ (AUD... were unreadable_number, or a unit
#:     column naming no unit), RMB, yuan (CNY), SFr. (CHF), 円 (JPY) (were YUAN, SFR...), and
#:     unit columns "USD ($)", "Ether (ETH)", "in USD" (named no unit).
#: 35: a bare "pound" or "pounds" is GBP, as a bare "dollar" is USD ("2M pounds" was
#:     unknown_unit, a unit column "pounds" the unit POUNDS); "Egyptian pounds" names no unit.
#:     A scale word and a dot before ₩ or ₽ scale it, as before € ("5 k.₩" is 5,000 KRW; was
#:     unreadable_number).
#: 36: a known code beside its name in brackets, or the code twice, is that code: a unit column
#:     "Tron (TRX)", "TRX (Tron)", "Horizen (ZEN)", "Chainlink (LINK)" (was the made-up unit
#:     TRON (TRX), ...; "Ethereum (ETH)" and "USD ($)" were read already), and an accepting
#:     item so (canonical_unit: counted once beside "TRX"). A price written in the ICO's own
#:     token ("2500 XYZ", "XYZ 2500", "5000 XYZ" under a unit column XYZ, for XYZ) is
#:     unreadable_price (was 2,500 XYZ per XYZ; "2500 XYZ" under ETH was unit_conflict).
#: 37: a list written as one string (restricted_areas, accepting) is never split inside
#:     brackets ("Fiat (USD, EUR), BTC" was 'Fiat (USD', 'EUR)', 'BTC'), a part naming a
#:     country is an item of its own ("USA, The Netherlands" was one item), an ISO name with a
#:     comma is one ("Virgin Islands, U.S." was two: a false US), full-width and ideographic
#:     commas and semicolons, bars, bullets, line breaks split, and "/", "+", "&", "and" where
#:     no name is cut ("USA/China", "BTC and ETH" were one item); a doubtful split is one item
#:     and a row doubtful_split. markets are split between URLs (were one item).
#: 38: an amount grouped by spaces or apostrophes with one mark and three digits after it
#:     ("1 500.000", "1'500,000", "12 500.000", "1 500 000.000", a price "1 ETH = 1 500.000
#:     AQB") is read by the ICO's convention, as "12.500" and "1,500" are: beside dots grouping
#:     "1 500.000" is 1,500,000 (was 1,500, no row) and "1 500,000" 1,500; beside commas
#:     grouping the mirror; where nothing decides, or a scale word follows a group, missing,
#:     ambiguous_separator (was read as a decimal). "n.a.", "N.A.", "#N/A", "TBC", "--", "?",
#:     "not specified", "undefined" (any case) are missing markers, as "N/A" is (were kept as
#:     text, a location "n.a.", or unreadable_number / unreadable_date rows), and a text column's
#:     value of zero-width characters alone ("\u200b") is missing (was kept as text). The
#:     shares of a distribution summing to over 101% (a bare share over 100 counted) are missing,
#:     share_total ({"Team": "90%", "Sale": "90%", "Res": "90%"} read 90 each, no row). A day
#:     "01-Mar-2018", "1-Mar-2018", "01/Mar/2018" is read (was unreadable_date).
#: 39: a token price in more forms of an exchange (was missing): the ICO's ticker then token
#:     words on a side ("1 ETH = 5000 XYZ tokens", "1 XYZ token = $0.0004"), the ticker before
#:     its price ("XYZ 0.0004 USD", "XYZ: $0.0004", "XYZ = 0.05 EUR"), tokens per currency
#:     ("5000 XYZ per ETH", "2500 XYZ/ETH", "5000 XYZ tokens per 1 ETH", "0.1 ETH / 250
#:     BERRY": 1/5000 ETH...), "$0.0004 per XYZ token", and a ticker beginning with a digit
#:     ("1 2GT = 0.05 EUR" was "1 2", digits grouped: grouping). "0.1 USD per ETH" is
#:     unreadable_price (was unreadable_number).
PARSER_VERSION: Final = 39
