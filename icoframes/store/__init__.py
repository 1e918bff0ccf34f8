"""What is kept on disk: the raw cache, the tables derived from it, the request ledger."""
