"""
ICOs over time
==============

:func:`icoframes.plot_timeline` counts ICOs per period of their start (bars)
and draws their total raised (line). ICOs that start after ``now`` are drawn
apart, hatched, as scheduled.
"""

import icoframes

sb = icoframes.sandbox.start(n_icos=400, seed=7)
icoframes.configure(**sb.settings())
icos = icoframes.load_icos(progress=False)

ax = icoframes.plot_timeline(icos[icos["status"] == "past"], freq="Q")

# %%
# Every status, with the date that separates started from scheduled ICOs:
ax = icoframes.plot_timeline(icos, freq="Y", now=icos["start_datetime"].median())

sb.stop()
