"""Which ICOs :meth:`icoframes.tables.Tables.subset` keeps: ids, or a boolean mask over ``icos``.

Read before any row is taken: ids that are no whole number of ``icos.id`` (a text that
writes none, a float, ``None``, an int past int64), a mask of another length or index, or a
mix of both are refused with :class:`InvalidParameter`, the value quoted short
(:func:`icoframes.quoting.quoted`). A missing value in a mask keeps no row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .errors import InvalidParameter, quoted
from .numerals import as_integer, did_you_mean_number

__all__ = ["kept_ids"]


def kept_ids(icos: pd.DataFrame, ids_or_mask: Any) -> pd.Index:
    """The ids of ``icos`` that :meth:`~icoframes.tables.Tables.subset` keeps; InvalidParameter
    when unusable (refused before any row is taken).

    A missing value in a mask keeps no row, as ``icos[mask]`` does: on pandas 3 a comparison
    of text never gives one (``nan != "USD"`` is True), while a ``boolean`` column
    (``compute_features``) or, on pandas 2.2, ``.str.startswith`` holds them; one answer
    under both versions.
    """
    what = ids_or_mask
    if isinstance(what, str | bytes | dict) or not hasattr(what, "__iter__"):
        # one id (12345, "7") given alone: the list of it is what subset takes
        one = None if isinstance(what, bool | np.bool_ | bytes | dict) else as_integer(what)
        hint = f"; did you mean [{one}]?" if one is not None else ""
        raise InvalidParameter(f"subset takes ICO ids or a boolean mask over icos, got "
                               f"{type(what).__name__}{hint}")
    # ``what`` keeps its dtype (read below): a ``boolean`` array is a mask even when all
    # of it is missing
    values = np.asarray(list(what) if not hasattr(what, "dtype") else what, dtype=object)
    if values.ndim != 1:
        raise InvalidParameter(f"subset takes a one-dimensional list of ids or mask, got "
                               f"shape {values.shape}")
    missing = pd.isna(values).astype(bool)
    known = values[~missing]
    bool_dtype = pd.api.types.is_bool_dtype(getattr(what, "dtype", np.dtype(object)))
    if bool_dtype or (len(known) and all(isinstance(v, bool | np.bool_) for v in known)):
        if isinstance(what, pd.Series) and not what.index.equals(icos.index):
            raise InvalidParameter("subset: a boolean Series must have the index of icos "
                                   f"({len(icos):,} rows); got one of {len(what):,} rows "
                                   "with another index")
        if len(values) != len(icos):  # np.array([], bool) too
            raise InvalidParameter(f"subset: a boolean mask of {len(values):,} values for "
                                   f"{len(icos):,} ICOs: it needs one True or False per ICO")
        keep = np.zeros(len(values), dtype=bool)
        keep[~missing] = known.astype(bool)
        return pd.Index(icos["id"].to_numpy()[keep])
    if any(isinstance(v, bool | np.bool_) for v in values):
        raise InvalidParameter("subset: ids and True/False mixed; give ids, or a mask of one "
                               "True or False per ICO")
    if missing.any():
        raise InvalidParameter("subset: ids must be whole numbers, got a missing value "
                               f"({quoted(values[missing][0])})")
    for odd in (v for v in values if isinstance(v, float | np.floating)):
        raise InvalidParameter(  # 1336.0: ids made floats beside a NaN (a merge, a reindex)
            f"subset: ids are integers, not floats, got {quoted(odd)}; did you mean "
            f"{int(odd)} (ids.astype('int64'))?" if float(odd).is_integer() else
            f"subset: ids must be whole numbers, got {quoted(odd)}")
    # each id read as every integer argument is (numerals.as_integer): "٣", Decimal("2.5") (not
    # id 2, as int() truncates it), a numpy timedelta64 (not id 5, its count of units) or an
    # integer whose __index__ fails is none
    for odd in (v for v in values if type(v) is not int and as_integer(v) is None):
        raise InvalidParameter(f"subset: id {quoted(odd)} is no whole number"
                               + did_you_mean_number(odd))
    try:
        ids = pd.Index(values.astype(np.int64))
    except (TypeError, ValueError, OverflowError):  # 10**30: no id an int64 column holds
        raise InvalidParameter("subset: ids must be whole numbers of icos.id (int64), got "
                               f"{quoted(values[:5].tolist())}") from None
    unknown = ids.difference(pd.Index(icos["id"]))
    if len(unknown):
        raise InvalidParameter(f"subset: {len(unknown):,} id(s) not in icos.id: "
                               f"{unknown[:10].tolist()}")
    return ids
