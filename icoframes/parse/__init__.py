"""Raw JSON -> typed columns: reading rules, vectorised converters, profiles and list pages.

Pure functions of decoded JSON: no I/O, no settings, no cache.
"""
