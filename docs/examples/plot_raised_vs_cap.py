"""
Raised against the hard cap
===========================

:func:`icoframes.plot_raised_vs_cap` takes the frame :func:`icoframes.compute_features`
returns with ``rates``: caps stated in ETH, BTC or EUR are converted to USD at
the end of each sale, and each ICO is coloured by whether it reached its soft
cap. A cap without a rate, unit or date is missing, never guessed.
"""

import icoframes

sb = icoframes.sandbox.start(n_icos=400, seed=7)
icoframes.configure(**sb.settings())
tables = icoframes.load_tables(status="past", progress=False)

# The sandbox's rates are synthetic; with the service, bring daily USD rates
# (a CSV, a price downloader) in the same shape.
rates = icoframes.sandbox.rates()
f = icoframes.compute_features(tables, rates=rates)
icoframes.plot_raised_vs_cap(f)

sb.stop()
