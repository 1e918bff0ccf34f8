"""The pandas dtype of text columns under each supported pandas version, and text built at it.

Every version gets text whose missing value is NaN, so that a comparison gives plain
True/False and the same code keeps the same rows under each (pandas' ``StringDtype()``
holds ``pd.NA``, whose comparisons stay missing):

- pandas 3: its default text dtype ``str``;
- pandas 2.3: the same dtype, spelled ``StringDtype("pyarrow", na_value=np.nan)``;
- pandas 2.2: plain ``object`` holding ``str`` and NaN, pandas 2.2's own default for text.
  Its ``StringDtype("pyarrow_numpy")`` would match pandas 3 more closely, but its
  ``replace`` with a dict or lists changes the wrong rows after a missing value
  (pandas-dev/pandas#59499), silently; pandas 2.3 fixed it.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["TEXT_DTYPE", "is_text_dtype", "neutral_text", "text_from_arrow", "text_values"]

TEXT_DTYPE: Any
if "na_value" in inspect.signature(pd.StringDtype).parameters:  # pandas 2.3 and later
    # pandas 3's "str"; pandas 2.3 deprecates the name "pyarrow_numpy" for this dtype
    TEXT_DTYPE = pd.StringDtype("pyarrow", na_value=np.nan)
else:
    TEXT_DTYPE = np.dtype(object)

_OBJECT = isinstance(TEXT_DTYPE, np.dtype)


def is_text_dtype(dtype: object) -> bool:
    """Whether a text column may have ``dtype``: :data:`TEXT_DTYPE`, or on pandas 2.2 with
    ``future.infer_string`` set, the ``string[pyarrow_numpy]`` pandas then infers for every
    text it is given (the user's choice of pandas' dtype, with its ``replace``)."""
    if dtype == TEXT_DTYPE:
        return True
    return (_OBJECT and bool(pd.get_option("future.infer_string"))
            and isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow_numpy")


def text_from_arrow(data: pa.Array | pa.ChunkedArray) -> Any:
    """Arrow strings as an array of :data:`TEXT_DTYPE`, NaN where null.

    Examples
    --------
    >>> pd.Series(text_from_arrow(pa.array(["a", None]))).isna().tolist()
    [False, True]
    """
    if not _OBJECT:  # pandas' extension dtypes read Arrow themselves (absent from the stubs)
        return TEXT_DTYPE.__from_arrow__(data)
    values = np.array(data.to_numpy(zero_copy_only=False), dtype=object)
    values[pd.isna(values)] = np.nan
    return pd.arrays.NumpyExtensionArray(values)  # (its methods are an extension array's)


def text_values(values: Any) -> Any:
    """``values`` (a Series, array or list) as text of :data:`TEXT_DTYPE`: each value as
    ``str``, a missing one (None, NaN, pd.NA) as NaN; a Series stays a Series (its index kept).

    Examples
    --------
    >>> text_values(pd.Series(["a", None, 3])).tolist()
    ['a', nan, '3']
    """
    series = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
    if not _OBJECT:
        out = series.astype(object).astype(TEXT_DTYPE)
    else:  # (astype(str) would write the text 'nan' for a missing value)
        series = series.astype(object)
        missing = series.isna()
        out = series.where(missing, series.astype(str)).where(~missing, np.nan)
    return out if isinstance(values, pd.Series) else out.array


def neutral_text(table: pa.Table) -> pa.Table:
    """``table`` whose pandas metadata records its text columns as plain ``object``: the
    Arrow types unchanged.

    ``pd.read_parquet`` gives a column the pandas dtype the writer's metadata names:
    pandas 3 reading the text of a pandas 2.2 writer would get 2.2's dtype (and the other
    way, a dtype 2.2 has no name for); recorded as ``object``, pandas 3 reads text as its
    ``str``, pandas 2.2 as ``object`` (or ``str`` under ``future.infer_string``), what each
    gives any Parquet text. The rest of the metadata (an ``Int64`` column, the frame's
    ``attrs``) is kept.

    Examples
    --------
    >>> import pandas as pd
    >>> meta = neutral_text(pa.Table.from_pandas(pd.DataFrame({"a": ["x"]}).astype(
    ...     "string"))).schema.pandas_metadata
    >>> [(c["name"], c["pandas_type"], c["numpy_type"]) for c in meta["columns"]]
    [('a', 'unicode', 'object')]
    """
    metadata = table.schema.metadata or {}
    try:
        pandas = json.loads(metadata[b"pandas"])
        columns = pandas["columns"]
    except (KeyError, TypeError, ValueError):  # no pandas metadata, or not of pandas' shape
        return table
    text = {f.name for f in table.schema
            if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)}
    for column in columns:  # what pandas records of an object column of str
        if isinstance(column, dict) and column.get("field_name") in text:
            column.update(pandas_type="unicode", numpy_type="object")
    return table.replace_schema_metadata({**metadata, b"pandas": json.dumps(pandas).encode()})
