"""
Raised against the hard cap
===========================

:func:`icoframes.plot_raised_vs_cap` takes the frame :func:`icoframes.compute_features`
returns with ``rates``: caps stated in ETH, BTC or EUR are converted to USD at
the end of each sale, and each ICO is coloured by whether it reached its soft
cap. A cap without a rate, unit or date is missing, never guessed.

Building the features warns that ``to_usd`` left 6 amounts without a USD value,
all ``(no date)``: their ICOs' profiles give neither an end nor a start of sale, so
no day's rate applies. Those ``*_usd`` cells are missing and the ICOs are not drawn;
the warning counts the amounts left by reason.
"""

import icoframes

sb = icoframes.sandbox.start(n_icos=400, seed=7)
icoframes.configure(**sb.settings())
tables = icoframes.load_tables(status="past", progress=False)

# The sandbox's rates are synthetic; with the service, bring daily USD rates
# (a CSV, a price downloader) in the same shape.
rates = icoframes.sandbox.rates()
f = icoframes.compute_features(tables, rates=rates)
ax = icoframes.plot_raised_vs_cap(f)

sb.stop()
