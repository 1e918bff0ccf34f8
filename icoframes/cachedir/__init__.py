"""Managing the cache dir, on top of the store (:mod:`icoframes.store`, what is fetched).

What is in the cache dir (``cache_info``: each service folder measured, the request
ledgers counted), clearing it (``clear_cache``), pruning it (``prune_cache``: folders no
load used for long, old list results, leftover files) and marking a folder used are in
:mod:`icoframes.cachedir.housekeeping`, by the rules of :mod:`icoframes.cachedir.entries`
(which names are the cache's, a folder's last use, what a cut write leaves); converting a
service folder of icoframes 0.1's layout (journals and Parquet parts) into its database,
once, is in :mod:`icoframes.cachedir.legacy`. None keeps anything itself: all go through
the store.
"""
