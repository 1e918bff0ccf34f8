"""
Scores, overall and by group
============================

:func:`icoframes.plot_scores` draws the histogram of ``ico_score``; with ``by``
each of the largest groups gets its own row, labelled with its size, and the
chart says how many ICOs had no score.
"""

import matplotlib.pyplot as plt

import icoframes

sb = icoframes.sandbox.start(n_icos=400, seed=7)  # or your keys: see Getting started
icoframes.configure(**sb.settings())
icos = icoframes.load_icos(progress=False)

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
ax = icoframes.plot_scores(icos, ax=left)
ax = icoframes.plot_scores(icos, by="status", ax=right)
fig.tight_layout()

# %%
# The groups can be any column, such as the platform:
ax = icoframes.plot_scores(icos, by="platform", top=4)

sb.stop()
