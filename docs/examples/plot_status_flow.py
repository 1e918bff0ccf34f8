"""
Statuses over daily snapshots
=============================

:func:`icoframes.plot_status_flow` stacks the ICOs of each snapshot by status
and writes what moved between two snapshots. Here four daily snapshot exports
are made over simulated days (the sandbox's directory changes between them,
and ``time_machine`` moves the clock), then read back with
:func:`icoframes.read_snapshots`.
"""

import datetime as dt
import tempfile

import time_machine

import icoframes

sb = icoframes.sandbox.start(n_icos=120, seed=3)
icoframes.configure(**sb.settings())
out = tempfile.mkdtemp()

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
    noon = dt.datetime(2026, 11, 1 + day, 12, tzinfo=dt.UTC)
    with time_machine.travel(noon):
        icoframes.export_tables(out, snapshot=True, refresh=True, progress=False)

snapshots = icoframes.read_snapshots(out)
icoframes.plot_status_flow(snapshots)

# %%
# The same moves as events, one bar per snapshot:
icoframes.plot_status_flow(icoframes.changes(out, kinds=["status"]))

sb.stop()
