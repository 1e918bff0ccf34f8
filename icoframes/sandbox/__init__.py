"""A local ICO directory server that speaks the whole API spec, over seeded synthetic data."""
