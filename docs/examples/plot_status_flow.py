"""
Statuses over daily snapshots
=============================

:func:`icoframes.plot_status_flow` stacks the ICOs of each snapshot by status
and writes what moved between two snapshots. Here four daily snapshots are made
over simulated days: the sandbox's directory changes between them, and each day's
tables are written under ``snapshot_date=YYYY-MM-DD/`` with their date, the tree
``export_tables(out, snapshot=True)`` writes once a day, then read back with
:func:`icoframes.read_snapshots`.
"""

import datetime as dt
import tempfile
from pathlib import Path

import icoframes

sb = icoframes.sandbox.start(n_icos=120, seed=3)
icoframes.configure(**sb.settings())
out = Path(tempfile.mkdtemp())

upcoming, ongoing = sb.directory.ids("upcoming"), sb.directory.ids("ongoing")
for day in range(4):
    if day == 1:  # two ICOs start, one ends, one is added
        for ico_id in upcoming[:2]:
            sb.update_ico(ico_id, status="ongoing")
        sb.update_ico(ongoing[0], status="past")
        sb.add_ico("upcoming")
    elif day == 2:  # three more end
        for ico_id in ongoing[1:4]:
            sb.update_ico(ico_id, status="past")
    elif day == 3:  # one is removed from the directory
        sb.remove_ico(sb.directory.ids("past")[0])
    tables = icoframes.load_tables(refresh=True, progress=False)  # the lists paged again
    tables.to_parquet(out / f"snapshot_date={dt.date(2026, 11, 1 + day)}")

snapshots = icoframes.read_snapshots(out)
ax = icoframes.plot_status_flow(snapshots)

# %%
# The same moves as events, one bar per snapshot:
ax = icoframes.plot_status_flow(icoframes.changes(out, kinds=["status"]))

sb.stop()
