"""
Funds raised
============

:func:`icoframes.plot_raised` draws the distribution of ``raised`` (USD) on a
log axis with the median marked. Most ICOs never publish what they raised: the
chart says how many rows it could not show.
"""

import icoframes

sb = icoframes.sandbox.start(n_icos=400, seed=7)
icoframes.configure(**sb.settings())
icos = icoframes.load_icos(status="past", progress=False)

ax = icoframes.plot_raised(icos)

# %%
# Compared across categories (the four largest, the rest as "other"):
ax = icoframes.plot_raised(icos, by="category", top=4)

sb.stop()
