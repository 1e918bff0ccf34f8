"""What is kept on disk: profile events (journals, parts), claims, lists, tables, ledger."""
