"""Fetching: the load context (:mod:`.context`) and the crawl of list pages and profiles
(:mod:`.crawl`)."""

from .context import LoadContext, age_limit
from .crawl import Crawl

__all__ = ["Crawl", "LoadContext", "age_limit"]
