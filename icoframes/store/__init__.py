"""What is kept on disk: the raw profiles and lists, claims, the derived tables, the ledger."""
