"""Managing the cache dir, on top of the store (:mod:`icoframes.store`, what is fetched).

What is in the cache dir (``cache_info``: each service folder measured, the request
ledgers counted), clearing it (``clear_cache``), pruning it (``prune_cache``: folders no
load used for long, old list results, leftover files) and marking a folder used are in
:mod:`icoframes.cachedir.housekeeping`; converting a service folder of icoframes 0.1's
layout (journals and Parquet parts) into its database, once, is in
:mod:`icoframes.cachedir.legacy`. Neither keeps anything itself: both go through the store.
"""
