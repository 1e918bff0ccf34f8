"""Fetching: one load from arguments to result (:class:`~icoframes.fetch.load.Load`)."""

from .load import Load
from .policy import age_limit

__all__ = ["Load", "age_limit"]
